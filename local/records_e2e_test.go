package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/boot"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/verify"
)

// Decisions and the providers' answers reach the records store through
// the audit and evidence tables' streams, as audit-export's event source
// mappings bring them in AWS, with no daily run: every record of the
// entity's chain and every check's evidence is locked within the wait.
// Then DynamoDB is rewritten behind the service's back: a record changed
// in place comes down the stream too and is refused by its lock (the
// locked copy stays as it was), and audit.verify names the locked copy
// each rewrite contradicts.
func TestRecordsLockedFromTheStreams(t *testing.T) {
	dir := t.TempDir()
	f := newFlowFixtureWith(t, flowOptions{PollInterval: 20 * time.Millisecond, RetryBackoff: 20 * time.Millisecond,
		ClientTimeout: 2 * time.Second, RecordsDir: dir})
	t.Cleanup(f.flow.run(f.ctx, flowLog()))
	rec := records.Dir{Root: dir}
	d := f.screenedEntity("7000009990")
	r := d.Reviews[0]
	chks := d.Checks
	f.decide(domain.ActionAssign, r.ID, func(q *decisions.Request) { q.AssigneeID = f.op.ID })
	f.decide(domain.ActionStart, r.ID, nil)
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := exec.Command("find", dir).Output()
			t.Logf("the records directory holds:\n%s", out)
		}
	})
	waitUntil(t, "the entity's chain and its checks' evidence locked by the streams", func() bool {
		c, err := f.st.AuditChain(f.ctx, f.acct, r.EntityID)
		keys, _ := rec.List(f.ctx, recordslayout.ChainPrefix(f.acct, r.EntityID))
		if err != nil || c.Head.Seq == 0 || int64(len(keys)) != c.Head.Seq {
			return false
		}
		for _, c := range chks {
			ev, err := f.st.Evidence(f.ctx, f.acct, c.ID)
			if err != nil || ev.SHA256 == "" {
				return false
			}
			if keys, _ := rec.List(f.ctx, recordslayout.EvidenceKey(f.acct, c.ID, ev.SHA256)); len(keys) != 1 {
				return false
			}
		}
		return true
	})

	auditVerify := func() admin.AuditChainView {
		t.Helper()
		var v admin.AuditChainView
		f.admin(domain.SystemClock, rec, map[string]any{"command": "audit.verify", "account_id": f.acct, "entity_id": r.EntityID}, &v)
		return v
	}
	v := auditVerify()
	if !v.Intact || v.Locked == nil || int64(v.Locked.Locked) != v.Head.Seq || v.Locked.NotYetLocked != 0 {
		t.Fatalf("audit.verify before any rewrite: intact %t, locked %+v, head %+v", v.Intact, v.Locked, v.Head)
	}

	// A record changed in place: its MODIFY comes down the stream, and the
	// lock keeps the original.
	audit := f.st.DB().Table(f.names[schema.Audit])
	first := v.Trail[0]
	key := recordslayout.RecordKey(f.acct, r.EntityID, first.Seq)
	path := filepath.Join(dir, filepath.FromSlash(key))
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := audit.Update("account_id", f.acct).Range("action_id", first.ActionID).Set("reason", "nothing to see").Run(f.ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the stream's MODIFY has been handled by now (20 ms polls)
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Errorf("the locked copy %s changed after a rewrite came down the stream (%v)", key, err)
	}
	v = auditVerify()
	if v.Intact || v.Broken == nil || v.Broken.ActionID != first.ActionID {
		t.Errorf("audit.verify after a record was altered: %+v, want it broken at %s", v.Broken, first.ActionID)
	}
	found := false
	for _, fd := range v.Locked.Findings {
		found = found || (fd.Kind == verify.FindingDiffers && fd.Key == key && strings.Contains(fd.Message, key))
	}
	if !found {
		t.Errorf("findings %+v, want %s named as differing from DynamoDB", v.Locked.Findings, key)
	}
}

// screenedEntity creates an entity whose screening brought a provider's
// answer, as intake writes it (the check and its evidence in one
// transaction), with an open review.
func (f *flowFixture) screenedEntity(number string) domain.EntityDetail {
	f.t.Helper()
	now := domain.Now()
	body := []byte(`{"responses":{"q":{"results":[]}},"n":"` + number + `"}`)
	sum := sha256.Sum256(body)
	d, err := f.st.CreateEntity(f.ctx, domain.EntityDetail{
		Entity: domain.Entity{AccountID: f.acct, RegistrationNumber: number, LegalName: "Locked Records Co " + number, CountryCode: "SA",
			CountryID: 682, Status: domain.EntityReadyForReview, RegistrationStatus: domain.RegistrationValid,
			SanctionsStatus: domain.SanctionsClear, CreatedAt: now, UpdatedAt: now},
		Checks: []domain.Check{{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, CreatedAt: now, UpdatedAt: now,
			Result: map[string]any{"matches_count": 0},
			Evidence: &domain.Evidence{Provider: "opensanctions", Method: "POST", URL: "https://yente.example/match/default", ReceivedAt: now,
				HTTPStatus: 200, SHA256: hex.EncodeToString(sum[:]), Size: len(body), Body: body, Stored: true}}},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: now, UpdatedAt: now}},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// admin runs one admin command through the admin function's handler, on
// the fixture's store, the records store and the clock given, into out.
func (f *flowFixture) admin(clock domain.Clock, rec records.Dir, doc map[string]any, out any) {
	f.t.Helper()
	adm, err := boot.As[boot.AdminHandler]("admin", boot.Deps{Store: f.st, Log: quietLogger(), Clock: clock, Records: rec, Deliveries: &lazyQueue{}})
	if err != nil {
		f.t.Fatal(err)
	}
	doc["actor"] = "e2e"
	raw, _ := json.Marshal(doc)
	f.seq++ // each call an invocation of its own: its own action id
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "records-e2e-" + itoa(f.seq)})
	res, err := adm(ctx, raw)
	if err != nil {
		f.t.Fatalf("%s: %v", doc["command"], err)
	}
	if err := json.Unmarshal(res, out); err != nil {
		f.t.Fatal(err)
	}
}
