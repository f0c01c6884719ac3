package stack

import (
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
)

// The rules of NagPacks this stack does not follow, by concern, each with
// the resources and the reason (NagSuppression). Both NIST 800-53 rev 5
// and PCI DSS 3.2.1 ids are named where the two packs carry the same rule.

// storageNag: tables, secrets, buckets.
func storageNag() []NagSuppression {
	return []NagSuppression{
		{Rules: []string{"NIST.800.53.R5-DynamoDBInBackupPlan"}, Where: "every table",
			Reason: "Point-in-time recovery (35 days, any second) is on for every table, and every audit record is " +
				"also locked in the records bucket; an AWS Backup plan would add a copy the account's backup policy " +
				"chooses, outside this stack.",
			on: func(s *ServiceStack) []constructs.IConstruct { return one(s.Data.Construct) }},
		{Rules: []string{"AwsSolutions-SMG4", "NIST.800.53.R5-SecretsManagerRotationEnabled"}, Where: "every secret",
			Reason: "They hold the providers' API keys and the webhook signing secret, which the providers issue: no " +
				"rotation function can get a new one. They are rotated by hand (the README's put-secret-value; the " +
				"webhook secret with an overlap).",
			on: func(s *ServiceStack) []constructs.IConstruct { return one(s.Secrets.Construct) }},
		{Rules: []string{"NIST.800.53.R5-SecretsManagerUsingKMSKey", "PCI.DSS.321-SecretsManagerUsingKMSKey"}, Where: "every secret",
			Reason: "Encrypted with the AWS managed key of Secrets Manager; who reads a secret is decided by IAM " +
				"(GetSecretValue on exactly the secrets a function's catalogue entry names), which a key of our own " +
				"would not narrow.",
			on: func(s *ServiceStack) []constructs.IConstruct { return one(s.Secrets.Construct) }},
		{Rules: []string{"AwsSolutions-S1", "NIST.800.53.R5-S3BucketLoggingEnabled", "PCI.DSS.321-S3BucketLoggingEnabled"},
			Where: "the access logs' buckets",
			Reason: "Each is where its region's other buckets' server access logs go; logging its own access into itself would " +
				"log each delivery of a log, without end. Only S3's logging service writes to it; reading it is IAM's decision.",
			on: accessLogBuckets},
		{Rules: []string{"NIST.800.53.R5-S3DefaultEncryptionKMS", "PCI.DSS.321-S3DefaultEncryptionKMS"},
			Where: "the access logs' buckets",
			Reason: "S3's server access log delivery writes only to a bucket encrypted with S3's own keys (SSE-S3); " +
				"the logs name requests, never an object's bytes.",
			on: accessLogBuckets},
		{Rules: []string{"NIST.800.53.R5-S3BucketReplicationEnabled", "PCI.DSS.321-S3BucketReplicationEnabled"},
			Where: "the evidence bucket, the access logs' buckets, the records bucket's replica",
			Reason: "What must survive a region is replicated: the records bucket, which holds a locked copy of every " +
				"audit record and evidence body (the evidence bucket's included), into its replica. The evidence bucket " +
				"is the working copy of bodies over 350 KB; the access logs are their region's; a replica is not " +
				"replicated again.",
			on: func(s *ServiceStack) []constructs.IConstruct {
				out := []constructs.IConstruct{s.Buckets.Buckets[deploy.BucketEvidence]}
				out = append(out, accessLogBuckets(s)...)
				if s.Replica != nil {
					out = append(out, s.Replica.Bucket)
				}
				return out
			}},
		{Rules: []string{"NIST.800.53.R5-IAMNoInlinePolicy", "PCI.DSS.321-IAMNoInlinePolicy"}, Where: "the records' replication role",
			Reason: "Its one policy is written for it alone (exactly what S3 replication does, on the two buckets and keys); " +
				"a policy of its own rather than the role's, since the bucket names the role.",
			on: replicationPolicy},
		{Rules: []string{"AwsSolutions-IAM5"}, Where: "the records' replication role",
			AppliesTo: []string{`Resource::<RecordsBucket\.Arn>/\*`, `Resource::arn:<AWS::Partition>:s3:::evs-[a-z0-9-]+-records-replica-<AWS::AccountId>-[a-z0-9-]+/\*`,
				`Resource::arn:<AWS::Partition>:kms:[a-z0-9-]+:<AWS::AccountId>:key/\*`},
			Reason: "Replication reads and writes every object version of the two buckets, whose keys are dates and hashes; " +
				"the replica's key is named by its alias (kms:ResourceAliases), its id being another region's stack's.",
			on: replicationPolicy},
	}
}

// accessLogBuckets are the access logs' buckets: the stack's, and the
// replica's region's.
func accessLogBuckets(s *ServiceStack) []constructs.IConstruct {
	out := []constructs.IConstruct{s.Buckets.AccessLogs}
	if s.Replica != nil {
		out = append(out, s.Replica.AccessLogs)
	}
	return out
}

// replicationPolicy is the replication role's policy, if the stack has one.
func replicationPolicy(s *ServiceStack) []constructs.IConstruct {
	if c := s.Stack.Node().TryFindChild(jsii.String(ReplicationPolicyID)); c != nil {
		return one(c)
	}
	return nil
}

// functionsNag: the functions, their roles and log groups, and the
// workflow's role.
func functionsNag() []NagSuppression {
	functionsAndWorkflow := func(s *ServiceStack) []constructs.IConstruct {
		return []constructs.IConstruct{s.Functions.Construct, s.Workflow.Construct}
	}
	return []NagSuppression{
		{Rules: []string{"NIST.800.53.R5-LambdaConcurrency"}, Where: "every function",
			Reason: "Reserved concurrency is carved out of the account's regional pool (new accounts have 10 in all, " +
				"and 10 must stay unreserved), so it can fail a first deploy; the API's stage throttling and each " +
				"queue event source's maximum concurrency bound what the functions take.",
			on: func(s *ServiceStack) []constructs.IConstruct { return one(s.Functions.Construct) }},
		{Rules: []string{"NIST.800.53.R5-LambdaDLQ"}, Where: "every function",
			Reason: "A DLQ holds failed asynchronous invocations. The API's functions, the authorizer and the decision " +
				"task are invoked synchronously (the caller sees the error); stream and queue consumers send failures " +
				"to their failure queues (alarmed); the daily runs are retried by Lambda and alarmed, and each run " +
				"redoes what the last did not.",
			on: func(s *ServiceStack) []constructs.IConstruct { return one(s.Functions.Construct) }},
		{Rules: []string{"NIST.800.53.R5-LambdaInsideVPC", "PCI.DSS.321-LambdaInsideVPC"}, Where: "every function",
			Reason: "The functions reach only AWS APIs and the providers' public HTTPS endpoints (and subscribers' " +
				"webhooks, through the egress guard that refuses private ranges); a VPC would add NAT gateways and " +
				"endpoints and no resource to protect inside it.",
			on: func(s *ServiceStack) []constructs.IConstruct { return one(s.Functions.Construct) }},
		{Rules: []string{"NIST.800.53.R5-IAMNoInlinePolicy", "PCI.DSS.321-IAMNoInlinePolicy"},
			Where:  "every function's role and the workflow's role",
			Reason: "Each role has one policy written for it alone from the catalogue (exact actions on exact resources); inline, it cannot be attached to anything else.",
			on:     functionsAndWorkflow},
		{Rules: []string{"AwsSolutions-IAM5"}, Where: "every function's role and the workflow's role",
			AppliesTo: []string{`Resource::\*`, `Resource::<\w+Table\.Arn>/index/\*`, `Resource::<\w+Bucket\.Arn>/\*`,
				`Resource::<DecisionFunction\.Arn>:\*`, `Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<DecisionStateMachine\.Name>:\*`},
			Reason: "Only where the action has no narrower resource: X-Ray's and CloudWatch Logs' delivery actions " +
				"take only *; a query of a table's indexes (only on tables the catalogue grants); objects in a bucket, " +
				"whose keys are content hashes or dates; the decision function's versions; executions of the one " +
				"state machine.",
			on: functionsAndWorkflow},
		{Rules: []string{"NIST.800.53.R5-CloudWatchLogGroupEncrypted", "PCI.DSS.321-CloudWatchLogGroupEncrypted"},
			Where: "every log group (functions, API access logs, the workflow)",
			Reason: "CloudWatch Logs encrypts every log group at rest; the logs hold ids, actors and outcomes, never " +
				"a secret, a key or a document (the functions log no answer), and who reads them is IAM's decision, " +
				"which a key of our own would not change.",
			on: func(s *ServiceStack) []constructs.IConstruct {
				return []constructs.IConstruct{s.Functions.Construct, s.Api.AccessLogs, s.Workflow.LogGroup}
			}},
	}
}

// apiNag: the REST API.
func apiNag() []NagSuppression {
	api := func(s *ServiceStack) []constructs.IConstruct { return one(s.Api.RestApi) }
	return []NagSuppression{
		{Rules: []string{"AwsSolutions-COG4"}, Where: "every method",
			Reason: "Clients are machines with API keys, checked by the REQUEST authorizer (keys hashed in a table, " +
				"per-account permissions); there are no Cognito users. The public methods have no authorizer (below).",
			on: api},
		{Rules: []string{"AwsSolutions-APIG4"}, Where: "the public methods: the provider webhook, /openapi.yaml, the console's and the settings area's pages",
			Reason: "The webhook is authenticated by its Standard Webhooks signature, checked by its function; " +
				"the API description is public; the console and the settings area sign in with their own passkeys " +
				"and single-use links and check their session on every request.",
			on: func(s *ServiceStack) []constructs.IConstruct {
				var out []constructs.IConstruct
				for _, m := range s.Api.PublicMethods {
					out = append(out, m)
				}
				return out
			}},
		{Rules: []string{"AwsSolutions-APIG2"}, Where: "the API",
			Reason: "Every function validates its request against shared/api/openapi.yaml itself (strict JSON: " +
				"unknown fields, duplicate keys and wrong types refused) and answers the API's own error shape; " +
				"API Gateway models would be a second, weaker copy of the contract.",
			on: api},
		{Rules: []string{"AwsSolutions-APIG3", "NIST.800.53.R5-APIGWAssociatedWithWAF", "PCI.DSS.321-APIGWAssociatedWithWAF"},
			Where: "the API's stage",
			Reason: "A WAF web ACL is the account's (its rules, its costs, often shared by several APIs); associate " +
				"it with the stage at deploy. The stage throttles every method and the authorizer refuses unknown keys.",
			on: api},
		{Rules: []string{"NIST.800.53.R5-APIGWCacheEnabledAndEncrypted", "PCI.DSS.321-APIGWCacheEnabledAndEncrypted"},
			Where: "the API's stage",
			Reason: "No response cache: answers depend on the caller's account and change with every review; a " +
				"cache could serve one account's entity to another or a stale decision. The authorizer's answers " +
				"are cached (deploy.AuthorizerCacheTTL).",
			on: api},
		{Rules: []string{"NIST.800.53.R5-APIGWSSLEnabled", "PCI.DSS.321-APIGWSSLEnabled"}, Where: "the API's stage",
			Reason: "A client certificate authenticates API Gateway to an HTTP back end; every back end here is a " +
				"Lambda proxy integration, invoked through the Lambda API with IAM.",
			on: api},
		{Rules: []string{"AwsSolutions-IAM4"}, Where: "the API's CloudWatch role",
			AppliesTo: []string{`Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs`},
			Reason:    "AWS's own policy for the account's API Gateway logging role, which writes the access and execution logs.",
			on:        api},
	}
}

// messagingNag: queues and topics.
func messagingNag() []NagSuppression {
	return []NagSuppression{
		{Rules: []string{"AwsSolutions-SQS3"}, Where: "the stream functions' failure queues",
			Reason: "They are dead-letter queues themselves: the review and evidence streams' event source " +
				"mappings send a batch that failed every retry there; any message in one raises an alarm.",
			on: func(s *ServiceStack) []constructs.IConstruct {
				var out []constructs.IConstruct
				for _, f := range deploy.Functions() {
					for _, id := range OnFailureQueues(f) {
						out = append(out, s.Queues.Queues[id])
					}
				}
				return out
			}},
		{Rules: []string{"NIST.800.53.R5-SNSEncryptedKMS", "PCI.DSS.321-SNSEncryptedKMS"}, Where: "the alarm topic",
			Reason: "CloudWatch alarms cannot publish to a topic under the AWS managed key, and its messages are " +
				"alarm states (names, thresholds), which its e-mail subscribers receive in clear anyway. The approvals " +
				"topic, which carries task tokens, is encrypted.",
			on: func(s *ServiceStack) []constructs.IConstruct { return one(s.Observability.Topic) }},
	}
}
