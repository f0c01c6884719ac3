package stack_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// bucketKeyStatement reports whether a role's statement is one granting a
// bucket's key (by its Sid), and which bucket.
func bucketKeyStatement(st m) (deploy.Bucket, bool) {
	for _, b := range deploy.Buckets() {
		if sid, _ := st["Sid"].(string); strings.HasPrefix(sid, stack.KeyForObjectsSid(b)) {
			return b, true
		}
	}
	return deploy.Bucket{}, false
}

// bucketKeyCondition is what such a statement must be conditioned on: S3 in
// the stack's region, and the bucket's ARN as the encryption context (an
// S3 Bucket Key's).
func bucketKeyCondition(b deploy.Bucket) m {
	return m{
		"kms:ViaService":                   m{"Fn::Join": []any{"", []any{"s3.", refOf("AWS::Region"), ".amazonaws.com"}}},
		"kms:EncryptionContext:aws:s3:arn": arnOf(b.LogicalID),
	}
}

// Each bucket of the catalogue, in both stacks: private (every public
// access block on, ACLs off), SSE-KMS with its table's customer-managed key
// or its own and an S3 Bucket Key, versioned, retained (prod and dev
// alike), a policy refusing every request not made over TLS; with
// ExpireDays objects expiring then and replaced versions after
// NoncurrentDays, a rule per ExpireByTag, with ObjectLockDays Object Lock
// on, every new version locked that long in COMPLIANCE mode unless its
// writer names a date, and the policy's lock guards. A key of its own is
// rotated and retained.
func TestBuckets(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		countIs(t, s.Template, "AWS::S3::Bucket", len(deploy.Buckets())+1) // and the access logs'

		for _, b := range deploy.Buckets() {
			t.Run(b.ID, func(t *testing.T) {
				if tb, ok := schema.Lookup(b.KeyOfTable); !b.OwnKey && (!ok || !tb.CustomerKey) {
					t.Fatalf("bucket %s: table %q has no customer-managed key", b.ID, b.KeyOfTable)
				}
				props := m{
					"PublicAccessBlockConfiguration": exactly(m{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true}),
					"OwnershipControls":              exactly(m{"Rules": arrayOf(exactly(m{"ObjectOwnership": "BucketOwnerEnforced"}))}),
					"BucketEncryption": exactly(m{"ServerSideEncryptionConfiguration": arrayOf(exactly(m{
						"BucketKeyEnabled": true,
						"ServerSideEncryptionByDefault": exactly(m{"SSEAlgorithm": "aws:kms",
							"KMSMasterKeyID": arnOf(stack.BucketKeyLogicalID(b))}),
					}))}),
					"VersioningConfiguration": exactly(m{"Status": "Enabled"}),
					"LoggingConfiguration": exactly(m{"DestinationBucketName": refOf(deploy.AccessLogs().LogicalID),
						"LogFilePrefix": b.AccessLogPrefix()}),
					"Tags": assertions.Match_AnyValue(), // the stack's service and stage tags
				}
				var rules []any
				if b.ExpireDays > 0 || b.NoncurrentDays > 0 {
					rule := m{"Id": deploy.LifecycleRuleID, "Status": "Enabled",
						"NoncurrentVersionExpiration": exactly(m{"NoncurrentDays": b.NoncurrentDays})}
					if b.ExpireDays > 0 {
						rule["ExpirationInDays"] = b.ExpireDays
					}
					rules = append(rules, exactly(rule))
				}
				for _, e := range b.ExpireByTag {
					rules = append(rules, exactly(m{"Id": e.RuleID(), "Status": "Enabled", "ExpirationInDays": e.Days,
						"TagFilters": arrayOf(exactly(m{"Key": e.Key, "Value": e.Value}))}))
				}
				if len(rules) > 0 {
					props["LifecycleConfiguration"] = exactly(m{"Rules": arrayOf(rules...)})
				}
				if b.ObjectLockDays > 0 {
					props["ObjectLockEnabled"] = true
					props["ObjectLockConfiguration"] = exactly(m{"ObjectLockEnabled": "Enabled", "Rule": exactly(m{
						"DefaultRetention": exactly(m{"Mode": "COMPLIANCE", "Days": b.ObjectLockDays}),
					})})
				}
				if b.ID == deploy.BucketRecords && s.Props.RecordsReplicaRegion != "" {
					props["ReplicationConfiguration"] = assertions.Match_AnyValue() // TestRecordsReplication
				}
				hasResource(t, s.Template, b.LogicalID, "AWS::S3::Bucket", m{
					"Properties":          exactly(props),
					"DeletionPolicy":      "Retain",
					"UpdateReplacePolicy": "Retain",
				})
				if b.OwnKey {
					hasResource(t, s.Template, stack.BucketKeyLogicalID(b), "AWS::KMS::Key", m{
						"Properties":          like(m{"EnableKeyRotation": true, "Description": stack.BucketKeyDescription(b)}),
						"DeletionPolicy":      "Retain",
						"UpdateReplacePolicy": "Retain",
					})
				}
				statements := append([]any{tlsOnly(b.LogicalID)}, lockGuardStatements(b, b.LogicalID)...)
				hasResource(t, s.Template, stack.BucketPolicyLogicalID(b), "AWS::S3::BucketPolicy", m{
					"Properties": exactly(m{
						"Bucket":         refOf(b.LogicalID),
						"PolicyDocument": like(m{"Statement": arrayOf(statements...)}),
					}),
				})
				hasOutput(t, s.Template, stack.BucketOutput(b), m{"Value": refOf(b.LogicalID)})
			})
		}
	})
}

// lockGuardStatements are the policy statements of a locked bucket's
// stack.LockGuards (none for one without a lock), on the objects of the
// bucket of that logical id.
func lockGuardStatements(b deploy.Bucket, bucket string) []any {
	var out []any
	for _, g := range lockGuards(b) {
		cond := m{}
		for op, kv := range g.Condition {
			inner := m{}
			for k, v := range kv {
				inner[k] = v
			}
			cond[op] = exactly(inner)
		}
		out = append(out, exactly(m{"Sid": g.Sid, "Action": listOf(stack.LockGuardActions()...), "Effect": "Deny",
			"Condition": exactly(cond), "Principal": exactly(m{"AWS": "*"}),
			"Resource": m{"Fn::Join": []any{"", []any{arnOf(bucket), "/*"}}}}))
	}
	return out
}

// tlsOnly is a bucket policy's statement refusing every request not made
// over TLS.
func tlsOnly(bucket string) any {
	return exactly(m{
		"Action": "s3:*", "Effect": "Deny",
		"Condition": exactly(m{"Bool": exactly(m{"aws:SecureTransport": "false"})}),
		"Principal": exactly(m{"AWS": "*"}),
		"Resource":  arrayOf(arnOf(bucket), m{"Fn::Join": []any{"", []any{arnOf(bucket), "/*"}}}),
	})
}

// The access logs' bucket, in both stacks: private, SSE-S3 (what S3's log
// delivery writes to), versioned, its logs expiring, retained; its policy
// refuses every request not made over TLS and lets S3's logging service
// put objects under each bucket's prefix, for that bucket of this account
// only, and nothing else.
func TestAccessLogsBucket(t *testing.T) {
	l := deploy.AccessLogs()
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		hasResource(t, s.Template, l.LogicalID, "AWS::S3::Bucket", m{
			"Properties": exactly(m{
				"PublicAccessBlockConfiguration": exactly(m{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true}),
				"OwnershipControls":              exactly(m{"Rules": arrayOf(exactly(m{"ObjectOwnership": "BucketOwnerEnforced"}))}),
				"BucketEncryption": exactly(m{"ServerSideEncryptionConfiguration": arrayOf(exactly(m{
					"ServerSideEncryptionByDefault": exactly(m{"SSEAlgorithm": "AES256"})}))}),
				"VersioningConfiguration": exactly(m{"Status": "Enabled"}),
				"LifecycleConfiguration": exactly(m{"Rules": arrayOf(exactly(m{"Id": deploy.LifecycleRuleID, "Status": "Enabled",
					"ExpirationInDays": l.ExpireDays, "NoncurrentVersionExpiration": exactly(m{"NoncurrentDays": l.NoncurrentDays})}))}),
				"Tags": assertions.Match_AnyValue(),
			}),
			"DeletionPolicy":      "Retain",
			"UpdateReplacePolicy": "Retain",
		})
		statements := []any{tlsOnly(l.LogicalID)}
		for _, b := range deploy.Buckets() {
			statements = append(statements, exactly(m{
				"Action": "s3:PutObject", "Effect": "Allow",
				"Principal": exactly(m{"Service": "logging.s3.amazonaws.com"}),
				"Condition": exactly(m{"ArnLike": exactly(m{"aws:SourceArn": arnOf(b.LogicalID)}),
					"StringEquals": exactly(m{"aws:SourceAccount": refOf("AWS::AccountId")})}),
				"Resource": m{"Fn::Join": []any{"", []any{arnOf(l.LogicalID), "/" + b.AccessLogPrefix() + "*"}}},
			}))
		}
		hasResource(t, s.Template, l.LogicalID+"Policy", "AWS::S3::BucketPolicy", m{
			"Properties": exactly(m{
				"Bucket":         refOf(l.LogicalID),
				"PolicyDocument": like(m{"Statement": arrayOf(statements...)}),
			}),
		})
		hasOutput(t, s.Template, stack.AccessLogsOutput(), m{"Value": refOf(l.LogicalID)})
	})
}

// The KMS permissions of every role, pinned: a function granted a bucket's
// objects may use the bucket's key for exactly what S3 does with it as the
// caller — a PutObject kms:GenerateDataKey, a GetObject (of any version)
// kms:Decrypt — only through S3 for that bucket (rolePermissions checks
// the condition); no function holds any other KMS action, nor one on any
// other key. The evidence table's key needs none in IAM: its key policy
// lets this account's principals use it through DynamoDB in this region
// (the statement DynamoDB's documentation gives, as the AWS-managed key
// has), and its root statement lets IAM policies grant the rest.
func TestKeyPermissions(t *testing.T) {
	tmpl := dev(t).Template
	want := map[string][]string{
		"create-entity":    {"kms:GenerateDataKey arn:EvidenceTableKey"},
		"decision":         {"kms:GenerateDataKey arn:EvidenceTableKey"},
		"provider-webhook": {"kms:GenerateDataKey arn:EvidenceTableKey"},
		// The console shows a provider's answer kept as an object.
		"web":          {"kms:Decrypt arn:EvidenceTableKey"},
		"admin":        {"kms:Decrypt arn:EvidenceTableKey", "kms:GenerateDataKey arn:RecordsBucketKey", "kms:Decrypt arn:RecordsBucketKey"},
		"audit-export": {"kms:Decrypt arn:EvidenceTableKey", "kms:GenerateDataKey arn:RecordsBucketKey", "kms:Decrypt arn:RecordsBucketKey"},
	}
	for _, f := range deploy.Functions() {
		t.Run(f.Name, func(t *testing.T) {
			var got []string
			for _, p := range rolePermissions(t, tmpl, f.LogicalID+"Role") {
				if strings.HasPrefix(p, "kms:") {
					got = append(got, p)
				}
			}
			if !equal(got, want[f.Name]) {
				t.Errorf("KMS permissions: %s", diff(got, want[f.Name]))
			}
		})
	}
	for _, tb := range schema.Tables() {
		if !tb.CustomerKey {
			continue
		}
		hasProps(t, tmpl, stack.TableKeyLogicalID(tb.ID), "AWS::KMS::Key", m{"KeyPolicy": like(m{"Statement": arrayWith(
			like(m{"Principal": exactly(m{"AWS": m{"Fn::Join": []any{"", []any{"arn:", refOf("AWS::Partition"), ":iam::", refOf("AWS::AccountId"), ":root"}}}}), "Action": "kms:*"}),
			like(m{"Sid": stack.TableKeyUseSid, "Principal": exactly(m{"AWS": "*"}), "Action": listOf(sorted(stack.TableKeyUseActions())...), // CDK sorts them
				"Condition": exactly(m{"StringEquals": exactly(m{
					"kms:CallerAccount": refOf("AWS::AccountId"),
					"kms:ViaService":    m{"Fn::Join": []any{"", []any{"dynamodb.", refOf("AWS::Region"), ".amazonaws.com"}}},
				})})}),
		)})})
	}
}

// lockGuards are a bucket's lock guards: none unless it is locked.
func lockGuards(b deploy.Bucket) []stack.LockGuard {
	if b.ObjectLockDays == 0 {
		return nil
	}
	return stack.LockGuards(b)
}

// The records bucket's key keeps its administrators out: in each stack
// its policy denies deploy.KeyGuardedActions to every principal but the
// stage's break-glass role (the default's name on dev, the one given on
// prod), and KMS is told its creator may not change that policy.
func TestRecordsKeyBreakGlass(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *stacktest.Synthesized
		want string
	}{{"dev", dev(t), deploy.BreakGlassRole().Default}, {"prod", prod(t), stacktest.ProdBreakGlassRole}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stacktest.BreakGlassRoleOf(tc.s.JSON); got != tc.want {
				t.Errorf("the key's break-glass role: %q, want %q", got, tc.want)
			}
			b := deploy.MustBucket(deploy.BucketRecords)
			hasProps(t, tc.s.Template, stack.BucketKeyLogicalID(b), "AWS::KMS::Key", m{"BypassPolicyLockoutSafetyCheck": true,
				"KeyPolicy": like(m{"Statement": arrayWith(like(m{"Sid": stack.KeyGuardSid, "Effect": "Deny",
					"Action": listOf(sorted(deploy.KeyGuardedActions())...)}))})})
		})
	}
}

// The records bucket's rules, in both stacks (template.yaml's are held to
// the same by infra/sam's TestRecordsBucketRules): no role may delete an
// object or a version, bypass a retention, or change the bucket's lock or
// lifecycle, nor hold a pattern that matches one; only the admin
// function's role places legal holds; only the records' writers (admin,
// audit-export) name a version's date and tag, which the bucket's policy
// keeps to compliance mode and the longest rule; no role may schedule a
// key's deletion or disable one, and the bucket's key denies both, its
// policy's change and grants to all but the break-glass role; the bucket
// is locked (COMPLIANCE, domain.RecordsDefaultLockDays by default),
// versioned, private, TLS-only, encrypted with its own key, expiring a
// version by its tag, and it and every key are retained.
func TestRecordsBucketRules(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		for _, b := range stacktest.RecordsBreaches(s.JSON) {
			t.Error(b)
		}
	})
}
