package seed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// answeredWith is the HTTP status the provider answered c with, or 0 when
// it did not answer (pending, running, timed out).
func answeredWith(c domain.Check) int {
	switch {
	case c.Status == domain.CheckCompleted:
		return http.StatusOK
	case c.Status == domain.CheckFailed && c.ProviderStatus != "timeout":
		code, _ := strconv.Atoi(c.ProviderStatus)
		return code
	}
	return 0
}

// checkEvidence asserts that every check of d its provider answered carries
// the answer, that its result records that answer's hash, size, status and
// time, and that the body reads as the provider's format and says what the
// result says; a check with no answer carries none.
func checkEvidence(t *testing.T, d domain.EntityDetail) {
	t.Helper()
	for i, c := range d.Checks {
		name := fmt.Sprintf("%q check %d (%s %s %s)", d.Entity.LegalName, i, c.Type, c.Status, c.ProviderStatus)
		status := answeredWith(c)
		recorded, hasRecord := c.Result["evidence"].(map[string]any)
		if status == 0 {
			if c.Evidence != nil || hasRecord {
				t.Errorf("%s: evidence without an answer", name)
			}
			continue
		}
		ev := c.Evidence
		if ev == nil || !hasRecord {
			t.Errorf("%s: answered %d but evidence %v, result %v", name, status, ev, c.Result)
			continue
		}
		if ok, got := ev.Verify(); !ok || !ev.Stored {
			t.Errorf("%s: body hashes to %s, evidence says %s (stored %v)", name, got, ev.SHA256, ev.Stored)
		}
		want := map[string]any{
			"provider": c.ProviderKey, "http_status": status, "sha256": ev.SHA256, "size": len(ev.Body),
			"received_at": domain.FormatTime(*c.CheckedAt), "stored": true,
		}
		for k, v := range want {
			if recorded[k] != v {
				t.Errorf("%s: result's evidence %s = %v, want %v", name, k, recorded[k], v)
			}
		}
		if ev.HTTPStatus != status || !ev.ReceivedAt.Equal(*c.CheckedAt) {
			t.Errorf("%s: evidence status %d at %v", name, ev.HTTPStatus, ev.ReceivedAt)
		}
		readAs[readKey{c.Type, status == http.StatusOK}](t, name, d.Entity, c)
	}
}

type readKey struct {
	typ domain.CheckType
	ok  bool
}

// readAs reads a body as its provider's format and compares it with the
// check's result.
var readAs = map[readKey]func(t *testing.T, name string, e domain.Entity, c domain.Check){
	{domain.CheckRegistryLookup, true}:         readWathq,
	{domain.CheckOrganizationScreening, true}:  readYente,
	{domain.CheckRegistryLookup, false}:        readError("code", "message"),
	{domain.CheckOrganizationScreening, false}: readError("detail"),
}

func readWathq(t *testing.T, name string, e domain.Entity, c domain.Check) {
	t.Helper()
	// The current API's fullinfo answer (providers.md): its status an id the
	// register's lookup names.
	var body struct {
		Name             string `json:"name"`
		CRNationalNumber string `json:"crNationalNumber"`
		Status           struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		} `json:"status"`
	}
	if err := json.Unmarshal(c.Evidence.Body, &body); err != nil {
		t.Errorf("%s: not a Wathq answer: %v", name, err)
		return
	}
	var named string
	for _, row := range sim.WathqStatusLookup() {
		if row["id"] == body.Status.ID {
			named = strings.ToLower(row["nameEn"].(string))
		}
	}
	if body.Name != e.LegalName || body.Name != c.Result["legal_name"] || body.CRNationalNumber != e.RegistrationNumber ||
		named == "" || named != c.Result["status"] || body.Status.Name == "" {
		t.Errorf("%s: Wathq answer %+v (status %q), result %v", name, body, named, c.Result)
	}
}

func readYente(t *testing.T, name string, e domain.Entity, c domain.Check) {
	t.Helper()
	var body checks.YenteResponse
	if err := json.Unmarshal(c.Evidence.Body, &body); err != nil || len(body.Responses) != 1 {
		t.Errorf("%s: not a yente answer to one query (%v): %s", name, err, c.Evidence.Body)
		return
	}
	for ref, qr := range body.Responses {
		got := checks.ScreeningResultMap((&checks.Yente{}).Read(ref, qr))
		for _, k := range []string{"status", "matched", "matches_count", "top_score", "threshold", "algorithm", "dataset"} {
			if fmt.Sprint(got[k]) != fmt.Sprint(c.Result[k]) {
				t.Errorf("%s: the answer reads %s %v, the result says %v", name, k, got[k], c.Result[k])
			}
		}
		if fmt.Sprint(got["matches"]) != fmt.Sprint(c.Result["matches"]) {
			t.Errorf("%s: the answer's matches %v, the result's %v", name, got["matches"], c.Result["matches"])
		}
	}
}

// readError reads a provider's error answer: a JSON object with the keys.
func readError(keys ...string) func(t *testing.T, name string, e domain.Entity, c domain.Check) {
	return func(t *testing.T, name string, _ domain.Entity, c domain.Check) {
		t.Helper()
		var body map[string]any
		if err := json.Unmarshal(c.Evidence.Body, &body); err != nil {
			t.Errorf("%s: error answer %q: %v", name, c.Evidence.Body, err)
			return
		}
		for _, k := range keys {
			if s, _ := body[k].(string); s == "" {
				t.Errorf("%s: error answer %s without %s", name, c.Evidence.Body, k)
			}
		}
	}
}

func TestDemoEvidence(t *testing.T) {
	for _, n := range sizes {
		for _, d := range Demo(testNow, n) {
			checkEvidence(t, d)
		}
	}
}

// TestDemoEvidenceCoverage: the demo shows every kind of answer, and checks
// that got none.
func TestDemoEvidenceCoverage(t *testing.T) {
	seen := map[string]int{}
	for _, d := range Demo(testNow, 1000) {
		for _, c := range d.Checks {
			kind := fmt.Sprintf("%s/%v", c.Type, c.Result["status"])
			if c.Status == domain.CheckFailed {
				kind = fmt.Sprintf("%s/failed/%s", c.Type, c.ProviderStatus)
			}
			if c.Evidence != nil {
				kind += "/evidence"
			}
			seen[kind]++
		}
	}
	want := []string{
		"registry_lookup/active/evidence", "registry_lookup/suspended/evidence", "registry_lookup/expired/evidence",
		"registry_lookup/cancelled/evidence", "registry_lookup/failed/503/evidence", "registry_lookup/failed/429/evidence",
		"registry_lookup/failed/timeout", "registry_lookup/pending", "registry_lookup/running",
		"organization_screening/clear/evidence", "organization_screening/hit/evidence", "organization_screening/needs_review/evidence",
		"organization_screening/failed/503/evidence", "organization_screening/failed/429/evidence",
		"organization_screening/failed/timeout", "organization_screening/pending", "organization_screening/running",
	}
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("no %s (seen %v)", k, seen)
		}
	}
}

// TestDemoEvidenceBytes: an answer's bytes depend on the entity's position
// alone, like the rest of its content; only when it was received moves
// with n.
func TestDemoEvidenceBytes(t *testing.T) {
	small, large := Demo(testNow, 120), Demo(testNow, 400)
	for i := range small {
		for k, c := range small[i].Checks {
			other := large[i].Checks[k].Evidence
			if (c.Evidence == nil) != (other == nil) || c.Evidence != nil && !bytes.Equal(c.Evidence.Body, other.Body) {
				t.Fatalf("entity %d check %d: answers differ between n=120 and n=400", i, k)
			}
		}
	}
}
