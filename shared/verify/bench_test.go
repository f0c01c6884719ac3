package verify_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/verify"
)

// perChain is how many records each generated entity's chain holds: a
// review's few decisions and the periodic ones after.
const perChain = 10

// BenchmarkRegulatorsVerifier reports the verifier's records per second
// on a bucket copy of 10k and of 100k audit records (each entity with a
// provider's answer of 2 KiB), the per-record cost at 100k over at 10k
// (target at most 1.2), and the largest heap seen during each walk, which
// a walk a folder at a time keeps to about one chain's, not the bucket's.
// The copies are written with the exporter's writers (auditchain's
// canonical form, records.Dir), not through DynamoDB, to keep it fast.
func BenchmarkRegulatorsVerifier(b *testing.B) {
	perRecord := map[int]time.Duration{}
	for _, n := range []int{10_000, 100_000} {
		rec := records.Dir{Root: b.TempDir()}
		generate(b, rec, n)
		runtime.GC()
		start := time.Now()
		peak, stop := heapPeak()
		found, err := verify.Bucket(context.Background(), rec, passkey.Config{RPID: "localhost", Origins: []string{"http://localhost:3000"}}, time.Now(),
			verify.Walk{Entity: func(verify.EntityReport) error { return nil }, Account: func(verify.AccountReport) error { return nil }})
		took := time.Since(start)
		stop()
		if err != nil || found != 0 {
			b.Fatalf("%d records: %d finding(s), %v", n, found, err)
		}
		perRecord[n] = took / time.Duration(n)
		b.ReportMetric(float64(n)/took.Seconds(), fmt.Sprintf("records/s@%dk", n/1000))
		b.ReportMetric(float64(peak())/(1<<20), fmt.Sprintf("MiB-heap-peak@%dk", n/1000))
	}
	b.ReportMetric(float64(perRecord[100_000])/float64(perRecord[10_000]), "per-record-cost-100k/10k")
}

// heapPeak samples the heap in use until stopped; peak reads the largest.
func heapPeak() (peak func() uint64, stop func()) {
	var max atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > max.Load() {
				max.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return max.Load, func() { close(done); <-finished }
}

// generate writes a copy of n audit records: the account's own chain
// (declared decisions on), chains of perChain declared decisions each with
// one evidence body, and a manifest naming every head.
func generate(b *testing.B, rec records.Dir, n int) {
	b.Helper()
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	put := func(key string, body []byte) {
		if _, err := rec.Put(ctx, key, body); err != nil {
			b.Fatal(err)
		}
	}
	own := auditchain.Link{AccountID: acct, ActionID: "settings", Action: string(domain.ActionAccountCreate), Actor: "admin",
		Before: "{}", After: `{"name":"Bench","declared_decisions":true}`, At: domain.FormatTime(at)}
	auditchain.Next(auditchain.Head{}, &own)
	put(recordslayout.RecordKey(acct, 0, 1), auditchain.Canonical(own))
	m := recordslayout.Manifest{Format: recordslayout.ManifestFormat, AccountID: acct, RunAt: domain.FormatTime(at), Written: []recordslayout.ManifestObject{}}
	answer := make([]byte, 2048)
	for e := int64(1); e <= int64(n/perChain); e++ {
		var head auditchain.Head
		var l auditchain.Link
		for i := 1; i <= perChain; i++ {
			l = auditchain.Link{AccountID: acct, EntityID: e, ActionID: fmt.Sprintf("a-%d-%d", e, i), Action: string(domain.ActionAssign),
				OperatorID: 3, OperatorName: "Op", Identity: string(domain.IdentityDeclared), Reason: "r", Before: "{}", After: `{"assignee_id":3}`,
				At: domain.FormatTime(at.Add(time.Duration(i) * time.Minute))}
			head = auditchain.Next(head, &l)
			put(recordslayout.RecordKey(acct, e, l.Seq), auditchain.Canonical(l))
		}
		copy(answer, fmt.Sprintf(`{"entity":%d}`, e))
		sum := sha256.Sum256(answer)
		put(recordslayout.EvidenceKey(acct, e, hex.EncodeToString(sum[:])), answer)
		m.Heads = append(m.Heads, recordslayout.ManifestHead{EntityID: e, Seq: head.Seq, Hash: head.Hash, LastActionID: l.ActionID, At: l.At})
	}
	body, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	put(recordslayout.ManifestKey(acct, at), body)
}
