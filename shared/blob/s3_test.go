package blob_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/evs-kyb/evs/shared/blob"
	"github.com/evs-kyb/evs/shared/devstack/motoserver"
)

// TestS3 runs the contract against moto's S3 server (a real S3 API over
// HTTP: signing, checksums, error codes), started for the test and stopped
// after.
func TestS3(t *testing.T) {
	client := motoserver.Start(t)
	bucket := motoserver.Bucket(t, client, &s3.CreateBucketInput{Bucket: aws.String("evs-evidence-test")})
	s := blob.S3{Client: client, Bucket: bucket}
	contract(t, s)

	ctx := context.Background()
	t.Run("the SHA-256 is sent for S3 to check", func(t *testing.T) {
		// S3 refuses a body that does not hash to the header (moto does
		// not check it): the header is the body's SHA-256, kept with the
		// object.
		body := []byte("the bytes")
		if err := s.Put(ctx, "evidence/1/7/sum", body); err != nil {
			t.Fatal(err)
		}
		head, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("evidence/1/7/sum"), ChecksumMode: types.ChecksumModeEnabled})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(body)
		if want := base64.StdEncoding.EncodeToString(sum[:]); aws.ToString(head.ChecksumSHA256) != want {
			t.Errorf("checksum %q, want %q", aws.ToString(head.ChecksumSHA256), want)
		}
	})
	t.Run("no bucket", func(t *testing.T) {
		err := blob.S3{Client: client, Bucket: "no-such-bucket"}.Put(ctx, "evidence/1/2/x", []byte("x"))
		if err == nil || !strings.Contains(err.Error(), "s3://no-such-bucket/evidence/1/2/x") {
			t.Errorf("Put to a missing bucket = %v, want an error naming it", err)
		}
	})
}
