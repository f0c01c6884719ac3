package boot

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evs-kyb/evs/shared/blob"
	"github.com/evs-kyb/evs/shared/deploy"
)

// Blobs is the evidence blob store as the functions use it: the writers
// put (checks.BlobPutter), the admin function and the console get (checks.BlobGetter),
// audit-export reads a body to lock it and deletes one whose item expired
// (auditexport.BlobStore).
type Blobs interface {
	Put(ctx context.Context, key string, body []byte) error
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}

// EvidenceBucket is the evidence bucket named in the function's
// environment (EVIDENCE_BUCKET), over S3; S3_ENDPOINT points it elsewhere
// (an S3-compatible server, path-style).
func EvidenceBucket(cfg aws.Config) (blob.S3, error) {
	b := deploy.MustBucket(deploy.BucketEvidence)
	name := os.Getenv(b.EnvVar)
	if name == "" {
		return blob.S3{}, fmt.Errorf("boot: %s is not set", b.EnvVar)
	}
	return blob.S3{Client: s3Client(cfg), Bucket: name}, nil
}
