package rehearse

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

// checkReplica, when the context names a replica region: the replica
// bucket there, versioned, under the records bucket's Object Lock, with
// its own key; and the records bucket's replication into it, as the role
// the stack made, re-encrypted with the key by its alias.
func checkReplica(ctx context.Context, d *deployed, e expect, f *findings) int {
	region := e.value(deploy.RecordsReplicaRegion().Parameter, "")
	if region == "" {
		return 0
	}
	records := deploy.MustBucket(deploy.BucketRecords)
	replica, ok := physical(d, f, stack.RecordsReplicaBucketID, "AWS::S3::Bucket")
	if !ok {
		return 0
	}
	f.equal("the replica's region", replica.Region, region)
	c, name := d.in(replica.Region).s3, aws.String(replica.PhysicalID)
	if v, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: name}); !f.err(err, "the replica's versioning") {
		f.equal("the replica's versioning", v.Status, "Enabled")
	}
	if l, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: name}); !f.err(err, "the replica's Object Lock") {
		got := ""
		if lc := l.ObjectLockConfiguration; lc != nil && lc.Rule != nil && lc.Rule.DefaultRetention != nil {
			got = fmt.Sprintf("%s %s %d days", lc.ObjectLockEnabled, lc.Rule.DefaultRetention.Mode, aws.ToInt32(lc.Rule.DefaultRetention.Days))
		}
		f.equal("the replica's Object Lock", got, fmt.Sprintf("Enabled %s %d days", deploy.ObjectLockMode, records.ObjectLockDays))
	}
	if key, ok := physical(d, f, stack.RecordsReplicaKeyID, "AWS::KMS::Key"); ok {
		if enc, err := c.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: name}); !f.err(err, "the replica's encryption") {
			got := ""
			for _, rule := range enc.ServerSideEncryptionConfiguration.Rules {
				if def := rule.ApplyServerSideEncryptionByDefault; def != nil && contains(aws.ToString(def.KMSMasterKeyID), key.PhysicalID) {
					got = string(def.SSEAlgorithm) + " with its key"
				}
			}
			f.equal("the replica's encryption", got, "aws:kms with its key")
		}
	}
	source, ok := physical(d, f, records.LogicalID, "AWS::S3::Bucket")
	role, roleOK := physical(d, f, stack.ReplicationRoleID, "AWS::IAM::Role")
	if !ok || !roleOK {
		return 1
	}
	out, err := d.in(source.Region).s3.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: aws.String(source.PhysicalID)})
	if f.err(err, "the records bucket's replication") || out.ReplicationConfiguration == nil {
		return 1
	}
	rc := out.ReplicationConfiguration
	f.equal("the replication's role", contains(aws.ToString(rc.Role), role.PhysicalID), true)
	if len(rc.Rules) != 1 {
		f.add("the records bucket has %d replication rules, want 1", len(rc.Rules))
		return 1
	}
	r := rc.Rules[0]
	got := fmt.Sprintf("%s %s to %s", aws.ToString(r.ID), r.Status, aws.ToString(r.Destination.Bucket))
	f.equal("the replication rule", got, fmt.Sprintf("%s Enabled to arn:aws:s3:::%s", stack.ReplicationRuleID, replica.PhysicalID))
	alias := ""
	if r.Destination.EncryptionConfiguration != nil {
		alias = aws.ToString(r.Destination.EncryptionConfiguration.ReplicaKmsKeyID)
	}
	stage := e.value(stack.ContextStage, stack.DefaultStage)
	f.equal("the replica's key, by its alias", strings.HasSuffix(alias, ":"+stack.RecordsReplicaKeyAlias(stage)), true)
	// The alias names the replica stack's key: the one link between the
	// two stacks that the replication relies on.
	if key, ok := physical(d, f, stack.RecordsReplicaKeyID, "AWS::KMS::Key"); ok {
		k, err := d.in(replica.Region).kms.DescribeKey(ctx, &kms.DescribeKeyInput{KeyId: aws.String(stack.RecordsReplicaKeyAlias(stage))})
		if !f.err(err, "the replica key's alias") {
			f.equal("the key the replica's alias names", aws.ToString(k.KeyMetadata.KeyId), key.PhysicalID)
		}
	}
	return 1
}
