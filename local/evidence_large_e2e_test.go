package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// TestLargeEvidenceEndToEnd: a registry answer over the 350 KB an evidence
// item holds, through a create on the local gateway, is kept whole: its
// object in the local evidence directory (the evidence bucket's stand-in)
// under evidence/<account>/<check>/<sha256>, the item holding its key and
// no body, the check's evidence stored. go run ./local evidence prints it
// byte for byte and verifies it; the object changed on disk is a sha256
// mismatch, and removed, an error naming it.
func TestLargeEvidenceEndToEnd(t *testing.T) {
	ctx := context.Background()
	st, names := cliStore(t)
	dir := t.TempDir()
	t.Setenv("EVS_EVIDENCE_DIR", dir)
	e := &env{store: st, log: quietLogger()}
	acct := mustAccount(t, e, "Large answers", "SA")
	key := mustKey(t, e, acct, domain.PermEntityView, domain.PermEntityCreate)

	s := &sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine(), RegistryPadding: 400 << 10}
	simSrv := httptest.NewServer(s)
	t.Cleanup(simSrv.Close)
	gw := httptest.NewServer(newGateway(st, quietLogger(), simulatorProviders(simSrv.URL)))
	t.Cleanup(gw.Close)

	body, _ := json.Marshal(map[string]any{"entity": map[string]any{"registration_number": "7001234560", "country_code": "SA", "legal_name": "Al Noor"}})
	r := send(t, "POST", gw.URL+"/api/v1/entities", key, body, "Content-Type", "application/json")
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	registry := checksByType(t, r.json(t))[string(domain.CheckRegistryLookup)]
	ev, _ := registry["result"].(map[string]any)["evidence"].(map[string]any)
	size, _ := ev["size"].(float64)
	if ev["stored"] != true || ev["stored_reason"] != nil || int(size) <= domain.MaxInlineEvidence {
		t.Fatalf("evidence %v, want a stored answer over 350 KB", ev)
	}
	checkID := int64(registry["id"].(float64))
	sum := ev["sha256"].(string)

	// The item: metadata and where the body is, no body.
	var item map[string]any
	if err := st.DB().Table(names[schema.Evidence]).Get("account_id", acct).Range("check_id", dynamo.Equal, checkID).One(ctx, &item); err != nil {
		t.Fatal(err)
	}
	objKey := domain.EvidenceObjectKey(acct, checkID, sum)
	if _, has := item["body"]; has || item["body_key"] != objKey {
		t.Fatalf("item keys %v, body_key %v: want body_key %s and no body", keysOf(item), item["body_key"], objKey)
	}
	path := filepath.Join(dir, filepath.FromSlash(objKey))
	kept, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	args := []string{"evidence", "--check", strconv.FormatInt(checkID, 10), "--account", strconv.FormatInt(acct, 10)}
	tests := []struct {
		name    string
		change  func(t *testing.T)
		wantErr string
	}{
		{name: "kept and verified"},
		{name: "object changed", change: func(t *testing.T) {
			changed := append([]byte(nil), kept...)
			changed[len(changed)/2] ^= 1
			if err := os.WriteFile(path, changed, 0o600); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "sha256 mismatch"},
		{name: "object removed", change: func(t *testing.T) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "missing from the evidence bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.change != nil {
				tt.change(t)
			}
			stdout, stderr, err := runCaptured(t, args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q\n%s", err, tt.wantErr, stderr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			got := sha256.Sum256([]byte(stdout))
			if hex.EncodeToString(got[:]) != sum || len(stdout) != int(size) || stdout != string(kept) {
				t.Errorf("stdout: %d bytes, not the %d received", len(stdout), int(size))
			}
			if !strings.Contains(stdout, `"crNationalNumber"`) || !strings.Contains(stderr, "verified") || !strings.Contains(stderr, sum) {
				t.Errorf("stdout starts %.60q; stderr: %s", stdout, stderr)
			}
		})
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
