package verify_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/devstack/motoserver"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/verify"
)

// The regulator's verifier reads a bucket as it reads a directory (what
// records verify --bucket does): on moto's compliance-mode bucket, an
// account's declared chain and an entity's trail are intact; other bytes
// written under a locked key are named, the first version still read.
func TestBucketVerifiesAnS3Copy(t *testing.T) {
	ctx := context.Background()
	client := motoserver.Start(t)
	rec := records.S3{Client: client, Bucket: motoserver.LockedBucket(t, client, "evs-records-verify", 1)}
	put := func(key string, body []byte) {
		t.Helper()
		if _, err := rec.Put(ctx, key, body); err != nil {
			t.Fatal(err)
		}
	}
	own := auditchain.Link{AccountID: acct, ActionID: "settings-0", Action: string(domain.ActionAccountCreate), Actor: "admin@example.com",
		Before: "{}", After: `{"name":"A","declared_decisions":true}`, At: domain.FormatTime(t0)}
	auditchain.Next(auditchain.Head{}, &own)
	put(recordslayout.RecordKey(acct, 0, own.Seq), auditchain.Canonical(own))
	var head auditchain.Head
	var second auditchain.Link
	for i := 1; i <= 3; i++ {
		l := auditchain.Link{AccountID: acct, EntityID: 7, ActionID: fmt.Sprintf("e7-%d", i), Action: string(domain.ActionStart),
			OperatorID: 3, OperatorName: "op", Reason: "r", Before: "{}", After: "{}", At: domain.FormatTime(t0.Add(time.Duration(i) * time.Minute))}
		head = auditchain.Next(head, &l)
		put(recordslayout.RecordKey(acct, 7, l.Seq), auditchain.Canonical(l))
		if i == 2 {
			second = l
		}
	}
	walk := func(rec verify.BucketReader) (map[int64]verify.EntityReport, int) {
		t.Helper()
		got := map[int64]verify.EntityReport{}
		n, err := verify.Bucket(ctx, rec, passkey.Config{RPID: "localhost", Origins: []string{"http://localhost:3000"}}, t0.Add(time.Hour),
			verify.Walk{Entity: func(r verify.EntityReport) error { got[r.EntityID] = r; return nil }, Account: func(verify.AccountReport) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		return got, n
	}
	if got, n := walk(rec); n != 0 || len(got) != 2 {
		t.Fatalf("intact copy: %d findings, reports %+v", n, got)
	}
	// The replica in a second region, as S3 replication writes it, is read
	// alike.
	replica := newReplica(t, client)
	replica.catchUp(t, rec.Bucket)
	if got, n := walk(replica.S3); n != 0 || len(got) != 2 {
		t.Fatalf("intact replica: %d findings, reports %+v", n, got)
	}
	// Other bytes under the key, written past the store (which refuses
	// them), as anyone holding s3:PutObject could: a new version.
	forged := second
	forged.Reason = "rewritten"
	if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(rec.Bucket), Key: aws.String(recordslayout.RecordKey(acct, 7, second.Seq)),
		Body: bytes.NewReader(auditchain.Canonical(forged)), ChecksumAlgorithm: types.ChecksumAlgorithmSha256}); err != nil {
		t.Fatal(err)
	}
	replica.catchUp(t, rec.Bucket)
	for name, r := range map[string]verify.BucketReader{"bucket": rec, "replica": replica.S3} {
		got, n := walk(r)
		if n == 0 || len(got[7].Findings) == 0 || got[7].Findings[0].Kind != verify.FindingRewrittenInBucket {
			t.Errorf("%s, after other bytes under seq %d: %d findings, entity 7 %+v", name, second.Seq, n, got[7])
		}
	}
}
