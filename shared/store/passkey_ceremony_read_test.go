package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Ceremony reads a ceremony as often as asked without taking it; a taken
// one, one never begun, and a sign-in link under the same table are
// not_found. Its end is the caller's to judge: one past it still reads.
func TestCeremonyReadsWithoutTaking(t *testing.T) {
	ctx := context.Background()
	w := newPortalWorld(t)
	c := domain.Ceremony{Hash: w.hash("c"), Purpose: "decision", AccountID: w.acct, OperatorID: w.active, Session: []byte(`{"nonce":"bg"}`),
		Digest: "d1", CreatedAt: pt0, ExpiresAt: pt0.Add(4 * 24 * time.Hour)}
	if err := w.st.PutCeremony(ctx, c); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		got, err := w.st.Ceremony(ctx, c.Hash)
		if err != nil || got.Hash != c.Hash || got.Purpose != c.Purpose || got.AccountID != c.AccountID || got.OperatorID != c.OperatorID ||
			string(got.Session) != string(c.Session) || got.Digest != c.Digest || !got.CreatedAt.Equal(c.CreatedAt) || !got.ExpiresAt.Equal(c.ExpiresAt) {
			t.Errorf("read %d: %+v, %v", i, got, err)
		}
	}
	if _, err := w.st.TakeCeremony(ctx, c.Hash, "decision", pt0); err != nil {
		t.Fatalf("take after reads: %v", err)
	}
	ended := domain.Ceremony{Hash: w.hash("c"), Purpose: "login", Session: []byte(`{}`), CreatedAt: pt0, ExpiresAt: pt0.Add(time.Minute)}
	if err := w.st.PutCeremony(ctx, ended); err != nil {
		t.Fatal(err)
	}
	if got, err := w.st.Ceremony(ctx, ended.Hash); err != nil || got.Purpose != "login" {
		t.Errorf("a ceremony read at any time: %+v, %v", got, err)
	}
	for _, tc := range []struct{ name, hash string }{
		{"taken", c.Hash},
		{"never begun", w.hash("c")},
		{"a sign-in link", w.link(t, w.active).Hash},
	} {
		if got, err := w.st.Ceremony(ctx, tc.hash); domain.ErrorCode(err) != domain.ECodeNotFound {
			t.Errorf("%s: %+v, %v", tc.name, got, err)
		}
	}
}
