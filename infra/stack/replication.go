package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/jsii-runtime-go"
)

// Logical ids and names of the records bucket's replication.
const (
	ReplicationRoleID   = "RecordsReplicationRole"
	ReplicationPolicyID = "RecordsReplicationPolicy"
	// ReplicationRuleID names the one rule: every new version, to the
	// replica.
	ReplicationRuleID = "EveryVersionToTheReplica"
)

// ReplicationActions are what S3 does as the replication role, by what it
// is authorized on: the records bucket, its objects, the replica's objects.
// No delete is replicated (a delete marker stays in its region), so no
// s3:ReplicateDelete.
func ReplicationActions() (source, sourceObjects, replicaObjects []string) {
	return []string{"s3:GetReplicationConfiguration", "s3:ListBucket"},
		[]string{"s3:GetObjectVersionForReplication", "s3:GetObjectVersionAcl", "s3:GetObjectVersionTagging",
			"s3:GetObjectRetention", "s3:GetObjectLegalHold"},
		[]string{"s3:ReplicateObject", "s3:ReplicateTags"}
}

// ReplicaKeyActions are what replication does with the replica's key, as
// the replication role, through S3 in the replica's region, for the
// replica bucket (its S3 Bucket Key's encryption context).
func ReplicaKeyActions() []string {
	return []string{"kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"}
}

// replicateRecords has the records bucket replicate every new version,
// with its lock date, mode and tags, to the replica bucket, re-encrypted
// there with the replica's key (named by its alias): a role S3 assumes,
// allowed exactly ReplicationActions, kms:Decrypt of the records key
// through S3 for the records bucket, and ReplicaKeyActions through S3 in
// the replica's region for the replica bucket on the key with the
// replica's alias. The service's stack depends on the replica's, so
// the replica exists when the replication is configured.
func (s *ServiceStack) replicateRecords(replica *RecordsReplica, bucket awss3.Bucket, key awskms.Key) {
	st := s.Stack
	st.AddStackDependency(replica.Stack, jsii.String("the records bucket replicates into the replica bucket"))
	account, partition := awscdk.Aws_ACCOUNT_ID(), awscdk.Aws_PARTITION()
	replicaName := RecordsReplicaBucketName(replica.Stage, account, jsii.String(replica.Region))
	replicaArn := awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String("arn:"), partition, jsii.String(":s3:::"), replicaName})
	source, sourceObjects, replicaObjects := ReplicationActions()
	statement := func(sid string, actions []string, resources []*string, conditions map[string]any) awsiam.PolicyStatement {
		p := &awsiam.PolicyStatementProps{Sid: jsii.String(sid), Actions: jsii.Strings(actions...), Resources: &resources}
		if conditions != nil {
			p.Conditions = &conditions
		}
		return awsiam.NewPolicyStatement(p)
	}
	doc := awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &[]awsiam.PolicyStatement{
		statement("RecordsBucket", source, []*string{bucket.BucketArn()}, nil),
		statement("RecordsObjects", sourceObjects, []*string{bucket.ArnForObjects(jsii.String("*"))}, nil),
		statement("ReplicaObjects", replicaObjects, []*string{awscdk.Fn_Join(jsii.String(""), &[]*string{replicaArn, jsii.String("/*")})}, nil),
		statement("RecordsKey", []string{"kms:Decrypt"}, []*string{key.KeyArn()}, map[string]any{"StringEquals": map[string]any{
			"kms:ViaService":                   awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String("s3."), awscdk.Aws_REGION(), jsii.String(".amazonaws.com")}),
			"kms:EncryptionContext:aws:s3:arn": bucket.BucketArn(),
		}}),
		// Decrypt too: the replica bucket's S3 Bucket Key is checked with
		// it (S3 User Guide, S3 Bucket Keys and replication).
		statement("ReplicaKey", ReplicaKeyActions(),
			[]*string{awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String("arn:"), partition, jsii.String(":kms:" + replica.Region + ":"), account, jsii.String(":key/*")})},
			map[string]any{
				"StringEquals": map[string]any{"kms:ViaService": "s3." + replica.Region + ".amazonaws.com",
					"kms:EncryptionContext:aws:s3:arn": replicaArn},
				"ForAnyValue:StringEquals": map[string]any{"kms:ResourceAliases": RecordsReplicaKeyAlias(replica.Stage)},
			}),
	}})
	role := awsiam.NewRole(st, jsii.String(ReplicationRoleID), &awsiam.RoleProps{
		// S3 acting for this account only (the confused deputy); its
		// bucket's ARN cannot be named here, the bucket naming the role.
		AssumedBy: awsiam.NewPrincipalWithConditions(awsiam.NewServicePrincipal(jsii.String("s3.amazonaws.com"), nil),
			&map[string]any{"StringEquals": map[string]any{"aws:SourceAccount": awscdk.Aws_ACCOUNT_ID()}}),
		Description: jsii.String("S3 replicates the records bucket into its replica in " + replica.Region),
	})
	role.Node().DefaultChild().(awsiam.CfnRole).OverrideLogicalId(jsii.String(ReplicationRoleID))
	// A policy of its own, not one inside the role: the bucket names the
	// role and the policy names the bucket, which a role holding it would
	// make a cycle.
	policy := awsiam.NewPolicy(st, jsii.String(ReplicationPolicyID), &awsiam.PolicyProps{Document: doc, Roles: &[]awsiam.IRole{role}})
	policy.Node().DefaultChild().(awsiam.CfnPolicy).OverrideLogicalId(jsii.String(ReplicationPolicyID))
	aliasArn := awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String("arn:"), partition, jsii.String(":kms:" + replica.Region + ":"), account,
		jsii.String(":" + RecordsReplicaKeyAlias(replica.Stage))})
	bucket.Node().DefaultChild().(awss3.CfnBucket).SetReplicationConfiguration(&awss3.CfnBucket_ReplicationConfigurationProperty{
		Role: role.RoleArn(),
		Rules: &[]any{&awss3.CfnBucket_ReplicationRuleProperty{
			Id:                      jsii.String(ReplicationRuleID),
			Status:                  jsii.String("Enabled"),
			Priority:                jsii.Number(1),
			Filter:                  &awss3.CfnBucket_ReplicationRuleFilterProperty{Prefix: jsii.String("")},
			DeleteMarkerReplication: &awss3.CfnBucket_DeleteMarkerReplicationProperty{Status: jsii.String("Disabled")},
			SourceSelectionCriteria: &awss3.CfnBucket_SourceSelectionCriteriaProperty{
				SseKmsEncryptedObjects: &awss3.CfnBucket_SseKmsEncryptedObjectsProperty{Status: jsii.String("Enabled")},
			},
			Destination: &awss3.CfnBucket_ReplicationDestinationProperty{
				Bucket:                  replicaArn,
				EncryptionConfiguration: &awss3.CfnBucket_EncryptionConfigurationProperty{ReplicaKmsKeyId: aliasArn},
				// S3 reports the rule's failed operations
				// (OperationsFailedReplication), which the alarm watches.
				Metrics: &awss3.CfnBucket_MetricsProperty{Status: jsii.String("Enabled")},
			},
		}},
	})
	s.replicationAlarm(bucket, replicaName)
}

// ReplicationFailuresAlarm is the alarm on any version the records bucket
// failed to replicate: its copy in the second region is missing.
func ReplicationFailuresAlarm() PipelineAlarm {
	return PipelineAlarm{LogicalID: "RecordsReplicationFailures", Name: "records-replication-failures",
		Description: "The records bucket failed to replicate a version to its replica in the second region (≥ 1 in 5 minutes): " +
			"the replica lacks it until it is replicated again (S3 Batch Replication of the failed ones)"}
}

// replicationAlarm alarms, on the alarm topic, on any operation the
// replication rule failed in a period.
func (s *ServiceStack) replicationAlarm(bucket awss3.Bucket, replicaName *string) {
	pa := ReplicationFailuresAlarm()
	alarm := awscloudwatch.NewAlarm(s.Stack, jsii.String(pa.LogicalID), &awscloudwatch.AlarmProps{
		AlarmName:        jsii.String(StackName(s.Stage) + "-" + pa.Name),
		AlarmDescription: jsii.String(pa.Description),
		Metric: awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
			Namespace: jsii.String("AWS/S3"), MetricName: jsii.String("OperationsFailedReplication"),
			DimensionsMap: &map[string]*string{"SourceBucket": bucket.BucketName(), "DestinationBucket": replicaName, "RuleId": jsii.String(ReplicationRuleID)},
			Statistic:     jsii.String("Sum"), Period: awscdk.Duration_Minutes(jsii.Number(5)),
		}),
		Threshold:          jsii.Number(1),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: atLeast,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	overrideID(alarm, pa.LogicalID)
	action := awscloudwatchactions.NewSnsAction(s.Observability.Topic)
	alarm.AddAlarmAction(action)
	alarm.AddOkAction(action)
	s.Observability.Alarms = append(s.Observability.Alarms, alarm)
}
