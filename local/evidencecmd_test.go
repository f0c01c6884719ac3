package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/recordslayout"
	"github.com/evs-kyb/evs/shared/schema"
)

// TestEvidenceCommand: evidence prints a check's kept answer byte for byte
// and verifies it; once the stored bytes are tampered with it fails naming
// the mismatch, and once body, hash and the check's hash are rewritten
// together, names the body locked on receipt; a check with nothing kept is
// not found.
func TestEvidenceCommand(t *testing.T) {
	ctx := context.Background()
	st, names := cliStore(t)
	now := domain.Now()
	acct, err := st.CreateAccount(ctx, "Evidence CLI", now)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte("{\"cr_info\":{\"cr_name\":\"\xd8\xb4\xd8\xb1\xd9\x83\xd8\xa9\"}}\xff")
	ev := domain.NewEvidence("wathq", "GET", "https://api.wathq.sa/v4/commercialregistration/info/7001234567", 200, body, now)
	out, err := st.CreateEntity(ctx, domain.EntityDetail{
		Entity: domain.Entity{AccountID: acct.ID, RegistrationNumber: "7001234567", LegalName: "Al Noor", CountryCode: "SA", CountryID: 682,
			Status: domain.EntityDraft, RegistrationStatus: domain.RegistrationUnknown, SanctionsStatus: domain.SanctionsNotRun, CreatedAt: now, UpdatedAt: now},
		Checks: []domain.Check{{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted,
			Result: map[string]any{"evidence": ev.ResultMap()}, CreatedAt: now, UpdatedAt: now, Evidence: ev}},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkID := out.Checks[0].ID
	// The body as the records store locked it on receipt (audit-export's
	// stream), where no role can rewrite it.
	locked := records.Dir{Root: t.TempDir()}
	t.Setenv("EVS_RECORDS_DIR", locked.Root)
	lockedKey := recordslayout.EvidenceKey(acct.ID, checkID, ev.SHA256)
	if _, err := locked.Put(ctx, lockedKey, body); err != nil {
		t.Fatal(err)
	}
	forged := []byte(`{"cr_info":{"cr_name":"someone else"}}`)
	forgedEv := domain.NewEvidence("wathq", ev.Method, ev.URL, 200, forged, now)
	replaceEvidence := func() error {
		return st.DB().Table(names[schema.Evidence]).Update("account_id", acct.ID).Range("check_id", checkID).
			Set("body", forged).Set("sha256", forgedEv.SHA256).Set("size", len(forged)).Run(ctx)
	}

	tests := []struct {
		name    string
		check   int64
		tamper  func() error
		wantErr string // "" when it verifies
	}{
		{name: "kept and verified", check: checkID},
		{name: "nothing kept", check: checkID + 100, wantErr: "NotFound"},
		{name: "tampered", check: checkID, tamper: func() error {
			return st.DB().Table(names[schema.Evidence]).Update("account_id", acct.ID).Range("check_id", checkID).Set("body", append([]byte("X"), body[1:]...)).Run(ctx)
		}, wantErr: "sha256 mismatch"},
		// Body, hash and size replaced together in the evidence table: the
		// check's own result still records the hash received.
		{name: "replaced whole", check: checkID, tamper: replaceEvidence, wantErr: "the evidence was replaced"},
		// And the check's recorded hash with them: all DynamoDB says
		// agrees, and only the locked body tells.
		{name: "replaced with the check's hash too", check: checkID, tamper: func() error {
			if err := replaceEvidence(); err != nil {
				return err
			}
			return st.DB().Table(names[schema.Checks]).Update("account_id", acct.ID).Range("check_id", checkID).
				Set("result", map[string]any{"evidence": forgedEv.ResultMap()}).Run(ctx)
		}, wantErr: "does not verify against its locked copy " + lockedKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.tamper != nil {
				if err := tt.tamper(); err != nil {
					t.Fatal(err)
				}
			}
			stdout, stderr, err := runCaptured(t, "evidence", "--check", strconv.FormatInt(tt.check, 10), "--account", strconv.FormatInt(acct.ID, 10))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if stdout != string(body) {
				t.Errorf("stdout %q, want the bytes received %q", stdout, body)
			}
			if !strings.Contains(stderr, "verified") || !strings.Contains(stderr, ev.SHA256) || !strings.Contains(stderr, ev.URL) {
				t.Errorf("stderr: %s", stderr)
			}
		})
	}
}
