package verify_test

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/evs-kyb/evs/shared/devstack/motoserver"
	"github.com/evs-kyb/evs/shared/records"
)

// replicaRegion is where the test's replica is, as a stage's
// RecordsReplicaRegion names one.
const replicaRegion = "eu-central-1"

// replica is a locked bucket in replicaRegion that catchUp fills as S3
// replication does (moto does not replicate): every new version of the
// source, in the order written, with its bytes, lock mode, date and tags.
type replica struct {
	records.S3
	source *s3.Client
	done   map[string]bool
}

func newReplica(t *testing.T, source *s3.Client) *replica {
	t.Helper()
	o := source.Options()
	o.Region = replicaRegion
	client := s3.New(o)
	return &replica{S3: records.S3{Client: client, Bucket: motoserver.LockedBucket(t, client, "evs-records-verify-replica", 1)},
		source: source, done: map[string]bool{}}
}

func (r *replica) catchUp(t *testing.T, bucket string) {
	t.Helper()
	ctx := context.Background()
	out, err := r.source.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	// Listed newest first within each key: replicated in the order written.
	versions := slices.Clone(out.Versions)
	slices.Reverse(versions)
	for _, v := range versions {
		if r.done[aws.ToString(v.VersionId)] {
			continue
		}
		r.done[aws.ToString(v.VersionId)] = true
		in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: v.Key, VersionId: v.VersionId}
		obj, err := r.source.GetObject(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		tags, err := r.source.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: v.Key, VersionId: v.VersionId})
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(obj.Body)
		obj.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		put := &s3.PutObjectInput{Bucket: aws.String(r.Bucket), Key: v.Key, Body: bytes.NewReader(body),
			ObjectLockMode: types.ObjectLockMode(obj.ObjectLockMode), ObjectLockRetainUntilDate: obj.ObjectLockRetainUntilDate,
			ChecksumAlgorithm: types.ChecksumAlgorithmSha256}
		if put.ObjectLockRetainUntilDate == nil || put.ObjectLockMode != types.ObjectLockModeCompliance {
			t.Fatalf("%s@%s is not locked in COMPLIANCE mode (%q until %v): nothing to replicate it with", aws.ToString(v.Key), aws.ToString(v.VersionId),
				obj.ObjectLockMode, obj.ObjectLockRetainUntilDate)
		}
		if len(tags.TagSet) > 0 {
			var q []string
			for _, tg := range tags.TagSet {
				q = append(q, url.QueryEscape(aws.ToString(tg.Key))+"="+url.QueryEscape(aws.ToString(tg.Value)))
			}
			put.Tagging = aws.String(strings.Join(q, "&"))
		}
		if _, err := r.Client.PutObject(ctx, put); err != nil {
			t.Fatalf("replicate %s@%s: %v", aws.ToString(v.Key), aws.ToString(v.VersionId), err)
		}
	}
}
