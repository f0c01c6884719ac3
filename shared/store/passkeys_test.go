package store_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// A ceremony is taken once: of concurrent finishes exactly one gets it; one
// of another purpose, past its end, or never begun is not_found, and a
// failed take leaves a usable ceremony in place.
func TestCeremoniesAreTakenOnce(t *testing.T) {
	ctx := context.Background()
	w := newPortalWorld(t)
	put := func(hash, purpose string, ends time.Time) {
		t.Helper()
		c := domain.Ceremony{Hash: hash, Purpose: purpose, AccountID: w.acct, OperatorID: w.active, Session: []byte(`{"challenge":"x"}`),
			Digest: "d1", CreatedAt: pt0, ExpiresAt: ends}
		if err := w.st.PutCeremony(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	put("c-live", "login", pt0.Add(5*time.Minute))
	if err := w.st.PutCeremony(ctx, domain.Ceremony{Hash: "c-live", Purpose: "login", ExpiresAt: pt0.Add(time.Minute)}); err == nil {
		t.Error("a second ceremony under one challenge was stored")
	}
	if _, err := w.st.TakeCeremony(ctx, "c-live", "register", pt0); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("taken for another purpose: %v", err)
	}
	var wg sync.WaitGroup
	got := make([]error, 6)
	for i := range got {
		wg.Go(func() { _, got[i] = w.st.TakeCeremony(ctx, "c-live", "login", pt0) })
	}
	wg.Wait()
	taken := 0
	for _, err := range got {
		switch {
		case err == nil:
			taken++
		case domain.ErrorCode(err) != domain.ECodeNotFound:
			t.Errorf("take: %v", err)
		}
	}
	if taken != 1 {
		t.Errorf("%d of %d concurrent takes got the ceremony, want 1", taken, len(got))
	}

	put("c-old", "decision", pt0.Add(time.Minute))
	if _, err := w.st.TakeCeremony(ctx, "c-old", "decision", pt0.Add(2*time.Minute)); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("taken past its end: %v", err)
	}
	c, err := w.st.TakeCeremony(ctx, "c-old", "decision", pt0)
	if err != nil || c.AccountID != w.acct || c.OperatorID != w.active || c.Digest != "d1" || string(c.Session) != `{"challenge":"x"}` || !c.ExpiresAt.Equal(pt0.Add(time.Minute)) {
		t.Errorf("the ceremony a refused take left: %+v, %v", c, err)
	}
	if _, err := w.st.TakeCeremony(ctx, "never", "login", pt0); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("never begun: %v", err)
	}
}

// Passkeys: added with their audit record, listed per operator oldest
// first (apart from the operators themselves), used only against the
// counter read, removed with an audit record.
func TestPasskeys(t *testing.T) {
	ctx := context.Background()
	w := newPortalWorld(t)
	audit := func(id string, a domain.Action) domain.AuditRecord {
		return domain.AuditRecord{AccountID: w.acct, ActionID: id, Action: a, OperatorID: w.active, At: pt0}
	}
	first := domain.Passkey{AccountID: w.acct, OperatorID: w.active, ID: []byte{1, 2, 3}, PublicKey: []byte("cose"), SignCount: 7,
		AAGUID: bytes.Repeat([]byte{9}, 16), Transports: []string{"internal", "hybrid"}, BackupEligible: true, Name: "Laptop", CreatedAt: pt0}
	second := first
	second.ID, second.Name, second.CreatedAt, second.SignCount = []byte{4, 5}, "Phone", pt0.Add(time.Second), 0
	for i, p := range []domain.Passkey{second, first} {
		if err := w.st.AddPasskey(ctx, p, audit("pk-add-"+p.Name, domain.Action("passkey.add"))); err != nil {
			t.Fatalf("add %d: %v", i, err)
		}
	}
	if err := w.st.AddPasskey(ctx, first, audit("pk-add-again", domain.Action("passkey.add"))); domain.ErrorCode(err) != domain.ECodeConflict {
		t.Errorf("the same credential again: %v", err)
	}
	if err := w.st.AddPasskey(ctx, domain.Passkey{AccountID: w.acct, OperatorID: w.active, ID: []byte{7}, CreatedAt: pt0},
		audit("pk-add-Laptop", domain.Action("passkey.add"))); !errors.Is(err, domain.ErrDuplicateAction) {
		t.Errorf("an action id used again: %v", err)
	}
	list, err := w.st.Passkeys(ctx, w.acct, w.active)
	if err != nil || len(list) != 2 || list[0].Name != "Laptop" || list[1].Name != "Phone" {
		t.Fatalf("passkeys = %+v, %v", list, err)
	}
	if got := list[0]; !bytes.Equal(got.ID, first.ID) || got.SignCount != 7 || !got.BackupEligible || len(got.Transports) != 2 || !bytes.Equal(got.AAGUID, first.AAGUID) {
		t.Errorf("read back %+v", got)
	}
	if others, _ := w.st.Passkeys(ctx, w.acct, w.disabled); len(others) != 0 {
		t.Errorf("another operator's passkeys: %+v", others)
	}
	if ops, err := w.st.Operators(ctx, w.acct); err != nil || len(ops) != 2 {
		t.Errorf("operators beside passkeys: %d, %v", len(ops), err)
	}

	p, err := w.st.Passkey(ctx, w.acct, w.active, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.st.UsePasskey(ctx, p, 8, pt0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := w.st.UsePasskey(ctx, p, 9, pt0.Add(2*time.Minute)); !errors.Is(err, domain.ErrStale) {
		t.Errorf("a use verified against a counter read before another use: %v", err)
	}
	if p, _ = w.st.Passkey(ctx, w.acct, w.active, first.ID); p.SignCount != 8 || p.LastUsedAt == nil || !p.LastUsedAt.Equal(pt0.Add(time.Minute)) {
		t.Errorf("after a use: %+v", p)
	}

	if err := w.st.RemovePasskey(ctx, p, audit("pk-rm", domain.Action("passkey.remove"))); err != nil {
		t.Fatal(err)
	}
	if err := w.st.RemovePasskey(ctx, p, audit("pk-rm-2", domain.Action("passkey.remove"))); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("removed twice: %v", err)
	}
	if _, err := w.st.Passkey(ctx, w.acct, w.active, first.ID); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("a removed passkey: %v", err)
	}
	if rec, err := w.st.AuditRecord(ctx, w.acct, "pk-rm"); err != nil || rec.Action != "passkey.remove" {
		t.Errorf("removal's audit record: %+v, %v", rec, err)
	}
}
