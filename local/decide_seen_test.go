package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/etag"
	"github.com/evs-kyb/evs/shared/schema"
)

// TestDecideSeen: go run ./local decide … --seen ETAG hands the tag to the
// decision: a stale one is refused with StaleView (nothing written), the
// dossier's current one is applied and kept in the audit record.
func TestDecideSeen(t *testing.T) {
	ctx := context.Background()
	// The command line's decisions are declared.
	st, acct, op := cliDecider(t, domain.AccountSettings{DeclaredDecisions: true}, domain.PermReviewDecide)
	names := st.Names()
	review := wfReview(t, st, acct.ID, "7000000840")
	r, _ := st.Review(ctx, acct.ID, review)
	d, err := st.EntityDetail(ctx, acct.ID, r.EntityID)
	if err != nil {
		t.Fatal(err)
	}
	current := dossier.ETag(d.Entity, dossier.FormMarkdown)
	for _, tc := range []struct {
		name, seen, actionID, wantErr string
	}{
		{"stale", etag.Of([]byte("an older dossier")), "cli-stale", domain.FailStaleView},
		{"current, unquoted as a shell leaves it", strings.Trim(current, `"`), "cli-seen", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, err := runCaptured(t, "decide", "start", "--account", strconv.FormatInt(acct.ID, 10),
				"--review", strconv.FormatInt(review, 10), "--operator", strconv.FormatInt(op.ID, 10), "--action-id", tc.actionID, "--seen", tc.seen)
			rec, recErr := st.AuditRecord(ctx, acct.ID, tc.actionID)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error()+stderr, tc.wantErr) {
					t.Fatalf("err %v, stderr %s; want %s", err, stderr, tc.wantErr)
				}
				if recErr == nil {
					t.Error("a refused decision left an audit record")
				}
				return
			}
			if err != nil || !strings.Contains(stdout, `"in_progress"`) {
				t.Fatalf("%v: %s %s", err, stdout, stderr)
			}
			if recErr != nil || rec.SeenETag != tc.seen || rec.DossierETag != current {
				t.Errorf("audit seen %q dossier %q (%v)", rec.SeenETag, rec.DossierETag, recErr)
			}
		})
	}

	// audit --dossier prints the dossier the decision was taken on, byte for
	// byte, and checks it against the hash the chain covers; a Markdown
	// altered in the table fails naming the mismatch.
	want, _ := dossier.Snapshot(d, country.ISO())
	stdout, stderr, err := runCaptured(t, "audit", "--account", strconv.FormatInt(acct.ID, 10), "--dossier", "cli-seen")
	if err != nil || stdout != want || !strings.Contains(stderr, "verified") {
		t.Fatalf("audit --dossier: %v\n%s\n%s", err, stdout, stderr)
	}
	if err := st.DB().Table(names[schema.Audit]).Update("account_id", acct.ID).Range("action_id", "cli-seen").
		Set("dossier_md", strings.Replace(want, "Registration status", "Registration state", 1)).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := runCaptured(t, "audit", "--account", strconv.FormatInt(acct.ID, 10), "--dossier", "cli-seen"); err == nil || !strings.Contains(err.Error()+stderr, "MISMATCH") {
		t.Fatalf("audit --dossier of an altered dossier: %v %s", err, stderr)
	}
}
