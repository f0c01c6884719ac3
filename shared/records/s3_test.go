package records_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/evs-kyb/evs/shared/devstack/motoserver"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
)

// TestS3 runs the contract, then what only S3 has (versions, the lock),
// against moto's S3 server: one server, a bucket per case, each made as
// infra makes the records bucket (Object Lock, one day's compliance-mode
// retention by default).
func TestS3(t *testing.T) {
	client := motoserver.Start(t)
	buckets := 0
	fresh := func(t *testing.T) records.S3 {
		buckets++
		return records.S3{Client: client, Bucket: motoserver.LockedBucket(t, client, fmt.Sprintf("evs-records-%d", buckets), 1)}
	}
	contract(t, func(t *testing.T) store { return fresh(t) })

	ctx := context.Background()
	t.Run("content type", func(t *testing.T) {
		s := fresh(t)
		types := []struct{ key, want string }{
			{"exports/1/day.txt", "text/plain; charset=utf-8"},
			{"exports/1/day.json", "application/json"},
			{"exports/1/day.json.sig", "application/octet-stream"},
			{"exports/1/day", "application/octet-stream"},
		}
		for _, tt := range types {
			if _, err := s.Put(ctx, tt.key, []byte("x")); err != nil {
				t.Fatal(err)
			}
			head, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(tt.key)})
			if err != nil {
				t.Fatal(err)
			}
			if got := aws.ToString(head.ContentType); got != tt.want {
				t.Errorf("%s: Content-Type %q, want %q", tt.key, got, tt.want)
			}
		}
	})

	t.Run("locked by the bucket's default", func(t *testing.T) {
		s := fresh(t)
		if _, err := s.Put(ctx, "exports/1/day.json", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "exports/1/day.json")
		if err != nil {
			t.Fatal(err)
		}
		ahead := time.Until(got.RetainUntil)
		if got.Mode != "COMPLIANCE" || ahead < 23*time.Hour || ahead > 25*time.Hour {
			t.Errorf("Mode %q, RetainUntil %v (in %v); want COMPLIANCE, a day ahead", got.Mode, got.RetainUntil, ahead)
		}
	})

	// What someone holding the bucket's write or delete permissions can do
	// to a record, done with the raw client: the record still reads as
	// written, and what was written over it is named.
	first, other := []byte(`{"n":1}`), []byte(`{"n":2}`)
	tampers := []struct {
		name string
		// tamper acts on the record's key, whose first version is id.
		tamper        func(t *testing.T, s records.S3, key, id string)
		pageSize      int32
		wantVersions  []string // SHA-256 of each version, oldest first
		wantRewritten []string
		wantListed    bool
		wantPut       error // of a Put of the first bytes again
	}{
		{
			name: "overwritten with other bytes",
			tamper: func(t *testing.T, s records.S3, key, _ string) {
				rawPut(t, s, key, other, types.ChecksumAlgorithmSha256)
			},
			wantVersions: []string{hexSum(first), hexSum(other)}, wantRewritten: []string{hexSum(other)},
			wantListed: true, wantPut: records.ErrDiffers,
		},
		{
			name: "overwritten without a SHA-256 kept",
			// S3 keeps a CRC32 only: the bytes are hashed instead.
			tamper: func(t *testing.T, s records.S3, key, _ string) {
				rawPut(t, s, key, other, types.ChecksumAlgorithmCrc32)
			},
			wantVersions: []string{hexSum(first), hexSum(other)}, wantRewritten: []string{hexSum(other)},
			wantListed: true, wantPut: records.ErrDiffers,
		},
		{
			name: "overwritten with the same bytes",
			tamper: func(t *testing.T, s records.S3, key, _ string) {
				rawPut(t, s, key, first, types.ChecksumAlgorithmSha256)
			},
			wantVersions: []string{hexSum(first), hexSum(first)},
			wantListed:   true,
		},
		{
			name: "overwritten again and again, versions read over pages",
			tamper: func(t *testing.T, s records.S3, key, _ string) {
				rawPut(t, s, key, other, types.ChecksumAlgorithmSha256)
				rawPut(t, s, key, first, types.ChecksumAlgorithmSha256)
				rawPut(t, s, key+"/after", other, types.ChecksumAlgorithmSha256) // another key under the prefix
				rawPut(t, s, key, []byte("third"), types.ChecksumAlgorithmSha256)
			},
			pageSize:      1,
			wantVersions:  []string{hexSum(first), hexSum(other), hexSum(first), hexSum([]byte("third"))},
			wantRewritten: []string{hexSum(other), hexSum([]byte("third"))},
			wantListed:    true, wantPut: records.ErrDiffers,
		},
		{
			name: "the locked version deleted",
			tamper: func(t *testing.T, s records.S3, key, id string) {
				_, err := s.Client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(key), VersionId: aws.String(id)})
				var api smithy.APIError
				if !errors.As(err, &api) || api.ErrorCode() != "AccessDenied" {
					t.Errorf("DeleteObject of the locked version = %v, want AccessDenied", err)
				}
			},
			wantVersions: []string{hexSum(first)},
			wantListed:   true,
		},
		{
			name: "hidden by a delete marker",
			tamper: func(t *testing.T, s records.S3, key, _ string) {
				if _, err := s.Client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(key)}); err != nil {
					t.Fatal(err)
				}
			},
			wantVersions: []string{hexSum(first)},
			// The Put that follows sees no object and writes the same
			// bytes on top: a version more, not a rewrite.
			wantListed: false,
		},
	}
	for _, tt := range tampers {
		t.Run(tt.name, func(t *testing.T) {
			s := fresh(t).WithPageSize(tt.pageSize)
			key := "exports/1/day.json"
			if _, err := s.Put(ctx, key, first); err != nil {
				t.Fatal(err)
			}
			before, err := s.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			tt.tamper(t, s, key, before.VersionID)

			got, err := s.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Body, first) || got.SHA256 != hexSum(first) || got.VersionID != before.VersionID || got.Mode != "COMPLIANCE" {
				t.Errorf("Get = %q (sha256 %s, version %s, mode %q); want the first version, %q (%s), locked", got.Body, got.SHA256, got.VersionID, got.Mode, first, before.VersionID)
			}
			if sums := sha256s(got.Versions); !slices.Equal(sums, tt.wantVersions) {
				t.Errorf("Versions = %q, want %q", sums, tt.wantVersions)
			}
			if sums := sha256s(got.Rewritten); !slices.Equal(sums, tt.wantRewritten) {
				t.Errorf("Rewritten = %q, want %q", sums, tt.wantRewritten)
			}
			keys, err := s.List(ctx, "exports/")
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(keys, key) != tt.wantListed {
				t.Errorf("List = %q, want the key listed: %v", keys, tt.wantListed)
			}
			if _, err := s.Put(ctx, key, first); !errors.Is(err, tt.wantPut) {
				t.Errorf("Put of the first bytes again = %v, want %v", err, tt.wantPut)
			}
			if again, err := s.Get(ctx, key); err != nil || again.VersionID != before.VersionID || len(again.Rewritten) != len(tt.wantRewritten) {
				t.Errorf("Get after the Put = version %s, %d rewritten, %v", again.VersionID, len(again.Rewritten), err)
			}
		})
	}

	t.Run("a key written without a SHA-256 kept", func(t *testing.T) {
		// Put compares by the bytes when S3 has no SHA-256 to answer.
		s := fresh(t)
		rawPut(t, s, "exports/1/day.json", first, types.ChecksumAlgorithmCrc32)
		puts := []struct {
			body        []byte
			wantExisted bool
			wantErr     error
		}{
			{body: first, wantExisted: true},
			{body: other, wantErr: records.ErrDiffers},
		}
		for _, p := range puts {
			existed, err := s.Put(ctx, "exports/1/day.json", p.body)
			if existed != p.wantExisted || !errors.Is(err, p.wantErr) {
				t.Errorf("Put(%q) = %v, %v; want %v, %v", p.body, existed, err, p.wantExisted, p.wantErr)
			}
		}
	})

	t.Run("list over pages", func(t *testing.T) {
		s := fresh(t).WithPageSize(2)
		var want []string
		for i := range 5 {
			key := fmt.Sprintf("exports/%d.json", i)
			want = append(want, key)
			if _, err := s.Put(ctx, key, []byte(key)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Put(ctx, "other/0.json", []byte("x")); err != nil {
			t.Fatal(err)
		}
		// Five keys at two a page: three pages, all read.
		if got, err := s.List(ctx, "exports/"); err != nil || !slices.Equal(got, want) {
			t.Errorf("List = %q, %v; want %q", got, err, want)
		}
	})

	t.Run("a renewal is locked from its own write", func(t *testing.T) {
		s := fresh(t)
		key := "exports/1/renewed.json"
		if _, err := s.Put(ctx, key, first); err != nil {
			t.Fatal(err)
		}
		was, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond)
		if _, err := s.Renew(ctx, key, records.Retention{}); err != nil {
			t.Fatal(err)
		}
		now, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		if now.ObjectLockMode != types.ObjectLockModeCompliance || !aws.ToTime(now.ObjectLockRetainUntilDate).After(aws.ToTime(was.ObjectLockRetainUntilDate)) ||
			now.Metadata["renewal-of"] != aws.ToString(was.VersionId) {
			t.Errorf("renewal: %s until %s, renewing %q; want COMPLIANCE past %s, renewing %s", now.ObjectLockMode, aws.ToTime(now.ObjectLockRetainUntilDate),
				now.Metadata["renewal-of"], aws.ToTime(was.ObjectLockRetainUntilDate), aws.ToString(was.VersionId))
		}
	})

	t.Run("renewal dates a record by its own bytes", func(t *testing.T) {
		// Other bytes written on top (to keep the record's renewal from
		// falling due), or a delete marker, neither date nor hide it.
		s := fresh(t)
		key := "exports/1/kept.json"
		if _, err := s.Put(ctx, key, first); err != nil {
			t.Fatal(err)
		}
		put, err := s.ListLocked(ctx, "exports/1/")
		if err != nil || len(put) != 1 {
			t.Fatalf("ListLocked = %+v, %v", put, err)
		}
		time.Sleep(1100 * time.Millisecond)
		rawPut(t, s, key, other, types.ChecksumAlgorithmSha256)
		if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(key)}); err != nil {
			t.Fatal(err)
		}
		got, err := s.ListLocked(ctx, "exports/1/")
		if err != nil || len(got) != 1 || !got[0].Written.Equal(put[0].Written) || got[0].Foreign != 1 {
			t.Fatalf("ListLocked after a rewrite and a delete = %+v, %v; want the record dated %s, one foreign version", got, err, put[0].Written)
		}
		if _, err := s.Renew(ctx, key, records.Retention{}); err != nil {
			t.Fatal(err)
		}
		got, err = s.ListLocked(ctx, "exports/1/")
		if err != nil || len(got) != 1 || !got[0].Written.After(put[0].Written) || got[0].Foreign != 1 {
			t.Errorf("ListLocked after the renewal = %+v, %v; want it dated anew", got, err)
		}
		if obj, err := s.Get(ctx, key); err != nil || string(obj.Body) != string(first) || len(obj.Rewritten) != 1 {
			t.Errorf("Get = %q, rewritten %v, %v; want the record, the rewrite named", obj.Body, obj.Rewritten, err)
		}
	})

	t.Run("dated and tagged, each version its own", func(t *testing.T) {
		// What the records bucket holds: a version locked in compliance
		// mode to the date its write named, tagged with the years the
		// lifecycle keeps it; a renewal's version locked to its own date,
		// the first keeping the one it had.
		s := fresh(t)
		key := "audit/1/2/00000000000000000001.txt"
		now := time.Now().UTC().Truncate(time.Second)
		first, renewed := now.AddDate(5, 0, 0), now.AddDate(10, 0, 0)
		if _, err := s.PutUntil(ctx, key, []byte("record"), records.Retention{Until: first, KeepYears: 5}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Renew(ctx, key, records.Retention{Until: renewed, KeepYears: 10}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, key)
		if err != nil || len(got.Versions) != 2 {
			t.Fatalf("Get = %+v, %v; want two versions", got.Versions, err)
		}
		for i, want := range []struct {
			until time.Time
			tag   string
		}{{first, "5"}, {renewed, "10"}} {
			v := got.Versions[i]
			head, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(key), VersionId: aws.String(v.ID)})
			if err != nil {
				t.Fatal(err)
			}
			tags, err := client.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(s.Bucket), Key: aws.String(key), VersionId: aws.String(v.ID)})
			if err != nil {
				t.Fatal(err)
			}
			tag := ""
			for _, tg := range tags.TagSet {
				if aws.ToString(tg.Key) == domain.RecordsKeepTag {
					tag = aws.ToString(tg.Value)
				}
			}
			if head.ObjectLockMode != types.ObjectLockModeCompliance || !aws.ToTime(head.ObjectLockRetainUntilDate).Equal(want.until) || !v.RetainUntil.Equal(want.until) || tag != want.tag {
				t.Errorf("version %d: %s until %s (read %s), tagged %q; want COMPLIANCE until %s, tagged %q", i, head.ObjectLockMode,
					aws.ToTime(head.ObjectLockRetainUntilDate), v.RetainUntil, tag, want.until, want.tag)
			}
		}
	})

	t.Run("the legal hold is every version's", func(t *testing.T) {
		// The record, its renewals and any bytes written over it: while a
		// hold stands nothing under the key may go.
		s := fresh(t)
		key := "exports/1/day.json"
		if _, err := s.Put(ctx, key, first); err != nil {
			t.Fatal(err)
		}
		rawPut(t, s, key, other, types.ChecksumAlgorithmSha256)
		for _, on := range []bool{true, false} {
			if err := s.SetLegalHold(ctx, key, on); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			current, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(key)})
			if err != nil {
				t.Fatal(err)
			}
			if got.LegalHold != on || (current.ObjectLockLegalHoldStatus == types.ObjectLockLegalHoldStatusOn) != on {
				t.Errorf("SetLegalHold(%t): first version held %v, current %q; want both so", on, got.LegalHold, current.ObjectLockLegalHoldStatus)
			}
		}
	})

	t.Run("no bucket", func(t *testing.T) {
		s := records.S3{Client: client, Bucket: "no-such-bucket"}
		_, err := s.Put(ctx, "exports/1/x", []byte("x"))
		if err == nil || !strings.Contains(err.Error(), "s3://no-such-bucket/exports/1/x") || errors.Is(err, records.ErrNotFound) {
			t.Errorf("Put to a missing bucket = %v, want an error naming it", err)
		}
		if _, err := s.Get(ctx, "exports/1/x"); err == nil || errors.Is(err, records.ErrNotFound) {
			t.Errorf("Get from a missing bucket = %v, want an error other than ErrNotFound", err)
		}
	})
}

// rawPut writes as someone holding s3:PutObject would, past the store.
func rawPut(t *testing.T, s records.S3, key string, body []byte, algorithm types.ChecksumAlgorithm) {
	t.Helper()
	_, err := s.Client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket:            aws.String(s.Bucket),
		Key:               aws.String(key),
		Body:              bytes.NewReader(body),
		ChecksumAlgorithm: algorithm,
	})
	if err != nil {
		t.Fatalf("raw put %s: %v", key, err)
	}
}

func sha256s(versions []records.Version) []string {
	var sums []string
	for _, v := range versions {
		sums = append(sums, v.SHA256)
	}
	return sums
}
