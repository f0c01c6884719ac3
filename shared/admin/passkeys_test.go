package admin_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
	"github.com/evs-kyb/evs/shared/portal"
)

// The administrator lists an operator's passkeys (never a key) and revokes
// one, the last included; revoking what is not there, or an operator of
// another account, is refused and changes nothing.
func TestPasskeyCommands(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	const actor = `"actor": "ops@example.com"`
	acct := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Keys", "countries": ["SA"]}`), "account")["id"])
	opID := num(obj(w.must(fmt.Sprintf(`{"command": "operator.create", %s, "account_id": %d, "name": "Dana", "permissions": ["entity.review.decide"]}`, actor, acct)), "operator")["id"])
	op, err := w.st.Operator(ctx, acct, opID)
	if err != nil {
		t.Fatal(err)
	}
	keys := &passkey.Service{Store: w.st, Clock: domain.SystemClock, Config: passkey.Config{RPID: "localhost", RPDisplayName: "EVS", Origins: []string{"http://localhost:3000"}}}
	if _, err := passkeytest.Enrol(ctx, keys, op); err != nil {
		t.Fatal(err)
	}
	list := func() []any {
		t.Helper()
		ks, _ := w.must(fmt.Sprintf(`{"command": "passkey.list", %s, "account_id": %d, "operator_id": %d}`, actor, acct, opID))["passkeys"].([]any)
		return ks
	}
	ks := list()
	if len(ks) != 1 {
		t.Fatalf("passkey.list = %v", ks)
	}
	k := ks[0].(map[string]any)
	if k["name"] != "Test key" || k["credential_id"] == "" || k["public_key"] != nil {
		t.Errorf("listed passkey = %v", k)
	}
	id := k["credential_id"].(string)

	other := num(obj(w.must(`{"command": "account.create", `+actor+`, "name": "Other", "countries": ["SA"]}`), "account")["id"])
	for _, tc := range []struct{ name, doc, failure string }{
		{"unknown credential", fmt.Sprintf(`{"command": "passkey.revoke", %s, "account_id": %d, "operator_id": %d, "credential_id": "AAAA"}`, actor, acct, opID), "NotFound"},
		{"not base64url", fmt.Sprintf(`{"command": "passkey.revoke", %s, "account_id": %d, "operator_id": %d, "credential_id": "***"}`, actor, acct, opID), "InvalidRequest"},
		{"operator of another account", fmt.Sprintf(`{"command": "passkey.revoke", %s, "account_id": %d, "operator_id": %d, "credential_id": %q}`, actor, other, opID, id), "NotFound"},
		{"credential on a list", fmt.Sprintf(`{"command": "passkey.list", %s, "account_id": %d, "operator_id": %d, "credential_id": %q}`, actor, acct, opID, id), "InvalidRequest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := w.call(tc.doc); failure(err) != tc.failure {
				t.Errorf("%v, want %s", err, tc.failure)
			}
		})
	}
	if len(list()) != 1 {
		t.Fatal("a refused revocation removed the passkey")
	}
	// A session the passkey signed in (the console's and the settings
	// area's are one).
	credential, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		t.Fatal(err)
	}
	sessions := &portal.Service{Store: w.st, Clock: domain.SystemClock}
	session, _, err := sessions.StartSession(ctx, acct, opID, credential)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sessions.Session(ctx, session); err != nil {
		t.Fatalf("the passkey's session before the revocation: %v", err)
	}
	// The administrator revokes the last one: the operator enrols again by
	// a new link, and the session the passkey opened is over.
	w.must(fmt.Sprintf(`{"command": "passkey.revoke", %s, "account_id": %d, "operator_id": %d, "credential_id": %q}`, actor, acct, opID, id))
	if ks := list(); len(ks) != 0 {
		t.Errorf("after revoking: %v", ks)
	}
	if _, err := sessions.Session(ctx, session); !errors.Is(err, portal.ErrNoSession) {
		t.Errorf("the revoked passkey's session: %v, want ErrNoSession", err)
	}
}
