package blob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// S3 keeps objects in a bucket. The bucket encrypts them (SSE-KMS with its
// default key, bucket key on), versions them and expires them (infra): Put
// sends no encryption header, so the bucket's own configuration decides.
type S3 struct {
	Client *s3.Client
	Bucket string
}

// Put writes body under key in one PutObject (no multipart upload: bodies
// are a few MiB at most, and a multipart upload under SSE-KMS would need
// kms:Decrypt too). It sends the body's SHA-256, which S3 checks before it
// stores anything: bytes damaged on the way are refused, not kept.
func (b S3) Put(ctx context.Context, key string, body []byte) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	_, err := b.Client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:            aws.String(b.Bucket),
		Key:               aws.String(key),
		Body:              bytes.NewReader(body),
		ContentLength:     aws.Int64(int64(len(body))),
		ContentType:       aws.String("application/octet-stream"),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256,
		ChecksumSHA256:    aws.String(base64.StdEncoding.EncodeToString(sum[:])),
	})
	if err != nil {
		return fmt.Errorf("blob: put s3://%s/%s: %w", b.Bucket, key, err)
	}
	return nil
}

// Delete removes the object under key: in a versioned bucket, a delete
// marker over its versions, which the bucket's lifecycle removes later.
// A key that holds nothing is no error.
func (b S3) Delete(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if _, err := b.Client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.Bucket), Key: aws.String(key)}); err != nil {
		return fmt.Errorf("blob: delete s3://%s/%s: %w", b.Bucket, key, err)
	}
	return nil
}

// Get reads the object's current version (at most MaxGet bytes); a key
// that holds nothing is ErrNotFound. It does not ask S3 to check a
// checksum: the caller verifies the bytes against the hash it recorded.
func (b S3) Get(ctx context.Context, key string) ([]byte, error) {
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	out, err := b.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.Bucket), Key: aws.String(key)})
	if err != nil {
		var nsk *types.NoSuchKey
		var api smithy.APIError
		if errors.As(err, &nsk) || errors.As(err, &api) && api.ErrorCode() == "NotFound" {
			return nil, fmt.Errorf("blob: get s3://%s/%s: %w", b.Bucket, key, ErrNotFound)
		}
		return nil, fmt.Errorf("blob: get s3://%s/%s: %w", b.Bucket, key, err)
	}
	defer out.Body.Close()
	return ReadObject(out.Body, key)
}
