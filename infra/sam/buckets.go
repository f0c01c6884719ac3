package sam

import (
	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

const bucketsNote = `----------------------------------------------------------------- buckets
deploy.Buckets(), as infra/stack's NewBuckets makes them: every public
access block on, ACLs off, SSE-KMS with the customer-managed key of a table
(the evidence table's) and an S3 Bucket Key, versioned, objects expiring
after the evidence's retention and replaced versions later, a policy
refusing any request not made over TLS, kept when the stack goes.`

// buckets: per deploy.Buckets() entry the bucket and its TLS-only policy.
func buckets() ([]Pair, error) {
	var out []Pair
	for i, b := range deploy.Buckets() {
		p := resource(b.LogicalID, "AWS::S3::Bucket", Map(
			KV("BucketEncryption", Map(KV("ServerSideEncryptionConfiguration", List(Map(
				KV("BucketKeyEnabled", true),
				KV("ServerSideEncryptionByDefault", Map(
					KV("KMSMasterKeyID", GetAtt(stack.TableKeyLogicalID(b.KeyOfTable), "Arn")),
					KV("SSEAlgorithm", "aws:kms"),
				)),
			))))),
			KV("LifecycleConfiguration", Map(KV("Rules", List(Map(
				KV("ExpirationInDays", b.ExpireDays),
				KV("Id", "ExpireAfterRetention"),
				KV("NoncurrentVersionExpiration", Flow(KV("NoncurrentDays", b.NoncurrentDays))),
				KV("Status", "Enabled"),
			))))),
			KV("OwnershipControls", Map(KV("Rules", List(Flow(KV("ObjectOwnership", "BucketOwnerEnforced")))))),
			KV("PublicAccessBlockConfiguration", Map(
				KV("BlockPublicAcls", true), KV("BlockPublicPolicy", true),
				KV("IgnorePublicAcls", true), KV("RestrictPublicBuckets", true),
			)),
			KV("VersioningConfiguration", Flow(KV("Status", "Enabled"))),
		), KV("DeletionPolicy", "Retain"), KV("UpdateReplacePolicy", "Retain"))
		if i == 0 {
			p = p.Note(bucketsNote)
		}
		out = append(out, p, resource(stack.BucketPolicyLogicalID(b), "AWS::S3::BucketPolicy", Map(
			KV("Bucket", Ref(b.LogicalID)),
			KV("PolicyDocument", Map(
				KV("Version", "2012-10-17"),
				KV("Statement", List(Map(
					KV("Action", "s3:*"),
					KV("Condition", Flow(KV("Bool", Flow(KV("aws:SecureTransport", "false"))))),
					KV("Effect", "Deny"),
					KV("Principal", Flow(KV("AWS", "*"))),
					KV("Resource", List(GetAtt(b.LogicalID, "Arn"), Sub("${"+b.LogicalID+".Arn}/*"))),
				))),
			)),
		)))
	}
	return out, nil
}
