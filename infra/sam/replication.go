package sam

import (
	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

// The records bucket's replication into its replica in a second region,
// as infra/stack's replicateRecords makes it, when the template's
// RecordsReplicaRegion is given. The replica bucket and its key are the
// CDK app's replica stack (evs-<stage>-records-replica), deployed first in
// that region: one template makes resources in its own region only.

// hasReplicaCondition names the condition that RecordsReplicaRegion is set.
const hasReplicaCondition = "HasRecordsReplica"

// replicaName is the replica bucket's name (stack.RecordsReplicaBucketName)
// with the template's Stage and RecordsReplicaRegion.
var replicaName = stack.RecordsReplicaStackName("${Stage}") + "-${AWS::AccountId}-${" + deploy.RecordsReplicaRegion().Parameter + "}"

// replicaKeyAlias is stack.RecordsReplicaKeyAlias with the Stage parameter.
var replicaKeyAlias = stack.RecordsReplicaKeyAlias("${Stage}")

// replicationConfiguration is the records bucket's ReplicationConfiguration
// while the condition holds.
func replicationConfiguration() *yamlNode {
	return If(hasReplicaCondition, Map(
		KV("Role", GetAtt(stack.ReplicationRoleID, "Arn")),
		KV("Rules", List(Map(
			KV("DeleteMarkerReplication", Flow(KV("Status", "Disabled"))),
			KV("Destination", Map(
				KV("Bucket", Sub("arn:${AWS::Partition}:s3:::"+replicaName)),
				KV("EncryptionConfiguration", Map(KV("ReplicaKmsKeyID",
					Sub("arn:${AWS::Partition}:kms:${RecordsReplicaRegion}:${AWS::AccountId}:"+replicaKeyAlias)))),
				KV("Metrics", Flow(KV("Status", "Enabled"))),
			)),
			KV("Filter", Flow(KV("Prefix", Quoted("")))),
			KV("Id", stack.ReplicationRuleID),
			KV("Priority", 1),
			KV("SourceSelectionCriteria", Map(KV("SseKmsEncryptedObjects", Flow(KV("Status", "Enabled"))))),
			KV("Status", "Enabled"),
		))),
	), Ref("AWS::NoValue"))
}

// replication is the role S3 assumes and its policy, only with a replica.
func replication() []Pair {
	records := deploy.MustBucket(deploy.BucketRecords).LogicalID
	source, sourceObjects, replicaObjects := stack.ReplicationActions()
	allow := func(sid string, actions []string, res any, cond ...Pair) any {
		p := []Pair{KV("Sid", sid), KV("Effect", "Allow"), KV("Action", Strings(actions)), KV("Resource", res)}
		if len(cond) > 0 {
			p = append(p, KV("Condition", Map(cond...)))
		}
		return Map(p...)
	}
	return []Pair{
		resource(stack.ReplicationRoleID, "AWS::IAM::Role", Map(
			KV("AssumeRolePolicyDocument", Map(KV("Version", "2012-10-17"), KV("Statement", List(Map(
				KV("Action", "sts:AssumeRole"),
				KV("Condition", Map(KV("StringEquals", Map(KV("aws:SourceAccount", Ref("AWS::AccountId")))))),
				KV("Effect", "Allow"), KV("Principal", Flow(KV("Service", "s3.amazonaws.com")))))))),
			KV("Description", Sub("S3 replicates the records bucket into its replica in ${RecordsReplicaRegion}")),
		), KV("Condition", hasReplicaCondition)),
		resource(stack.ReplicationPolicyID, "AWS::IAM::Policy", Map(
			KV("PolicyName", "Replication"),
			KV("Roles", List(Ref(stack.ReplicationRoleID))),
			KV("PolicyDocument", Map(KV("Version", "2012-10-17"), KV("Statement", List(
				allow("RecordsBucket", source, GetAtt(records, "Arn")),
				allow("RecordsObjects", sourceObjects, Sub("${"+records+".Arn}/*")),
				allow("ReplicaObjects", replicaObjects, Sub("arn:${AWS::Partition}:s3:::"+replicaName+"/*")),
				allow("RecordsKey", []string{"kms:Decrypt"}, GetAtt(stack.BucketKeyLogicalID(deploy.MustBucket(deploy.BucketRecords)), "Arn"),
					KV("StringEquals", Map(KV("kms:ViaService", Sub("s3.${AWS::Region}.amazonaws.com")),
						KV("kms:EncryptionContext:aws:s3:arn", GetAtt(records, "Arn"))))),
				allow("ReplicaKey", stack.ReplicaKeyActions(),
					Sub("arn:${AWS::Partition}:kms:${RecordsReplicaRegion}:${AWS::AccountId}:key/*"),
					KV("StringEquals", Map(KV("kms:ViaService", Sub("s3.${RecordsReplicaRegion}.amazonaws.com")),
						KV("kms:EncryptionContext:aws:s3:arn", Sub("arn:${AWS::Partition}:s3:::"+replicaName)))),
					KV("ForAnyValue:StringEquals", Map(KV("kms:ResourceAliases", Sub(replicaKeyAlias))))),
			)))),
		), KV("Condition", hasReplicaCondition)),
		alarm(stack.ReplicationFailuresAlarm(), "AWS/S3", "OperationsFailedReplication", "Sum", 1, []Pair{KV("Dimensions", List(
			Flow(KV("Name", "DestinationBucket"), KV("Value", Sub(replicaName))),
			Flow(KV("Name", "RuleId"), KV("Value", stack.ReplicationRuleID)),
			Flow(KV("Name", "SourceBucket"), KV("Value", Ref(records))),
		))}, KV("Condition", hasReplicaCondition)),
	}
}
