package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// NagPacks are the rule packs an AWS account's security review applies to
// the stack at synthesis (cdk-nag): AWS Solutions, NIST 800-53 rev 5 and
// PCI DSS 3.2.1. Each reports a rule a resource breaks as an error (or
// warning) annotation on its construct, unless one of NagSuppressions
// names that rule, that resource and why.
func NagPacks() []awscdk.IAspect {
	// No reports written to the cloud assembly: the annotations are what is read.
	props := &cdknag.NagPackProps{Reports: jsii.Bool(false)}
	return []awscdk.IAspect{
		cdknag.NewAwsSolutionsChecks(props),
		cdknag.NewNIST80053R5Checks(props),
		cdknag.NewPCIDSS321Checks(props),
	}
}

// NagSuppression is one decision not to follow rules of the packs on some
// resources. The infra README lists every one (a test holds it to this).
type NagSuppression struct {
	// Rules are the packs' rule ids.
	Rules []string
	// Where names the resources, as the README says it.
	Where string
	// AppliesTo narrows a rule that names what it found (IAM4's managed
	// policies, IAM5's wildcard resources) to these findings, regular
	// expressions over the finding as cdk-nag spells it
	// ("Resource::<EvidenceBucket.Arn>/*").
	AppliesTo []string
	// Reason is what an account's reviewer reads.
	Reason string
	// on finds the resources in a stack; every child is included.
	on func(s *ServiceStack) []constructs.IConstruct
}

// NagSuppressions are every suppression the stack carries, by concern.
func NagSuppressions() []NagSuppression {
	var out []NagSuppression
	for _, concern := range [][]NagSuppression{storageNag(), functionsNag(), apiNag(), messagingNag()} {
		out = append(out, concern...)
	}
	return out
}

// suppressNag puts every NagSuppressions entry on its constructs, where
// cdk-nag reads them (and the template shows them, in each resource's
// Metadata.cdk_nag).
func (s *ServiceStack) suppressNag() {
	for _, n := range NagSuppressions() {
		var list []*cdknag.NagPackSuppression
		for _, rule := range n.Rules {
			sup := &cdknag.NagPackSuppression{Id: jsii.String(rule), Reason: jsii.String(n.Reason)}
			if len(n.AppliesTo) > 0 {
				applies := []any{}
				for _, re := range n.AppliesTo {
					applies = append(applies, &cdknag.RegexAppliesTo{Regex: jsii.String("/^" + re + "$/")})
				}
				sup.AppliesTo = &applies
			}
			list = append(list, sup)
		}
		for _, c := range n.on(s) {
			cdknag.NagSuppressions_AddResourceSuppressions(c, &list, jsii.Bool(true))
		}
	}
}

// one is a construct as the list of one that NagSuppression.on returns.
func one(c constructs.IConstruct) []constructs.IConstruct { return []constructs.IConstruct{c} }
