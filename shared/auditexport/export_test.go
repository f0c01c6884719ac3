package auditexport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/auditexport"
	"github.com/evs-kyb/evs/shared/blob"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/verify"
)

var t0 = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

// world is a store on DynamoDB Local, a write-once records directory and
// the exporter between them.
type world struct {
	st    *store.Store
	db    *dynamo.DB
	names schema.Names
	rec   records.Dir
	x     *auditexport.Exporter
	acct  int64
}

func newWorld(t *testing.T) *world {
	t.Helper()
	devstacktest.Stack(t)
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	w := &world{st: store.New(db, names), db: db, names: names, rec: records.Dir{Root: t.TempDir()}}
	w.x = &auditexport.Exporter{Source: w.st, Records: w.rec, Clock: domain.FixedClock(t0)}
	a, err := w.st.CreateAccount(context.Background(), "Records "+t.Name(), t0)
	if err != nil {
		t.Fatal(err)
	}
	w.acct = a.ID
	return w
}

func act(entity int64, n int) string { return fmt.Sprintf("e%d-%d", entity, n) }

// chain appends n records to entity's chain, as decisions do.
func (w *world) chain(t *testing.T, entity int64, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		a := domain.AuditRecord{AccountID: w.acct, ActionID: act(entity, i), Action: domain.ActionStart, EntityID: entity,
			OperatorID: 3, OperatorName: "op", Reason: "r", Before: map[string]any{"n": i - 1}, After: map[string]any{"n": i},
			At: t0.Add(time.Duration(i) * time.Minute)}
		if err := w.st.ApplyDecision(context.Background(), domain.Decision{Audit: a}); err != nil {
			t.Fatal(err)
		}
	}
}

func (w *world) compare(t *testing.T, entity int64) verify.ChainReport {
	t.Helper()
	return w.compareAt(t, entity, verify.Retention{Now: t0})
}

func (w *world) compareAt(t *testing.T, entity int64, ret verify.Retention) verify.ChainReport {
	t.Helper()
	c, err := w.st.AuditChain(context.Background(), w.acct, entity)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := verify.Chain(context.Background(), w.rec, c, ret)
	if err != nil {
		t.Fatal(err)
	}
	return cmp
}

// lockAll locks every record of the entity's chain, as the stream does.
func (w *world) lockAll(t *testing.T, entity int64) {
	t.Helper()
	c, err := w.st.AuditChain(context.Background(), w.acct, entity)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range c.Records {
		if _, err := w.rec.Put(context.Background(), recordslayout.RecordKey(w.acct, entity, l.Seq), auditchain.Canonical(l)); err != nil {
			t.Fatal(err)
		}
	}
}

func mustRun(t *testing.T, op interface{ Run(context.Context) error }) {
	t.Helper()
	if err := op.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// The daily run locks every record the streams did not, writes the
// account's manifest, and writes nothing twice; the objects check from the
// bucket alone: each one's SHA-256 is the next one's prev_hash.
func TestDailyRunLocksEveryRecord(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	w.chain(t, 7, 3)
	w.chain(t, 8, 2)
	res, err := w.x.RunDaily(ctx)
	if err != nil || res.Accounts != 1 || res.Manifests != 1 || res.CaughtUp != 5 {
		t.Fatalf("run = %+v, %v; want 5 records caught up in 1 manifest", res, err)
	}
	keys, err := w.rec.List(ctx, recordslayout.ChainPrefix(w.acct, 7))
	if err != nil || len(keys) != 3 {
		t.Fatalf("chain 7's objects: %v, %v", keys, err)
	}
	prev := auditchain.Genesis
	for i, k := range keys {
		obj, err := w.rec.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		l, err := auditchain.Parse(obj.Body)
		if err != nil || l.Seq != int64(i+1) || l.PrevHash != prev || l.Hash != obj.SHA256 {
			t.Fatalf("%s: %+v, %v; want seq %d after %s", k, l, err, i+1, prev)
		}
		prev = l.Hash
	}
	manifests, _ := w.rec.List(ctx, recordslayout.ManifestPrefix(w.acct))
	if len(manifests) != 1 || manifests[0] != recordslayout.ManifestKey(w.acct, t0) {
		t.Errorf("manifests %v", manifests)
	}
	// Again, a day later: nothing to catch up, a manifest of what moved.
	w.x.Clock = domain.FixedClock(t0.Add(24 * time.Hour))
	if res, err := w.x.RunDaily(ctx); err != nil || res.CaughtUp != 0 || res.Manifests != 1 {
		t.Errorf("second run = %+v, %v", res, err)
	}
	// The second manifest names the first by its bytes' SHA-256: the
	// manifests read as one chain, with nothing the bucket lost.
	m, err := verify.ReadManifests(ctx, w.rec, w.acct, t0.Add(48*time.Hour))
	if err != nil || len(m.Findings) != 0 || m.Heads[7].Seq != 3 || m.Heads[8].Seq != 2 {
		t.Errorf("manifests read %+v, %v; want linked, heads 7@3 and 8@2", m, err)
	}
	second, err := w.rec.Get(ctx, recordslayout.ManifestKey(w.acct, t0.Add(24*time.Hour)))
	first, _ := w.rec.Get(ctx, manifests[0])
	var man recordslayout.Manifest
	if err != nil || json.Unmarshal(second.Body, &man) != nil || man.Format != recordslayout.ManifestFormat ||
		man.Previous == nil || *man.Previous != (recordslayout.ManifestObject{Key: manifests[0], SHA256: first.SHA256}) {
		t.Errorf("second manifest %s (%v): want it to name %s by its SHA-256", second.Body, err, manifests[0])
	}
}

// The four rewrites of DynamoDB that a chain's own check cannot see — it is
// consistent again afterwards — are each named by the locked copy the daily
// run wrote that contradicts them (verify.Chain).
func TestLockedCopiesNameRewritesTheChainCannotSee(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	audit := w.db.Table(w.names[schema.Audit])
	head := func(e int64) string { return fmt.Sprintf("HEAD#%d", e) }
	item := func(t *testing.T, e int64, n int) map[string]any {
		t.Helper()
		var it map[string]any
		if err := audit.Get("account_id", w.acct).Range("action_id", dynamo.Equal, act(e, n)).Consistent(true).One(ctx, &it); err != nil {
			t.Fatal(err)
		}
		return it
	}
	tests := []struct {
		name   string
		tamper func(t *testing.T, e int64)
		want   []string // kind@seq of every finding, in order
	}{
		{"intact", func(*testing.T, int64) {}, nil},
		{"the tail removed and the head set to match", func(t *testing.T, e int64) {
			third := item(t, e, 3)
			mustRun(t, audit.Delete("account_id", w.acct).Range("action_id", act(e, 4)))
			mustRun(t, audit.Update("account_id", w.acct).Range("action_id", head(e)).
				Set("seq", 3).Set("hash", third["hash"]).Set("last_action_id", act(e, 3)))
		}, []string{"missing@4", "head_behind@4"}},
		{"the whole trail removed with its head", func(t *testing.T, e int64) {
			for n := 1; n <= 4; n++ {
				mustRun(t, audit.Delete("account_id", w.acct).Range("action_id", act(e, n)))
			}
			mustRun(t, audit.Delete("account_id", w.acct).Range("action_id", head(e)))
		}, []string{"missing@1", "missing@2", "missing@3", "missing@4", "head_behind@4"}},
		{"a record altered, the later hashes and the head recomputed", func(t *testing.T, e int64) {
			c, err := w.st.AuditChain(ctx, w.acct, e)
			if err != nil {
				t.Fatal(err)
			}
			links := c.Records
			slices.SortFunc(links, func(a, b auditchain.Link) int { return int(a.Seq - b.Seq) })
			links[1].Reason = "nothing to see"
			prev := links[0].Hash
			for i := 1; i < len(links); i++ {
				links[i].PrevHash = prev
				links[i].Hash, _ = auditchain.Sum(links[i])
				prev = links[i].Hash
				mustRun(t, audit.Update("account_id", w.acct).Range("action_id", links[i].ActionID).
					Set("reason", links[i].Reason).Set("prev_hash", links[i].PrevHash).Set("hash", links[i].Hash))
			}
			mustRun(t, audit.Update("account_id", w.acct).Range("action_id", head(e)).Set("hash", prev))
		}, []string{"differs@2", "differs@3", "differs@4"}},
	}
	for i := range tests {
		w.chain(t, int64(100+i), 4)
	}
	if _, err := w.x.RunDaily(ctx); err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := int64(100 + i)
			tt.tamper(t, e)
			c, err := w.st.AuditChain(ctx, w.acct, e)
			if err != nil {
				t.Fatal(err)
			}
			if brk := c.Verify(); brk != nil {
				t.Fatalf("the chain's own check found %v: the rewrite was meant to be consistent", brk)
			}
			cmp := w.compare(t, e)
			var got []string
			for _, f := range cmp.Findings {
				got = append(got, fmt.Sprintf("%s@%d", f.Kind, f.Seq))
				if !strings.Contains(f.Message, f.Key) || f.Key != recordslayout.RecordKey(w.acct, e, f.Seq) || f.Locked != t0.Format(time.DateOnly) && f.Locked != time.Now().UTC().Format(time.DateOnly) {
					t.Errorf("finding %+v does not name its locked copy and day", f)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if cmp.Locked != 4 {
				t.Errorf("locked %d, want 4", cmp.Locked)
			}
		})
	}
}

// A trail gone from DynamoDB after the retention its locked closure record
// names ran out expired: no finding, but the count and the date. Gone
// before that date, or while a legal hold stands, it was removed.
func TestLockedCopiesTellExpiryFromRemoval(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	const e = 300
	w.chain(t, e, 2)
	until := t0.AddDate(10, 0, 0)
	end := domain.AuditRecord{AccountID: w.acct, ActionID: act(e, 3), Action: domain.ActionEndRelationship, EntityID: e,
		OperatorID: 3, OperatorName: "op", Reason: "customer left", At: t0.Add(time.Hour),
		After: map[string]any{"relationship_ended_at": domain.FormatTime(t0.Add(time.Hour)), "retain_until": domain.FormatTime(until)}}
	if err := w.st.ApplyDecision(ctx, domain.Decision{Audit: end}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.x.RunDaily(ctx); err != nil {
		t.Fatal(err)
	}
	// Nothing gone, an unbelieved closure excuses nothing and is no finding.
	if cmp := w.compareAt(t, e, verify.Retention{Now: until}); len(cmp.Findings) != 0 || cmp.Locked != 3 {
		t.Errorf("the trail whole, an unsigned closure where signatures are required: %d locked, findings %+v", cmp.Locked, cmp.Findings)
	}
	audit := w.db.Table(w.names[schema.Audit])
	for n := 1; n <= 3; n++ { // as TTL does
		mustRun(t, audit.Delete("account_id", w.acct).Range("action_id", act(e, n)))
	}
	mustRun(t, audit.Delete("account_id", w.acct).Range("action_id", fmt.Sprintf("HEAD#%d", e)))
	// The closure is unsigned: not believed while the account's locked
	// chain has every decision signed — nor once declared decisions are
	// turned on after the closure — and believed where the chain had them
	// accepted when the closure was made.
	unsigned := []string{"missing@1", "missing@2", "missing@3", "closure_not_believed@3", "head_behind@3"}
	for _, tc := range []struct {
		name    string
		declare *time.Time // when the account turns declared decisions on
		ret     verify.Retention
		expired int
		want    []string
	}{
		{"after, unsigned where signatures are required", nil, verify.Retention{Now: until}, 0, unsigned},
		{"after, declared decisions turned on after the closure", new(t0.Add(2 * time.Hour)), verify.Retention{Now: until}, 0, unsigned},
		{"before its retention ran out", new(t0), verify.Retention{Now: until.Add(-time.Hour)}, 0,
			[]string{"missing@1", "missing@2", "missing@3", "head_behind@3"}},
		{"after", nil, verify.Retention{Now: until}, 3, nil},
		{"after, under a legal hold", nil, verify.Retention{Now: until.AddDate(1, 0, 0), Held: true}, 0,
			[]string{"missing@1", "missing@2", "missing@3", "head_behind@3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.declare != nil {
				w.setDeclared(t, true, *tc.declare)
				w.lockAll(t, 0) // as the stream does
			}
			cmp := w.compareAt(t, e, tc.ret)
			var got []string
			for _, f := range cmp.Findings {
				got = append(got, fmt.Sprintf("%s@%d", f.Kind, f.Seq))
			}
			if !slices.Equal(got, tc.want) || cmp.Expired != tc.expired {
				t.Errorf("findings %v, expired %d; want %v, %d", got, cmp.Expired, tc.want, tc.expired)
			}
			if tc.expired > 0 && (cmp.ExpiredOn != until.Format(time.DateOnly) || cmp.Closure != recordslayout.RecordKey(w.acct, e, 3)) {
				t.Errorf("expired on %q by %q; want %s by the closure record", cmp.ExpiredOn, cmp.Closure, until.Format(time.DateOnly))
			}
		})
	}
}

// Evidence from the evidence table's stream is locked under its hash; a
// body rewritten in DynamoDB with its hash is named against it, and a
// stream image of the rewrite is refused a lock of its own.
func TestEvidenceLockedFromTheStream(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	body := []byte(`{"results":[]}`)
	e := domain.Evidence{AccountID: w.acct, CheckID: 55, Provider: "opensanctions", SHA256: sha(body), Size: len(body), Body: body}
	ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{evidenceRecord("1", e)}}
	if res, err := w.x.HandleStream(ctx, ev); err != nil || len(res.BatchItemFailures) != 0 {
		t.Fatalf("stream: %+v, %v", res, err)
	}
	if locked, fs, err := verify.Evidence(ctx, w.rec, e); err != nil || !locked || len(fs) != 0 {
		t.Fatalf("intact evidence: locked %t, %+v, %v", locked, fs, err)
	}
	forged := []byte(`{"results":[{"id":"hidden"}]}`)
	rewritten := e
	rewritten.Body, rewritten.SHA256, rewritten.Size = forged, sha(forged), len(forged)
	// The rewrite comes down the stream too: a check has one answer, so it
	// is refused (logged), and the original alone stays locked.
	if res, err := w.x.HandleStream(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{evidenceRecord("2", rewritten)}}); err != nil || len(res.BatchItemFailures) != 0 {
		t.Fatalf("stream: %+v, %v", res, err)
	}
	keys, _ := w.rec.List(ctx, recordslayout.EvidencePrefix(w.acct, 55))
	if !slices.Equal(keys, []string{recordslayout.EvidenceKey(w.acct, 55, e.SHA256)}) {
		t.Errorf("locked for check 55: %v, want the original body alone", keys)
	}
	if _, fs, _ := verify.Evidence(ctx, w.rec, rewritten); len(fs) != 1 || fs[0].Kind != verify.FindingEvidenceNotLocked {
		t.Errorf("the rewrite against the lock: %+v", fs)
	}
	// Rewritten before the stream ever saw it: no lock has its hash.
	hidden := e
	hidden.CheckID = 56
	if res, _ := w.x.HandleStream(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{evidenceRecord("3", hidden)}}); len(res.BatchItemFailures) != 0 {
		t.Fatal("stream failed")
	}
	hidden.Body, hidden.SHA256 = forged, sha(forged)
	locked, fs, err := verify.Evidence(ctx, w.rec, hidden)
	if err != nil || !locked || len(fs) != 1 || fs[0].Kind != verify.FindingEvidenceNotLocked || !strings.Contains(fs[0].Message, "rewritten") {
		t.Errorf("rewritten evidence: locked %t, %+v, %v", locked, fs, err)
	}
	// A body that does not hash to its item's hash is never locked.
	bad := e
	bad.CheckID, bad.Body = 57, forged
	if res, _ := w.x.HandleStream(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{evidenceRecord("4", bad)}}); len(res.BatchItemFailures) != 0 {
		t.Fatal("stream failed")
	}
	if keys, _ := w.rec.List(ctx, recordslayout.EvidencePrefix(w.acct, 57)); len(keys) != 0 {
		t.Errorf("a body that is not its hash's was locked: %v", keys)
	}
}

// The regulator's check, from the bucket alone: the locked trail holds,
// whatever was rewritten in DynamoDB since, and its records are what the
// chain held when they were locked.
func TestVerifyFromTheBucketAlone(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	w.chain(t, 9, 5)
	if _, err := w.x.RunDaily(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := w.st.AuditChain(ctx, w.acct, 9)
	if err != nil {
		t.Fatal(err)
	}
	// DynamoDB loses the whole trail.
	audit := w.db.Table(w.names[schema.Audit])
	for n := 1; n <= 5; n++ {
		mustRun(t, audit.Delete("account_id", w.acct).Range("action_id", act(9, n)))
	}
	links, brk, err := verify.LockedChain(ctx, w.rec, w.acct, 9)
	if err != nil || brk != nil || len(links) != 5 {
		t.Fatalf("from the bucket: %d records, %v, %v; want 5 that hold", len(links), brk, err)
	}
	for i, l := range links {
		if l.ActionID != act(9, i+1) {
			t.Errorf("record %d from the bucket: %+v", i+1, l)
		}
	}
	if links[4].Hash != before.Head.Hash {
		t.Errorf("the bucket's last record %s, the chain's head was %s", links[4].Hash, before.Head.Hash)
	}
	// An object under a chain's prefix that is no record of it is named.
	if _, err := w.rec.Put(ctx, recordslayout.RecordKey(w.acct, 10, 2), []byte("evs-audit/v3\n")); err != nil {
		t.Fatal(err)
	}
	if _, brk, _ := verify.LockedChain(ctx, w.rec, w.acct, 10); brk == nil {
		t.Error("an object that is no record verified")
	}
}

// The daily run also locks the evidence of a moved entity's checks that
// the stream never locked (its retries exhausted).
func TestDailyRunCatchesUpOnEvidence(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	body := []byte(`{"results":[{"id":"NK-1"}]}`)
	d, err := w.st.CreateEntity(ctx, domain.EntityDetail{
		Entity: domain.Entity{AccountID: w.acct, RegistrationNumber: "7000003330", LegalName: "Caught Up Co", CountryCode: "SA", CountryID: 682,
			Status: domain.EntityReadyForReview, CreatedAt: t0, UpdatedAt: t0},
		Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, CreatedAt: t0, UpdatedAt: t0,
			Evidence: &domain.Evidence{Provider: "opensanctions", ReceivedAt: t0, HTTPStatus: 200, SHA256: sha(body), Size: len(body), Body: body, Stored: true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.chain(t, d.Entity.ID, 1) // its chain moves
	res, err := w.x.RunDaily(ctx)
	if err != nil || res.CaughtUp != 2 {
		t.Fatalf("run = %+v, %v; want its record and its evidence caught up", res, err)
	}
	key := recordslayout.EvidenceKey(w.acct, d.Checks[0].ID, sha(body))
	if o, err := w.rec.Get(ctx, key); err != nil || string(o.Body) != string(body) {
		t.Errorf("evidence %s: %q, %v", key, o.Body, err)
	}
}

// When DynamoDB's TTL removes an evidence item (the end of its retention),
// its large body goes from the evidence blob store too; a removal by
// anyone else deletes nothing (verification names it), and an inline body
// has nothing beside it.
func TestExpiredEvidenceTakesItsBodyAlong(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	blobs := blob.Dir{Root: t.TempDir()}
	w.x.Blobs = blobs
	ttl := &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}
	someone := &events.DynamoDBUserIdentity{Type: "User", PrincipalID: "AROAEXAMPLE:admin"}
	for i, tc := range []struct {
		name  string
		who   *events.DynamoDBUserIdentity
		large bool
		gone  bool
	}{
		{"expired, a large body", ttl, true, true},
		{"removed by someone", someone, true, false},
		{"removed, no identity", nil, true, false},
		{"expired, inline", ttl, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := fmt.Sprintf("evidence/1/%d/body", i)
			if err := blobs.Put(ctx, key, []byte("large")); err != nil {
				t.Fatal(err)
			}
			body := []byte(`{"results":[]}`)
			rec := evidenceRecord("9", domain.Evidence{AccountID: w.acct, CheckID: 77, Provider: "opensanctions", SHA256: sha(body), Body: body})
			old := rec.Change.NewImage
			if tc.large {
				delete(old, "body")
				old["body_key"] = events.NewStringAttribute(key)
			}
			rec.EventName, rec.UserIdentity, rec.Change.NewImage, rec.Change.OldImage = "REMOVE", tc.who, nil, old
			if res, err := w.x.HandleStream(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{rec}}); err != nil || len(res.BatchItemFailures) != 0 {
				t.Fatalf("stream: %+v, %v", res, err)
			}
			_, err := blobs.Get(ctx, key)
			if gone := errors.Is(err, blob.ErrNotFound); gone != tc.gone {
				t.Errorf("body gone %t (%v), want %t", gone, err, tc.gone)
			}
		})
	}
}
