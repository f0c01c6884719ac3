package sam

import (
	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

const bucketsNote = `----------------------------------------------------------------- buckets
deploy.Buckets(), as infra/stack's NewBuckets makes them: every public
access block on, ACLs off, SSE-KMS with a customer-managed key (the
evidence table's, or the bucket's own) and an S3 Bucket Key, versioned, a
policy refusing any request not made over TLS, kept when the stack goes
(and so is a key of its own). The evidence bucket's objects expire after
the evidence's retention and replaced versions later; the records bucket
is under Object Lock (COMPLIANCE) and expires nothing yet.`

// buckets: per deploy.Buckets() entry its own key if it has one, the
// bucket and its TLS-only policy.
func buckets() ([]Pair, error) {
	var out []Pair
	for _, b := range deploy.Buckets() {
		if b.OwnKey {
			out = append(out, key(stack.BucketKeyLogicalID(b), stack.BucketKeyDescription(b)))
		}
		props := []Pair{
			KV("BucketEncryption", Map(KV("ServerSideEncryptionConfiguration", List(Map(
				KV("BucketKeyEnabled", true),
				KV("ServerSideEncryptionByDefault", Map(
					KV("KMSMasterKeyID", GetAtt(stack.BucketKeyLogicalID(b), "Arn")),
					KV("SSEAlgorithm", "aws:kms"),
				)),
			))))),
		}
		if b.ExpireDays > 0 || b.NoncurrentDays > 0 {
			var rule []Pair
			if b.ExpireDays > 0 {
				rule = append(rule, KV("ExpirationInDays", b.ExpireDays))
			}
			rule = append(rule, KV("Id", "ExpireAfterRetention"),
				KV("NoncurrentVersionExpiration", Flow(KV("NoncurrentDays", b.NoncurrentDays))),
				KV("Status", "Enabled"))
			props = append(props, KV("LifecycleConfiguration", Map(KV("Rules", List(Map(rule...))))))
		}
		if b.ObjectLockDays > 0 {
			props = append(props,
				KV("ObjectLockConfiguration", Map(
					KV("ObjectLockEnabled", "Enabled"),
					KV("Rule", Map(KV("DefaultRetention", Flow(KV("Days", b.ObjectLockDays), KV("Mode", deploy.ObjectLockMode))))),
				)),
				KV("ObjectLockEnabled", true),
			)
		}
		props = append(props,
			KV("OwnershipControls", Map(KV("Rules", List(Flow(KV("ObjectOwnership", "BucketOwnerEnforced")))))),
			KV("PublicAccessBlockConfiguration", Map(
				KV("BlockPublicAcls", true), KV("BlockPublicPolicy", true),
				KV("IgnorePublicAcls", true), KV("RestrictPublicBuckets", true),
			)),
			KV("VersioningConfiguration", Flow(KV("Status", "Enabled"))),
		)
		out = append(out, resource(b.LogicalID, "AWS::S3::Bucket", Map(props...),
			KV("DeletionPolicy", "Retain"), KV("UpdateReplacePolicy", "Retain")),
			resource(stack.BucketPolicyLogicalID(b), "AWS::S3::BucketPolicy", Map(
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
	if len(out) > 0 {
		out[0] = out[0].Note(bucketsNote)
	}
	return out, nil
}
