package auditexport_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/evs-kyb/evs/shared/devstack/motoserver"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
)

// On a bucket made as infra makes the records bucket (Object Lock, a
// default retention in compliance mode), on moto's S3 server: each object
// the stream locks — and no daily run after it, a renewal stopped for
// good — holds in its own version the date the law asks, measured with
// HeadObject: compliance mode, exactly the date computed, and the tag the
// lifecycle expires it by. The one-off run moves a copy the bucket's
// default locked onto its date as a new version, the first keeping its
// own.
func TestDatesOnACompliancemodeBucket(t *testing.T) {
	ctx := context.Background()
	client := motoserver.Start(t)
	store := records.S3{Client: client, Bucket: motoserver.LockedBucket(t, client, "evs-records-dates", domain.RecordsDefaultLockDays)}
	w, now := newWorldNow(t)
	w.x.Records = store
	sa, de := w.entity(t, "7000009910", "SA"), w.entity(t, "7000009920", "DE")
	w.chain(t, 0, 1)
	body := []byte(`{"results":[],"n":"moto"}`)
	stream := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{w.auditRecord(t, sa, 1), w.auditRecord(t, de, 1), w.auditRecord(t, 0, 1),
		evidenceRecord("4", domain.Evidence{AccountID: w.acct, CheckID: w.checkOf(t, de), Provider: "opensanctions", SHA256: sha(body), Body: body})}}
	if res, err := w.x.HandleStream(ctx, stream); err != nil || len(res.BatchItemFailures) != 0 {
		t.Fatalf("stream: %+v, %v", res, err)
	}
	for _, tc := range []struct {
		name, key string
		years     int
	}{
		{"a Saudi record", recordslayout.RecordKey(w.acct, sa, 1), 10},
		{"a German record", recordslayout.RecordKey(w.acct, de, 1), 5},
		{"German evidence", recordslayout.EvidenceKey(w.acct, w.checkOf(t, de), sha(body)), 5},
		{"the account's own record", recordslayout.RecordKey(w.acct, 0, 1), 10},
	} {
		mode, until, tag := measure(t, store, tc.key, "")
		t.Logf("%s: written %s, %s until %s, tagged %s=%s", tc.key, now.Format(time.RFC3339), mode, until.Format(time.RFC3339), domain.RecordsKeepTag, tag)
		if want := now.AddDate(tc.years, 0, 0); mode != types.ObjectLockModeCompliance || !until.Equal(want) || tag != strconv.Itoa(tc.years) {
			t.Errorf("%s: %s until %s, tagged %q; want COMPLIANCE until %s, tagged %q", tc.name, mode, until, tag, want, strconv.Itoa(tc.years))
		}
	}

	legacy := recordslayout.RecordKey(w.acct, 0, 2)
	if _, err := store.Put(ctx, legacy, []byte("locked by the bucket's default")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.x.ExtendLocks(ctx, w.acct); err != nil {
		t.Fatal(err)
	}
	obj, err := store.Get(ctx, legacy)
	if err != nil || len(obj.Versions) != 2 {
		t.Fatalf("Get(%s) = %+v, %v; want the default's version and the extension's", legacy, obj.Versions, err)
	}
	_, first, _ := measure(t, store, legacy, obj.Versions[0].ID)
	mode, newest, tag := measure(t, store, legacy, obj.Versions[1].ID)
	t.Logf("%s: first version until %s (the default), extended %s until %s, tagged %s", legacy, first.Format(time.RFC3339), mode, newest.Format(time.RFC3339), tag)
	if ahead := first.Sub(now); ahead < 89*24*time.Hour || ahead > 91*24*time.Hour {
		t.Errorf("the first version until %s: want the default's 90 days still", first)
	}
	if !newest.Equal(now.AddDate(10, 0, 0)) || mode != types.ObjectLockModeCompliance || tag != "10" {
		t.Errorf("extended: %s until %s, tagged %q; want COMPLIANCE until %s, tagged 10", mode, newest, tag, now.AddDate(10, 0, 0))
	}
}

// measure reads a version's lock (versionID "": the current) and its
// lifecycle tag, as S3 answers them.
func measure(t *testing.T, store records.S3, key, versionID string) (types.ObjectLockMode, time.Time, string) {
	t.Helper()
	ctx := context.Background()
	var version *string
	if versionID != "" {
		version = aws.String(versionID)
	}
	head, err := store.Client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(store.Bucket), Key: aws.String(key), VersionId: version})
	if err != nil {
		t.Fatalf("head %s: %v", key, err)
	}
	tags, err := store.Client.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(store.Bucket), Key: aws.String(key), VersionId: version})
	if err != nil {
		t.Fatalf("tags of %s: %v", key, err)
	}
	tag := ""
	for _, tg := range tags.TagSet {
		if aws.ToString(tg.Key) == domain.RecordsKeepTag {
			tag = aws.ToString(tg.Value)
		}
	}
	return head.ObjectLockMode, aws.ToTime(head.ObjectLockRetainUntilDate), tag
}
