package sam

import (
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
)

// The template's replication, with RecordsReplicaRegion given, is the CDK
// Prod stack's (whose context names one): the records bucket's rule and
// the role's permissions, read with the parameters as Prod's values; and
// without it there is none (the condition).
func TestReplicationMatchesCDK(t *testing.T) {
	cdk, sam := stacktest.Synth(t).Prod.JSON, generated(t)
	asProd := strings.NewReplacer("${Stage}", stack.ProdStage, "${RecordsReplicaRegion}", stacktest.ProdReplicaRegion)
	samRule := resourcesOfType(sam, "AWS::S3::Bucket")["RecordsBucket"]["ReplicationConfiguration"].(obj)["Fn::If"].([]any)
	if samRule[0] != hasReplicaCondition || render(samRule[2]) != "${AWS::NoValue}" {
		t.Errorf("the records bucket's replication is not conditioned on %s: %v", hasReplicaCondition, samRule)
	}
	for _, id := range []string{stack.ReplicationRoleID, stack.ReplicationPolicyID, stack.ReplicationFailuresAlarm().LogicalID} {
		if c := sam["Resources"].(obj)[id].(obj)["Condition"]; c != hasReplicaCondition {
			t.Errorf("%s has condition %v, want %s", id, c, hasReplicaCondition)
		}
	}
	policy := resourcesOfType(sam, "AWS::IAM::Policy")[stack.ReplicationPolicyID]
	for _, c := range []check{
		{name: "rule", cdk: func() any {
			return resourcesOfType(cdk, "AWS::S3::Bucket")["RecordsBucket"]["ReplicationConfiguration"]
		},
			sam: func() any { return samRule[1] }},
		{name: "permissions", cdk: func() any { return cdkPermissions(cdk, stack.ReplicationRoleID) },
			sam: func() any { return permissions(policy["PolicyDocument"].(obj)["Statement"].([]any)) }},
		{name: "alarm", cdk: func() any {
			return without(resourcesOfType(cdk, "AWS::CloudWatch::Alarm")[stack.ReplicationFailuresAlarm().LogicalID], "AlarmActions", "OKActions", "Tags")
		}, sam: func() any {
			return without(resourcesOfType(sam, "AWS::CloudWatch::Alarm")[stack.ReplicationFailuresAlarm().LogicalID], "AlarmActions", "OKActions")
		}},
		{name: "trust", cdk: func() any {
			return resourcesOfType(cdk, "AWS::IAM::Role")[stack.ReplicationRoleID]["AssumeRolePolicyDocument"].(obj)["Statement"]
		}, sam: func() any {
			return resourcesOfType(sam, "AWS::IAM::Role")[stack.ReplicationRoleID]["AssumeRolePolicyDocument"].(obj)["Statement"]
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := canonical(c.cdk()), asProd.Replace(canonical(c.sam()))
			if a != b || a == "" {
				t.Errorf("\n CDK %s\n SAM %s", a, b)
			}
		})
	}
}
