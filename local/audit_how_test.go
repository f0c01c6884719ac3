package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// audit --entity says how each operator was known, in its table (HOW) and
// its JSON lines (identity, signatures): a decision signed by maker and
// second operator, both verified; one whose stored signature was altered,
// not verifying; a declared one; a session's claim naming its passkey.
func TestAuditHow(t *testing.T) {
	ctx := context.Background()
	st, _ := cliStore(t)
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	acct, err := st.CreateAccount(ctx, "Audit how", now)
	if err != nil {
		t.Fatal(err)
	}
	keys := &passkey.Service{Store: st, Clock: domain.SystemClock, Config: localPasskeys()}
	maker, second := wfSigner(t, keys, st, acct.ID, "Dana"), wfSigner(t, keys, st, acct.ID, "Omar")
	cred := func(o *passkeytest.Operator) string {
		return base64.RawURLEncoding.EncodeToString(o.Auth.Credentials()[0].ID)
	}
	const entity = 1000000042
	// Each record as the decision function writes one: a signed one keeps
	// the document naming it, and its signatures over it.
	signedBy := func(a *domain.AuditRecord, signers ...*passkeytest.Operator) {
		a.Identity, a.DecisionDocument = domain.IdentityPasskey, passkeytest.Document(*a)
		for i, o := range signers {
			role, purpose := domain.SignatureMaker, passkey.PurposeDecision
			if i > 0 {
				role, purpose = domain.SignatureSecond, passkey.PurposeApproval
			}
			sig, err := o.SignRecord(ctx, role, purpose, a.DecisionDocument)
			if err != nil {
				t.Fatal(err)
			}
			a.Signatures = append(a.Signatures, sig)
		}
	}
	for i, a := range []domain.AuditRecord{
		{ActionID: "how-claim", Action: domain.ActionAssign, Identity: domain.IdentitySession, Actor: domain.SessionActor(maker.Auth.Credentials()[0].ID)},
		{ActionID: "how-declared", Action: domain.ActionAssessRisk, Identity: domain.IdentityDeclared},
		{ActionID: "how-signed", Action: domain.ActionApprove, SecondApproverID: &second.ID},
		{ActionID: "how-forged", Action: domain.ActionApprove},
	} {
		a.AccountID, a.EntityID, a.ReviewID, a.OperatorID, a.OperatorName, a.At = acct.ID, entity, new(int64(7)), maker.ID, maker.Name, now.Add(time.Duration(i)*time.Minute)
		switch a.ActionID {
		case "how-signed":
			signedBy(&a, maker, second)
		case "how-forged":
			signedBy(&a, maker)
			a.Signatures[0].Digest = passkey.DocumentDigest([]byte(`{"action":"approve","review_id":8}`))
		}
		if err := st.PutAudit(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"audit", "--account", strconv.FormatInt(acct.ID, 10), "--entity", strconv.FormatInt(entity, 10)}

	table, stderr, err := runCaptured(t, append(args, "--table")...)
	if err != nil {
		t.Fatalf("audit --table: %v (%s)", err, stderr)
	}
	t.Logf("audit --table:\n%s", table)
	checkTable(t, table, "AT", "ACTION", "BY", "HOW", "ENTITY", "REVIEW", "REASON", "ACTION ID")
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		f := strings.Fields(line)
		rows[f[len(f)-1]] = line
	}
	for _, tc := range []struct{ actionID, how string }{
		{"how-claim", "session " + cred(maker)},
		// The account never accepted declared decisions: it does not count.
		{"how-declared", " declared DOES NOT COUNT "},
		{"how-signed", "passkey: maker " + strconv.FormatInt(maker.ID, 10) + " " + cred(maker) + " verified, second " +
			strconv.FormatInt(second.ID, 10) + " " + cred(second) + " verified"},
		{"how-forged", "passkey: maker " + strconv.FormatInt(maker.ID, 10) + " " + cred(maker) + " DOES NOT VERIFY"},
	} {
		if !strings.Contains(rows[tc.actionID], tc.how) {
			t.Errorf("%s's row %q, want HOW %q", tc.actionID, rows[tc.actionID], tc.how)
		}
	}

	out, stderr, err := runCaptured(t, append(args, "--json")...)
	if err != nil {
		t.Fatalf("audit --json: %v (%s)", err, stderr)
	}
	got := map[string]admin.AuditView{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var v admin.AuditView
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		got[v.ActionID] = v
	}
	for _, tc := range []struct {
		actionID string
		identity domain.Identity
		verified []bool
	}{
		{"how-claim", domain.IdentitySession, nil},
		{"how-declared", domain.IdentityDeclared, []bool{false}},
		{"how-signed", domain.IdentityPasskey, []bool{true, true}},
		{"how-forged", domain.IdentityPasskey, []bool{false}},
	} {
		v := got[tc.actionID]
		var verified []bool
		for _, s := range v.Signatures {
			verified = append(verified, s.Verified)
			if (s.CredentialID == "" && s.Role != passkey.RoleUnsigned) || s.OperatorID == 0 || s.Role == "" || s.Verified != (s.Problem == "") {
				t.Errorf("%s: signature %+v", tc.actionID, s)
			}
		}
		if v.Identity != tc.identity || !slices.Equal(verified, tc.verified) {
			t.Errorf("%s: identity %q, verified %v; want %q, %v", tc.actionID, v.Identity, verified, tc.identity, tc.verified)
		}
	}
	if p := got["how-forged"].Signatures[0].Problem; !strings.Contains(p, "digest") {
		t.Errorf("the forged signature's problem %q does not name the digest", p)
	}
}
