package boot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/evs-kyb/evs/shared/auditexport"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/records"
)

// Records is the records bucket as the functions use it (records.S3 in
// AWS, records.Dir locally): audit-export locks into it and renews the
// locks, admin reads it back and sets legal holds.
type Records interface {
	auditexport.Locker
	SetLegalHold(ctx context.Context, key string, on bool) error
}

// RecordsHandler is audit-export's handler: one function fed by the audit
// and evidence tables' streams and by the daily schedule, told apart by
// the event's shape.
type RecordsHandler = func(context.Context, json.RawMessage) (any, error)

// RecordsBucket is the records bucket named in the function's environment
// (RECORDS_BUCKET), over S3; S3_ENDPOINT points it elsewhere.
func RecordsBucket(cfg aws.Config) (records.S3, error) {
	b := deploy.MustBucket(deploy.BucketRecords)
	name := os.Getenv(b.EnvVar)
	if name == "" {
		return records.S3{}, fmt.Errorf("boot: %s is not set", b.EnvVar)
	}
	return RecordsBucketNamed(cfg, name), nil
}

// RecordsBucketNamed is a records bucket by its name, over S3 (S3_ENDPOINT
// points it elsewhere): a copy a regulator's verifier reads.
func RecordsBucketNamed(cfg aws.Config, name string) records.S3 {
	return records.S3{Client: s3Client(cfg), Bucket: name}
}

// Exporter is the records exporter over d: audit-export runs it, admin's
// audit.export runs its daily part, make local's stream pollers feed it.
func Exporter(d Deps) *auditexport.Exporter {
	return &auditexport.Exporter{Source: d.Store, Records: d.Records, Blobs: d.Blobs, Clock: d.Clock, Passkeys: d.Passkeys}
}

// recordsHandler tells a stream batch (Records) from the schedule's event
// (detail-type) and runs the exporter's part for it.
func recordsHandler(x *auditexport.Exporter) RecordsHandler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var shape struct {
			Records    json.RawMessage `json:"Records"`
			DetailType string          `json:"detail-type"`
		}
		if err := json.Unmarshal(raw, &shape); err != nil {
			return nil, fmt.Errorf("audit-export: not an event: %w", err)
		}
		switch {
		case shape.Records != nil:
			var ev events.DynamoDBEvent
			if err := json.Unmarshal(raw, &ev); err != nil {
				return nil, fmt.Errorf("audit-export: stream event: %w", err)
			}
			return x.HandleStream(ctx, ev)
		case shape.DetailType != "":
			return x.RunDaily(ctx)
		}
		return nil, errors.New("audit-export: neither a stream batch nor a scheduled event")
	}
}

// s3Client is an S3 client on cfg; S3_ENDPOINT points it at an
// S3-compatible server, path-style.
func s3Client(cfg aws.Config) *s3.Client {
	endpoint := os.Getenv("S3_ENDPOINT")
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.UsePathStyle = true
		}
	})
}
