package stack

import (
	"strconv"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
)

// LockGuard is a statement of a locked bucket's policy denying everyone a
// write that names a lock the bucket must not hold: the functions that
// date their puts (s3:PutObjectRetention) could otherwise lock a version
// in governance mode, which a bypass undoes, or for a century, which no
// one could undo. template.yaml's generator writes the same statements.
type LockGuard struct {
	Sid string
	// Condition, by operator then key: the request's lock, when it names
	// one (a put naming none takes the bucket's default).
	Condition map[string]map[string]string
}

// LockGuardActions are the writes a lock is named in.
func LockGuardActions() []string { return []string{"s3:PutObject", "s3:PutObjectRetention"} }

// LockGuards are the bucket's (one with ObjectLockDays): no mode but
// deploy.ObjectLockMode, no date more than MaxLockDays ahead.
func LockGuards(b deploy.Bucket) []LockGuard {
	return []LockGuard{
		{Sid: "OnlyComplianceLocks", Condition: map[string]map[string]string{
			"Null":            {"s3:object-lock-mode": "false"},
			"StringNotEquals": {"s3:object-lock-mode": deploy.ObjectLockMode},
		}},
		{Sid: "NoLockPastTheLongestRule", Condition: map[string]map[string]string{
			"NumericGreaterThan": {"s3:object-lock-remaining-retention-days": strconv.Itoa(b.MaxLockDays)},
		}},
	}
}

// statement is the guard as CDK writes it, on the bucket's objects.
func (g LockGuard) statement(bucket awss3.Bucket) awsiam.PolicyStatement {
	cond := map[string]any{}
	for op, kv := range g.Condition {
		inner := map[string]any{}
		for k, v := range kv {
			inner[k] = v
		}
		cond[op] = inner
	}
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(g.Sid),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
		Actions:    jsii.Strings(LockGuardActions()...),
		Resources:  jsii.Strings(*bucket.ArnForObjects(jsii.String("*"))),
		Conditions: &cond,
	})
}
