package store_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// TestEvidenceKeptWithTheChecks: a create keeps each check's answer, byte
// for byte, under the check's id, in its transaction; the kept answer
// verifies; one tampered with afterwards does not; an answer whose body is
// in the blob store (checks.KeepEvidence) leaves an item with its key and
// no body; an answer not kept (past the read limit) leaves no item (its
// check says why).
func TestEvidenceKeptWithTheChecks(t *testing.T) {
	ctx := context.Background()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	acct := newAccount(t, st, "SA")

	bodies := map[string][]byte{
		"non-UTF-8":     []byte("{\"x\":\"\xff\xfe\x00\"}"),
		"at the limit":  bytes.Repeat([]byte{0xC3}, domain.MaxInlineEvidence),
		"in the bucket": bytes.Repeat([]byte("b"), domain.MaxInlineEvidence+1),
		"not kept":      bytes.Repeat([]byte("y"), domain.MaxEvidence+1),
	}
	const bucketKey = "evidence/1/2/in-the-bucket"
	order := []string{"non-UTF-8", "at the limit", "in the bucket", "not kept"}
	d := sampleEntity(acct, "SA", "7001234567", t0)
	for _, name := range order {
		ev := domain.NewEvidence("wathq", "GET", "https://api.wathq.sa/v4/x", 200, bodies[name], t0)
		if name == "in the bucket" {
			ev.Body, ev.BodyKey = nil, bucketKey // as checks.KeepEvidence leaves it
		}
		d.Checks = append(d.Checks, domain.Check{
			Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted,
			Result: map[string]any{"evidence": ev.ResultMap()}, CreatedAt: t0, UpdatedAt: t0, Evidence: ev,
		})
	}
	out, err := st.CreateEntity(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	// The store assigns the ids: find each check by its answer's hash.
	ids := map[string]int64{}
	for _, c := range out.Checks {
		for _, name := range order {
			if c.Result["evidence"].(map[string]any)["sha256"] == domain.NewEvidence("", "", "", 0, bodies[name], t0).SHA256 {
				ids[name] = c.ID
			}
		}
	}
	if len(ids) != len(order) {
		t.Fatalf("checks %v", ids)
	}

	tests := []struct {
		name     string
		tamper   []byte
		wantNone bool
		wantOK   bool
		wantKey  string
	}{
		{name: "non-UTF-8", wantOK: true},
		{name: "at the limit", wantOK: true},
		{name: "in the bucket", wantKey: bucketKey},
		{name: "not kept", wantNone: true},
		{name: "non-UTF-8", tamper: []byte("{\"x\":\"\xff\xfe\x01\"}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := ids[tt.name]
			if tt.tamper != nil {
				if err := db.Table(names[schema.Evidence]).Update("account_id", acct).Range("check_id", id).Set("body", tt.tamper).Run(ctx); err != nil {
					t.Fatal(err)
				}
			}
			ev, err := st.Evidence(ctx, acct, id)
			if tt.wantNone {
				if domain.ErrorCode(err) != domain.ECodeNotFound {
					t.Fatalf("err = %v, want not_found", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantKey != "" {
				// Where the body is, and no body: the reader fetches it.
				if ev.BodyKey != tt.wantKey || len(ev.Body) != 0 || ev.Size != len(bodies[tt.name]) || !ev.Stored {
					t.Errorf("key %q, %d bytes inline, size %d", ev.BodyKey, len(ev.Body), ev.Size)
				}
				return
			}
			ok, _ := ev.Verify()
			if ok != tt.wantOK {
				t.Fatalf("verifies %v, want %v", ok, tt.wantOK)
			}
			if tt.wantOK && !bytes.Equal(ev.Body, bodies[tt.name]) {
				t.Error("body changed on the way")
			}
			if ev.Provider != "wathq" || ev.HTTPStatus != 200 || !ev.ReceivedAt.Equal(t0) || ev.CheckID != id {
				t.Errorf("metadata %+v", ev)
			}
		})
	}
}

// TestScreeningWebhookEvidence: the webhook's body is kept as its check's
// evidence in the screening update's transaction; the same webhook again
// (its receipt seen) writes nothing, even with other bytes.
func TestScreeningWebhookEvidence(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	created := entityWithChildren(t, st, acct, "7000000202")
	cs, err := st.EntityChecks(ctx, acct, created.Entity.ID, created.Entity.ChecksCount)
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	tests := []struct {
		name        string
		body        []byte
		wantApplied bool
	}{
		{"first delivery", []byte(`{"type":"screening.completed","data":{"reference":"r"}}`), true},
		{"replayed with other bytes", []byte(`{"type":"screening.completed","data":{"reference":"forged"}}`), false},
	}
	first := tests[0].body
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := st.Entity(ctx, acct, created.Entity.ID)
			if err != nil {
				t.Fatal(err)
			}
			c, err := st.Check(ctx, acct, cs[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			applied, err := st.ApplyScreening(ctx, domain.ScreeningUpdate{
				Provider: "opensanctions", WebhookID: "wh-ev", Check: c, Entity: e,
				Result: map[string]any{"status": "clear"}, ProviderStatus: "200",
				SanctionsStatus: domain.SanctionsClear, At: at, ReceiptTTL: time.Hour,
				Evidence: domain.NewEvidence("opensanctions", "POST", "/webhooks/opensanctions", 200, tt.body, at),
			})
			if err != nil || applied != tt.wantApplied {
				t.Fatalf("applied %v, %v; want %v", applied, err, tt.wantApplied)
			}
			ev, err := st.Evidence(ctx, acct, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := ev.Verify(); !ok || !bytes.Equal(ev.Body, first) || ev.URL != "/webhooks/opensanctions" {
				t.Errorf("evidence %s %q, verified %v", ev.URL, ev.Body, ok)
			}
		})
	}
}

// TestLaterAnswerKeepsTheEarlierEvidence: a provider's answer for a check
// already complete is written as a new check with its own evidence; the
// complete check, its result and its evidence stay byte for byte, and the
// entity counts the new check. Evidence is never overwritten: a second
// answer aimed at the new check's id is refused whole.
func TestLaterAnswerKeepsTheEarlierEvidence(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st, "SA")
	created := entityWithChildren(t, st, acct, "7000000203")
	id := created.Entity.ID
	screen := func(webhookID string, c domain.Check, body []byte, n *domain.Check) error {
		t.Helper()
		e, err := st.Entity(ctx, acct, id)
		if err != nil {
			t.Fatal(err)
		}
		at := t0.Add(time.Minute)
		_, err = st.ApplyScreening(ctx, domain.ScreeningUpdate{
			Provider: "opensanctions", WebhookID: webhookID, Check: c, Entity: e, New: n,
			Result: map[string]any{"status": "clear"}, ProviderStatus: "200",
			SanctionsStatus: domain.SanctionsClear, At: at, ReceiptTTL: time.Hour,
			Evidence: domain.NewEvidence("opensanctions", "POST", "/webhooks/opensanctions", 200, body, at),
		})
		return err
	}
	pending := created.Checks[0]
	first := []byte(`{"answer":"first"}`)
	if err := screen("wh-first", pending, first, nil); err != nil {
		t.Fatal(err)
	}
	complete, err := st.Check(ctx, acct, pending.ID)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := st.ReserveCheckIDs(ctx, acct, 1)
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(2 * time.Minute)
	later := domain.Check{AccountID: acct, ID: ids[0], EntityID: id, Type: complete.Type, ProviderKey: complete.ProviderKey,
		Status: domain.CheckCompleted, TriggeringReason: domain.TriggerProviderUpdate, Result: map[string]any{"status": "possible_match"},
		CheckedAt: &at, CreatedAt: at, UpdatedAt: at}
	second := []byte(`{"answer":"second"}`)
	if err := screen("wh-second", complete, second, &later); err != nil {
		t.Fatal(err)
	}

	kept, err := st.Check(ctx, acct, complete.ID)
	if err != nil || kept.UpdatedAt != complete.UpdatedAt || kept.Result["status"] != complete.Result["status"] {
		t.Errorf("the complete check changed: %+v, %v", kept, err)
	}
	for _, c := range []struct {
		check int64
		body  []byte
	}{{complete.ID, first}, {later.ID, second}} {
		ev, err := st.Evidence(ctx, acct, c.check)
		if ok, _ := ev.Verify(); err != nil || !ok || !bytes.Equal(ev.Body, c.body) {
			t.Errorf("check %d's evidence %q (verified %v, %v), want %q", c.check, ev.Body, ok, err, c.body)
		}
	}
	e, err := st.Entity(ctx, acct, id)
	if err != nil || e.ChecksCount != created.Entity.ChecksCount+1 {
		t.Errorf("entity counts %d checks (%v), want %d", e.ChecksCount, err, created.Entity.ChecksCount+1)
	}

	// The same new check again, by another webhook: its evidence exists, so
	// nothing of the answer is written.
	again := later
	again.Result = map[string]any{"status": "forged"}
	if err := screen("wh-third", complete, []byte(`{"answer":"third"}`), &again); err == nil {
		t.Fatal("an answer overwriting a check's evidence was applied")
	}
	if ev, _ := st.Evidence(ctx, acct, later.ID); !bytes.Equal(ev.Body, second) {
		t.Errorf("evidence overwritten: %q", ev.Body)
	}
}
