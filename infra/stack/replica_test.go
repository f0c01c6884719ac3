package stack_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
)

// join is Fn::Join with "".
func join(parts ...any) m { return m{"Fn::Join": []any{"", parts}} }

// The replica stack, made only where its region is named (Prod, not Dev),
// in that region: the records bucket's twin — the same Object Lock default
// in COMPLIANCE mode, lock guards, lifecycle rules, versioning, privacy,
// TLS only, retained — under its fixed name, encrypted with a key of its
// own (rotated, retained, guarded, aliased), its access logs in a bucket of
// the region.
func TestRecordsReplica(t *testing.T) {
	if dev(t).Replica != nil || dev(t).Stack.Replica != nil {
		t.Fatal("the Dev stack names no replica region, yet has a replica")
	}
	p := prod(t)
	if p.Replica == nil {
		t.Fatal("the Prod stack has no replica")
	}
	if got := *p.Stack.Replica.Stack.Region(); got != stacktest.ProdReplicaRegion {
		t.Errorf("the replica stack is in %s, want %s", got, stacktest.ProdReplicaRegion)
	}
	if got := *p.Stack.Replica.Stack.StackName(); got != stack.RecordsReplicaStackName(stack.ProdStage) {
		t.Errorf("replica stack %s", got)
	}
	tmpl, src := p.Replica.Template, p.JSON["Resources"].(map[string]any)["RecordsBucket"].(map[string]any)["Properties"].(map[string]any)
	records := deploy.MustBucket(deploy.BucketRecords)
	countIs(t, tmpl, "AWS::S3::Bucket", 2)
	// The source's properties, but for those that differ by nature.
	want := m{}
	for k, v := range src {
		switch k {
		case "Tags", "ReplicationConfiguration", "BucketEncryption", "LoggingConfiguration":
		default:
			want[k] = v
		}
	}
	want["BucketName"] = join("evs-production-records-replica-", refOf("AWS::AccountId"), "-", refOf("AWS::Region"))
	want["BucketEncryption"] = exactly(m{"ServerSideEncryptionConfiguration": arrayOf(exactly(m{"BucketKeyEnabled": true,
		"ServerSideEncryptionByDefault": exactly(m{"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": arnOf(stack.RecordsReplicaKeyID)})}))})
	want["LoggingConfiguration"] = exactly(m{"DestinationBucketName": refOf(deploy.AccessLogs().LogicalID), "LogFilePrefix": records.AccessLogPrefix()})
	want["Tags"] = assertions.Match_AnyValue()
	hasResource(t, tmpl, stack.RecordsReplicaBucketID, "AWS::S3::Bucket", m{
		"Properties": exactly(want), "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
	})
	statements := append([]any{tlsOnly(stack.RecordsReplicaBucketID)}, lockGuardStatements(records, stack.RecordsReplicaBucketID)...)
	hasResource(t, tmpl, stack.RecordsReplicaBucketID+"Policy", "AWS::S3::BucketPolicy", m{
		"Properties": exactly(m{"Bucket": refOf(stack.RecordsReplicaBucketID), "PolicyDocument": like(m{"Statement": arrayOf(statements...)})}),
	})
	hasResource(t, tmpl, stack.RecordsReplicaKeyID, "AWS::KMS::Key", m{
		"Properties": like(m{"EnableKeyRotation": true, "BypassPolicyLockoutSafetyCheck": true, "KeyPolicy": like(m{
			"Statement": assertions.Match_ArrayWith(&[]any{like(m{"Sid": stack.KeyGuardSid, "Effect": "Deny", "Action": listOf(slices.Sorted(slices.Values(deploy.KeyGuardedActions()))...)})}),
		})}),
		"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
	})
	alias := m{"AliasName": stack.RecordsReplicaKeyAlias(stack.ProdStage), "TargetKeyId": arnOf(stack.RecordsReplicaKeyID)}
	check(t, "the replica key's alias", func() { tmpl.HasResourceProperties(jsii.String("AWS::KMS::Alias"), exactly(alias)) })
	hasResource(t, tmpl, deploy.AccessLogs().LogicalID, "AWS::S3::Bucket", m{"DeletionPolicy": "Retain"})
}

// The Prod stack's records bucket replicates every new version (no delete
// marker) into the replica, SSE-KMS objects included, re-encrypted with the
// replica's key by its alias, as a role S3 assumes whose one policy allows
// exactly what replication does, on exactly the two buckets and keys; the
// stack is deployed after the replica's. Dev has none of it.
func TestRecordsReplication(t *testing.T) {
	if _, ok := dev(t).JSON["Resources"].(map[string]any)[stack.ReplicationRoleID]; ok {
		t.Error("the Dev stack has a replication role")
	}
	tmpl, region := prod(t).Template, stacktest.ProdReplicaRegion
	replicaArn := func(tail string) m {
		return join("arn:", refOf("AWS::Partition"), ":s3:::evs-production-records-replica-", refOf("AWS::AccountId"), "-"+region+tail)
	}
	hasResource(t, tmpl, "RecordsBucket", "AWS::S3::Bucket", m{"Properties": like(m{"ReplicationConfiguration": exactly(m{
		"Role": arnOf(stack.ReplicationRoleID),
		"Rules": arrayOf(exactly(m{
			"Id": stack.ReplicationRuleID, "Status": "Enabled", "Priority": 1, "Filter": exactly(m{"Prefix": ""}),
			"DeleteMarkerReplication": exactly(m{"Status": "Disabled"}),
			"SourceSelectionCriteria": exactly(m{"SseKmsEncryptedObjects": exactly(m{"Status": "Enabled"})}),
			"Destination": exactly(m{"Bucket": replicaArn(""), "Metrics": exactly(m{"Status": "Enabled"}), "EncryptionConfiguration": exactly(m{
				"ReplicaKmsKeyID": join("arn:", refOf("AWS::Partition"), ":kms:"+region+":", refOf("AWS::AccountId"), ":"+stack.RecordsReplicaKeyAlias(stack.ProdStage))})}),
		})),
	})})})
	hasResource(t, tmpl, stack.ReplicationRoleID, "AWS::IAM::Role", m{"Properties": like(m{
		"AssumeRolePolicyDocument": like(m{"Statement": arrayOf(exactly(m{"Action": "sts:AssumeRole", "Effect": "Allow",
			"Principal": exactly(m{"Service": "s3.amazonaws.com"}),
			"Condition": exactly(m{"StringEquals": exactly(m{"aws:SourceAccount": refOf("AWS::AccountId")})})}))}),
		"Policies": absent(), "ManagedPolicyArns": absent(),
	})})
	source, sourceObjects, replicaObjects := stack.ReplicationActions()
	hasResource(t, tmpl, stack.ReplicationPolicyID, "AWS::IAM::Policy", m{"Properties": like(m{
		"Roles": arrayOf(refOf(stack.ReplicationRoleID)),
		"PolicyDocument": like(m{"Statement": arrayOf(
			exactly(m{"Sid": "RecordsBucket", "Effect": "Allow", "Action": listOf(slices.Sorted(slices.Values(source))...), "Resource": arnOf("RecordsBucket")}),
			exactly(m{"Sid": "RecordsObjects", "Effect": "Allow", "Action": listOf(slices.Sorted(slices.Values(sourceObjects))...), "Resource": join(arnOf("RecordsBucket"), "/*")}),
			exactly(m{"Sid": "ReplicaObjects", "Effect": "Allow", "Action": listOf(slices.Sorted(slices.Values(replicaObjects))...), "Resource": replicaArn("/*")}),
			exactly(m{"Sid": "RecordsKey", "Effect": "Allow", "Action": "kms:Decrypt", "Resource": arnOf("RecordsBucketKey"),
				"Condition": exactly(m{"StringEquals": exactly(m{"kms:ViaService": join("s3.", refOf("AWS::Region"), ".amazonaws.com"),
					"kms:EncryptionContext:aws:s3:arn": arnOf("RecordsBucket")})})}),
			exactly(m{"Sid": "ReplicaKey", "Effect": "Allow", "Action": listOf("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"),
				"Resource": join("arn:", refOf("AWS::Partition"), ":kms:"+region+":", refOf("AWS::AccountId"), ":key/*"),
				"Condition": exactly(m{"StringEquals": exactly(m{"kms:ViaService": "s3." + region + ".amazonaws.com",
					"kms:EncryptionContext:aws:s3:arn": replicaArn("")}),
					"ForAnyValue:StringEquals": exactly(m{"kms:ResourceAliases": stack.RecordsReplicaKeyAlias(stack.ProdStage)})})}),
		)}),
	})})
	// Any version it fails to replicate raises an alarm on the alarm topic.
	pa := stack.ReplicationFailuresAlarm()
	hasResource(t, tmpl, pa.LogicalID, "AWS::CloudWatch::Alarm", m{"Properties": like(m{
		"AlarmName": "evs-production-" + pa.Name, "Namespace": "AWS/S3", "MetricName": "OperationsFailedReplication", "Statistic": "Sum",
		"Period": 300, "Threshold": 1, "EvaluationPeriods": 1, "ComparisonOperator": "GreaterThanOrEqualToThreshold", "TreatMissingData": "notBreaching",
		"Dimensions": assertions.Match_ArrayWith(&[]any{
			exactly(m{"Name": "RuleId", "Value": stack.ReplicationRuleID}),
			exactly(m{"Name": "SourceBucket", "Value": refOf("RecordsBucket")}),
		}),
		"AlarmActions": arrayOf(refOf(alarmTopic(t, tmpl))), "OKActions": arrayOf(refOf(alarmTopic(t, tmpl))),
	})})
	deps := *prod(t).Stack.Stack.Dependencies()
	if len(deps) != 1 || *deps[0].StackName() != stack.RecordsReplicaStackName(stack.ProdStage) {
		t.Errorf("the Prod stack depends on %d stacks, want the replica's alone", len(deps))
	}
}

// A stage whose replica bucket's name would pass S3's 63 characters is
// refused at synthesis, naming the length; the longest stage that fits
// is made.
func TestReplicaBucketNameFits(t *testing.T) {
	for _, tc := range []struct {
		stage, region string
		fits          bool
	}{
		{"production", "eu-central-1", true},
		{"seventeen-chars-1", "eu-central-1", true},    // 63 characters
		{"eighteen-chars-ab1", "eu-central-1", false},  // 64
		{"prod-southeast", "ap-southeast-2", true},     // 62
		{"prod-apsoutheast2", "ap-southeast-2", false}, // 65
	} {
		t.Run(tc.stage+" "+tc.region, func(t *testing.T) {
			if got := stack.ReplicaBucketNameLength(tc.stage, tc.region) <= 63; got != tc.fits {
				t.Errorf("%d characters: fits %t, want %t", stack.ReplicaBucketNameLength(tc.stage, tc.region), got, tc.fits)
			}
			if tc.fits {
				return
			}
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "over S3's 63") {
					t.Errorf("made, or refused with %v", r)
				}
			}()
			stack.NewRecordsReplica(awscdk.NewApp(nil), &stack.RecordsReplicaProps{Stage: tc.stage, Region: tc.region})
		})
	}
}
