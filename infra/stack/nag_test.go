package stack_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/evs-kyb/evs/infra/stack"
)

// The packs run at the stacks' synthesis (stacktest) and TestNoAnnotations
// fails on any error or warning they leave; this proves, on a stack of one
// queue, that they report a rule broken and that a suppression naming the
// rule silences it.
func TestNagPacksReportWhatIsNotSuppressed(t *testing.T) {
	for _, tc := range []struct {
		name       string
		suppress   bool
		wantReport bool
	}{
		{"unsuppressed", false, true},
		{"suppressed", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := awscdk.NewApp(nil)
			st := awscdk.NewStack(app, jsii.String("NagProbe"), nil)
			q := awssqs.NewQueue(st, jsii.String("Queue"), &awssqs.QueueProps{Encryption: awssqs.QueueEncryption_SQS_MANAGED})
			if tc.suppress {
				cdknag.NagSuppressions_AddResourceSuppressions(q, &[]*cdknag.NagPackSuppression{
					{Id: jsii.String("AwsSolutions-SQS4"), Reason: jsii.String("the probe's")},
				}, jsii.Bool(true))
			}
			for _, pack := range stack.NagPacks() {
				awscdk.Aspects_Of(st).Add(pack, nil)
			}
			errs := assertions.Annotations_FromStack(st).FindError(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String("AwsSolutions-SQS4")))
			if got := len(*errs) > 0; got != tc.wantReport {
				t.Errorf("AwsSolutions-SQS4 (a queue without a TLS-only policy) reported: %v, want %v", got, tc.wantReport)
			}
		})
	}
}

// Every suppression names its rules, its resources and a reason, and each
// rule is one of the three packs'.
func TestNagSuppressionsSayWhy(t *testing.T) {
	for _, n := range stack.NagSuppressions() {
		if len(n.Rules) == 0 || n.Where == "" || len(n.Reason) < 40 {
			t.Errorf("suppression %v on %q: rules, resources and a reason of a sentence or more are needed", n.Rules, n.Where)
		}
		for _, r := range n.Rules {
			if !strings.HasPrefix(r, "AwsSolutions-") && !strings.HasPrefix(r, "NIST.800.53.R5-") && !strings.HasPrefix(r, "PCI.DSS.321-") {
				t.Errorf("rule %s is none of the packs'", r)
			}
		}
	}
}
