package sam

import (
	"maps"
	"slices"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

const bucketsNote = `----------------------------------------------------------------- buckets
deploy.Buckets(), as infra/stack's NewBuckets makes them: every public
access block on, ACLs off, SSE-KMS with a customer-managed key (the
evidence table's, or the bucket's own) and an S3 Bucket Key, versioned, a
policy refusing any request not made over TLS, kept when the stack goes
(and so is a key of its own, which only the break-glass role may delete,
disable, re-police or grant). The evidence bucket's replaced versions
expire after a year; the records bucket is under Object Lock
(COMPLIANCE), each version dated and tagged by its writer, expired by its
tag once its lock ended, and its policy refuses another lock mode or a
date past the longest rule's.`

// buckets: per deploy.Buckets() entry its own key if it has one, the
// bucket and its policy.
func buckets() ([]Pair, error) {
	out := accessLogsBucket()
	for _, b := range deploy.Buckets() {
		if b.OwnKey {
			out = append(out, bucketKey(b))
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
		if rules := lifecycleRules(b); len(rules) > 0 {
			props = append(props, KV("LifecycleConfiguration", Map(KV("Rules", List(rules...)))))
		}
		props = append(props, KV("LoggingConfiguration", Map(
			KV("DestinationBucketName", Ref(deploy.AccessLogs().LogicalID)),
			KV("LogFilePrefix", b.AccessLogPrefix()),
		)))
		if b.ObjectLockDays > 0 {
			props = append(props,
				KV("ObjectLockConfiguration", Map(
					KV("ObjectLockEnabled", "Enabled"),
					KV("Rule", Map(KV("DefaultRetention", Flow(KV("Days", b.ObjectLockDays), KV("Mode", deploy.ObjectLockMode))))),
				)),
				KV("ObjectLockEnabled", true),
			)
		}
		if b.ID == deploy.BucketRecords {
			props = append(props, KV("ReplicationConfiguration", replicationConfiguration()))
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
					KV("Statement", List(bucketStatements(b)...)),
				)),
			)))
	}
	out = append(out, replication()...)
	if len(out) > 0 {
		out[0] = out[0].Note(bucketsNote)
	}
	return out, nil
}

// accessLogsBucket is deploy.AccessLogs' bucket and its policy, as
// infra/stack's newAccessLogsBucket makes them: private, SSE-S3, versioned,
// its logs expiring, retained; TLS only, and S3's logging service may put
// each bucket's logs under its prefix, for that bucket of this account
// only.
func accessLogsBucket() []Pair {
	l := deploy.AccessLogs()
	statements := []any{tlsOnly(l.LogicalID)}
	for _, b := range deploy.Buckets() {
		statements = append(statements, Map(
			KV("Action", "s3:PutObject"),
			KV("Condition", Map(
				KV("ArnLike", Map(KV("aws:SourceArn", GetAtt(b.LogicalID, "Arn")))),
				KV("StringEquals", Map(KV("aws:SourceAccount", Ref("AWS::AccountId")))),
			)),
			KV("Effect", "Allow"),
			KV("Principal", Flow(KV("Service", "logging.s3.amazonaws.com"))),
			KV("Resource", Sub("${"+l.LogicalID+".Arn}/"+b.AccessLogPrefix()+"*")),
		))
	}
	return []Pair{
		resource(l.LogicalID, "AWS::S3::Bucket", Map(
			KV("BucketEncryption", Map(KV("ServerSideEncryptionConfiguration", List(Map(
				KV("ServerSideEncryptionByDefault", Map(KV("SSEAlgorithm", "AES256"))),
			))))),
			KV("LifecycleConfiguration", Map(KV("Rules", List(Map(
				KV("ExpirationInDays", l.ExpireDays), KV("Id", deploy.LifecycleRuleID),
				KV("NoncurrentVersionExpiration", Flow(KV("NoncurrentDays", l.NoncurrentDays))),
				KV("Status", "Enabled"),
			))))),
			KV("OwnershipControls", Map(KV("Rules", List(Flow(KV("ObjectOwnership", "BucketOwnerEnforced")))))),
			KV("PublicAccessBlockConfiguration", Map(
				KV("BlockPublicAcls", true), KV("BlockPublicPolicy", true),
				KV("IgnorePublicAcls", true), KV("RestrictPublicBuckets", true),
			)),
			KV("VersioningConfiguration", Flow(KV("Status", "Enabled"))),
		), KV("DeletionPolicy", "Retain"), KV("UpdateReplacePolicy", "Retain")),
		resource(l.LogicalID+"Policy", "AWS::S3::BucketPolicy", Map(
			KV("Bucket", Ref(l.LogicalID)),
			KV("PolicyDocument", Map(KV("Version", "2012-10-17"), KV("Statement", List(statements...)))),
		)),
	}
}

// tlsOnly is the statement refusing every request to a bucket not made
// over TLS.
func tlsOnly(logicalID string) *yamlNode {
	return Map(
		KV("Action", "s3:*"),
		KV("Condition", Flow(KV("Bool", Flow(KV("aws:SecureTransport", "false"))))),
		KV("Effect", "Deny"),
		KV("Principal", Flow(KV("AWS", "*"))),
		KV("Resource", List(GetAtt(logicalID, "Arn"), Sub("${"+logicalID+".Arn}/*"))),
	)
}

// lifecycleRules are a bucket's lifecycle rules, as infra/stack's
// lifecycleRules makes them: ExpireDays and NoncurrentDays in one, then
// one per ExpireByTag.
func lifecycleRules(b deploy.Bucket) []any {
	var rules []any
	if b.ExpireDays > 0 || b.NoncurrentDays > 0 {
		var rule []Pair
		if b.ExpireDays > 0 {
			rule = append(rule, KV("ExpirationInDays", b.ExpireDays))
		}
		rule = append(rule, KV("Id", deploy.LifecycleRuleID),
			KV("NoncurrentVersionExpiration", Flow(KV("NoncurrentDays", b.NoncurrentDays))),
			KV("Status", "Enabled"))
		rules = append(rules, Map(rule...))
	}
	for _, e := range b.ExpireByTag {
		rules = append(rules, Map(KV("ExpirationInDays", e.Days), KV("Id", e.RuleID()), KV("Status", "Enabled"),
			KV("TagFilters", List(Flow(KV("Key", e.Key), KV("Value", Quoted(e.Value)))))))
	}
	return rules
}

// bucketStatements are a bucket's policy: every request not made over TLS
// refused, and for a locked bucket its stack.LockGuards.
func bucketStatements(b deploy.Bucket) []any {
	out := []any{tlsOnly(b.LogicalID)}
	if b.ObjectLockDays == 0 {
		return out
	}
	for _, g := range stack.LockGuards(b) {
		var cond []Pair
		for _, op := range slices.Sorted(maps.Keys(g.Condition)) {
			var kv []Pair
			for _, k := range slices.Sorted(maps.Keys(g.Condition[op])) {
				kv = append(kv, KV(k, Quoted(g.Condition[op][k])))
			}
			cond = append(cond, KV(op, Flow(kv...)))
		}
		out = append(out, Map(
			KV("Sid", g.Sid),
			KV("Action", Strings(stack.LockGuardActions())),
			KV("Condition", Map(cond...)),
			KV("Effect", "Deny"),
			KV("Principal", Flow(KV("AWS", "*"))),
			KV("Resource", Sub("${"+b.LogicalID+".Arn}/*")),
		))
	}
	return out
}

// bucketKey is a bucket's own key, as infra/stack's newBucketKey makes
// it: deploy.KeyGuardedActions denied to every principal but the role the
// template's parameter names, and KMS told that its creator may not
// change its policy later, on purpose.
func bucketKey(b deploy.Bucket) Pair {
	p := deploy.BreakGlassRole().Parameter
	guard := Map(KV("Sid", stack.KeyGuardSid), KV("Effect", "Deny"),
		KV("Principal", Flow(KV("AWS", "*"))),
		KV("Action", Strings(deploy.KeyGuardedActions())), KV("Resource", "*"),
		KV("Condition", Map(KV("ArnNotEquals", Map(
			KV("aws:PrincipalArn", Sub("arn:${AWS::Partition}:iam::${AWS::AccountId}:role/${"+p+"}")))))))
	return key(stack.BucketKeyLogicalID(b), stack.BucketKeyDescription(b), true, guard)
}
