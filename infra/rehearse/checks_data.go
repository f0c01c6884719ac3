package rehearse

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// checkTables: every table of shared/schema, its keys and their types,
// its indexes (keys, projection), its stream, its TTL, and its deletion
// protection (the stage retained unless retain=false).
func checkTables(ctx context.Context, d *deployed, e expect, f *findings) int {
	for _, t := range schema.Tables() {
		r, ok := physical(d, f, deploy.TableLogicalID(t.ID), "AWS::DynamoDB::Table")
		if !ok {
			continue
		}
		out, err := d.in(r.Region).ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.PhysicalID)})
		if f.err(err, "table "+t.ID) {
			continue
		}
		desc := out.Table
		types := map[string]string{}
		for _, a := range desc.AttributeDefinitions {
			types[aws.ToString(a.AttributeName)] = string(a.AttributeType)
		}
		wantKeys := keys(t.PartitionKey, t.SortKey)
		f.equal("table "+t.ID+" key schema", keySchema(desc.KeySchema, types), wantKeys)
		indexes := map[string]string{}
		for _, ix := range desc.GlobalSecondaryIndexes {
			indexes[aws.ToString(ix.IndexName)] = keySchema(ix.KeySchema, types) + " " + string(ix.Projection.ProjectionType)
		}
		for _, ix := range desc.LocalSecondaryIndexes {
			indexes[aws.ToString(ix.IndexName)] = keySchema(ix.KeySchema, types) + " " + string(ix.Projection.ProjectionType) + " local"
		}
		for _, ix := range t.Indexes {
			pk := ix.PartitionKey
			if ix.Local {
				pk = t.PartitionKey
			}
			var sk *schema.Attr
			if ix.SortKey.Name != "" {
				sk = &ix.SortKey
			}
			want := keys(pk, sk) + " " + string(ix.Projection)
			if ix.Local {
				want += " local"
			}
			f.equal("table "+t.ID+" index "+ix.Name, indexes[ix.Name], want)
		}
		f.equal("table "+t.ID+" indexes", len(indexes), len(t.Indexes))
		stream := ""
		if s := desc.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
			stream = string(s.StreamViewType)
		}
		f.equal("table "+t.ID+" stream", stream, string(t.Stream))
		if t.TTLAttr != "" {
			ttl, err := d.in(r.Region).ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(r.PhysicalID)})
			if !f.err(err, "table "+t.ID+" TTL") {
				f.equal("table "+t.ID+" TTL attribute", aws.ToString(ttl.TimeToLiveDescription.AttributeName), t.TTLAttr)
			}
		}
		f.equal("table "+t.ID+" deletion protection", aws.ToBool(desc.DeletionProtectionEnabled), e.value(stack.ContextRetain, "true") != "false")
	}
	return len(schema.Tables())
}

func keys(pk schema.Attr, sk *schema.Attr) string {
	s := pk.Name + ":" + string(pk.Type) + " HASH"
	if sk != nil {
		s += ", " + sk.Name + ":" + string(sk.Type) + " RANGE"
	}
	return s
}

func keySchema(ks []ddbtypes.KeySchemaElement, types map[string]string) string {
	var hash, rng string
	for _, k := range ks {
		s := aws.ToString(k.AttributeName) + ":" + types[aws.ToString(k.AttributeName)] + " " + string(k.KeyType)
		if k.KeyType == ddbtypes.KeyTypeHash {
			hash = s
		} else {
			rng = ", " + s
		}
	}
	return hash + rng
}

// checkQueues: every queue of shared/deploy, its visibility timeout and
// retention, and its redrive policy to its dead-letter queue.
func checkQueues(ctx context.Context, d *deployed, _ expect, f *findings) int {
	arns := map[string]string{}
	attrs := map[string]map[string]string{}
	for _, q := range deploy.Queues() {
		r, ok := physical(d, f, q.LogicalID, "AWS::SQS::Queue")
		if !ok {
			continue
		}
		out, err := d.in(r.Region).sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(r.PhysicalID),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}})
		if f.err(err, "queue "+q.ID) {
			continue
		}
		attrs[q.ID], arns[q.ID] = out.Attributes, out.Attributes["QueueArn"]
	}
	for _, q := range deploy.Queues() {
		a, ok := attrs[q.ID]
		if !ok {
			continue
		}
		f.equal("queue "+q.ID+" visibility timeout", a["VisibilityTimeout"], q.VisibilityTimeoutSeconds)
		f.equal("queue "+q.ID+" retention", a["MessageRetentionPeriod"], q.RetentionDays*86400)
		var redrive struct {
			DeadLetterTargetArn string `json:"deadLetterTargetArn"`
			MaxReceiveCount     any    `json:"maxReceiveCount"`
		}
		if p := a["RedrivePolicy"]; p != "" {
			if f.err(json.Unmarshal([]byte(p), &redrive), "queue "+q.ID+" redrive policy") {
				continue
			}
		}
		want := ""
		if q.DeadLetter != "" {
			want = fmt.Sprintf("%s after %d", arns[q.DeadLetter], q.MaxReceiveCount)
		}
		got := ""
		if redrive.DeadLetterTargetArn != "" {
			got = fmt.Sprintf("%s after %v", redrive.DeadLetterTargetArn, redrive.MaxReceiveCount)
		}
		f.equal("queue "+q.ID+" redrive", got, want)
	}
	return len(deploy.Queues())
}

// checkBuckets: every bucket of shared/deploy, versioned, encrypted with its
// key (SSE-KMS), with a policy, and with Object Lock in
// deploy.ObjectLockMode for its days where the catalogue says so.
func checkBuckets(ctx context.Context, d *deployed, _ expect, f *findings) int {
	for _, b := range deploy.Buckets() {
		r, ok := physical(d, f, b.LogicalID, "AWS::S3::Bucket")
		if !ok {
			continue
		}
		c, name := d.in(r.Region).s3, aws.String(r.PhysicalID)
		if v, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: name}); !f.err(err, "bucket "+b.ID+" versioning") {
			f.equal("bucket "+b.ID+" versioning", v.Status, "Enabled")
		}
		lock := "none"
		if l, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: name}); err == nil && l.ObjectLockConfiguration != nil {
			lc := l.ObjectLockConfiguration
			lock = string(lc.ObjectLockEnabled)
			if lc.Rule != nil && lc.Rule.DefaultRetention != nil {
				lock += fmt.Sprintf(" %s %d days", lc.Rule.DefaultRetention.Mode, aws.ToInt32(lc.Rule.DefaultRetention.Days))
			}
		}
		wantLock := "none"
		if b.ObjectLockDays > 0 {
			wantLock = fmt.Sprintf("Enabled %s %d days", deploy.ObjectLockMode, b.ObjectLockDays)
		}
		f.equal("bucket "+b.ID+" Object Lock", lock, wantLock)
		if enc, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: name}); !f.err(err, "bucket "+b.ID+" encryption") {
			got := ""
			for _, rule := range enc.ServerSideEncryptionConfiguration.Rules {
				if def := rule.ApplyServerSideEncryptionByDefault; def != nil {
					got = string(def.SSEAlgorithm)
					if key, ok := d.one(stack.BucketKeyLogicalID(b), "AWS::KMS::Key"); ok == nil && contains(aws.ToString(def.KMSMasterKeyID), key.PhysicalID) {
						got += " with its key"
					}
				}
			}
			f.equal("bucket "+b.ID+" encryption", got, "aws:kms with its key")
		}
		if p, err := c.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: name}); !f.err(err, "bucket "+b.ID+" policy") && aws.ToString(p.Policy) == "" {
			f.add("bucket %s: no policy", b.ID)
		}
	}
	return len(deploy.Buckets())
}

// checkKeys: the key of every table with CustomerKey and of every bucket,
// enabled, rotated; a bucket's own key refuses deploy.KeyGuardedActions to
// all but the break-glass role.
func checkKeys(ctx context.Context, d *deployed, _ expect, f *findings) int {
	guarded := map[string]bool{}
	ids := map[string]bool{}
	for _, t := range schema.Tables() {
		if t.CustomerKey {
			ids[stack.TableKeyLogicalID(t.ID)] = true
		}
	}
	for _, b := range deploy.Buckets() {
		ids[stack.BucketKeyLogicalID(b)] = true
		guarded[stack.BucketKeyLogicalID(b)] = b.OwnKey
	}
	for id := range ids {
		r, ok := physical(d, f, id, "AWS::KMS::Key")
		if !ok {
			continue
		}
		c := d.in(r.Region).kms
		desc, err := c.DescribeKey(ctx, &kms.DescribeKeyInput{KeyId: aws.String(r.PhysicalID)})
		if f.err(err, "key "+id) {
			continue
		}
		f.equal("key "+id+" enabled", desc.KeyMetadata.Enabled, true)
		f.equal("key "+id+" spec", desc.KeyMetadata.KeySpec, "SYMMETRIC_DEFAULT")
		if rot, err := c.GetKeyRotationStatus(ctx, &kms.GetKeyRotationStatusInput{KeyId: aws.String(r.PhysicalID)}); !f.err(err, "key "+id+" rotation") {
			f.equal("key "+id+" rotation", rot.KeyRotationEnabled, true)
		}
		if !guarded[id] {
			continue
		}
		pol, err := c.GetKeyPolicy(ctx, &kms.GetKeyPolicyInput{KeyId: aws.String(r.PhysicalID), PolicyName: aws.String("default")})
		if f.err(err, "key "+id+" policy") {
			continue
		}
		got, want := deniedActions(aws.ToString(pol.Policy)), deploy.KeyGuardedActions()
		if !sameSet(got, want) {
			f.add("key %s: denies %v to all but the break-glass role, want %v", id, got, want)
		}
	}
	return len(ids)
}

// deniedActions are the actions of a policy's Deny statements.
func deniedActions(policy string) []string {
	var doc struct {
		Statement []struct {
			Effect string `json:"Effect"`
			Action any    `json:"Action"`
		} `json:"Statement"`
	}
	if json.Unmarshal([]byte(policy), &doc) != nil {
		return nil
	}
	var out []string
	for _, s := range doc.Statement {
		if s.Effect != "Deny" {
			continue
		}
		switch a := s.Action.(type) {
		case string:
			out = append(out, a)
		case []any:
			for _, x := range a {
				out = append(out, fmt.Sprint(x))
			}
		}
	}
	return out
}

// checkSecrets: every secret of shared/deploy exists, holding the
// placeholder until an operator puts the value in.
func checkSecrets(ctx context.Context, d *deployed, _ expect, f *findings) int {
	for _, s := range deploy.Secrets() {
		r, ok := physical(d, f, deploy.SecretLogicalID(s.SecretID), "AWS::SecretsManager::Secret")
		if !ok {
			continue
		}
		v, err := d.in(r.Region).sm.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(r.PhysicalID)})
		if !f.err(err, "secret "+s.SecretID) {
			f.equal("secret "+s.SecretID+" value", strconv.Quote(aws.ToString(v.SecretString)), strconv.Quote(stack.SecretPlaceholder))
		}
	}
	return len(deploy.Secrets())
}
