package decisions_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/passkey/passkeytest"
)

// The decision document the service writes is the one passkey reads:
// every key of a request is a key of passkey.Document, strictly read, and
// no other. (The two types are kept apart: a verifier reads documents with
// passkey alone.)
func TestDecisionDocumentIsPasskeysDocument(t *testing.T) {
	s := "x"
	req := decisions.Request{Action: domain.ActionUpdateProfile, AccountID: 1, EntityID: 2, ReviewID: 3, OperatorID: 4, ActionID: "a",
		Reason: "r", AssigneeID: 5, RiskLevel: "low", MatchID: "m", Verdict: "v", WebsiteURL: &s, SocialURL: &s, ActivitySummary: &s, Seen: "e",
		PartyOp: "add", PartyID: 6, PartyKind: "person", PartyName: &s, PartyRoles: &s, PartyShares: new(int64(7)), PartyIDType: &s, PartyIDNumber: &s,
		PartyNationality: &s, PartyBirthDate: &s, PartySource: "declared", PartyControls: new(true)}
	d, err := passkey.ReadDocument(string(decisions.DecisionDocument(req)))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	rt := reflect.TypeFor[decisions.Request]()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "-" && name != "signature" {
			want = append(want, name)
		}
	}
	var got []string
	for k := range d.Fields {
		got = append(got, k)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("passkey reads keys %v; a request writes %v", got, want)
	}
	if d.EntityID != 2 || d.ReviewID != 3 || *d.WebsiteURL != "x" || d.Seen != "e" {
		t.Errorf("read %+v", d)
	}
}

// A signed decision's document names the review's entity, or it is
// refused before anything is written: naming none (its record would count
// for nothing), or another entity.
func TestSignedDecisionsNameTheirEntity(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	other, _ := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	_, r := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	for _, tc := range []struct {
		name    string
		entity  int64
		failure string
	}{
		{"no entity", 0, domain.FailSignatureRequired},
		{"another entity", other.ID, domain.FailInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := w.req(domain.ActionStart, r.ID, w.world.decider)
			req.EntityID = tc.entity
			req = signed(t, w.decider, passkey.PurposeDecision, req)
			if _, err := w.svc.Validate(ctx, req); domain.FailureName(err) != tc.failure {
				t.Errorf("validate: %v, want %s", err, tc.failure)
			}
			if _, _, err := w.svc.Apply(ctx, req, nil); domain.FailureName(err) != tc.failure {
				t.Errorf("apply: %v, want %s", err, tc.failure)
			}
			if _, err := w.st.AuditRecord(ctx, w.account, req.ActionID); err == nil {
				t.Errorf("a refused decision wrote its audit record")
			}
		})
	}
}

// Each action that takes fields of its own, signed and applied, writes a
// record that names those fields as asked, and so counts by the one rule
// its verifiers apply.
func TestSignedRecordsNameTheirFields(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	assigner, editor := w.enrol(t, w.account, w.assigner), w.enrol(t, w.account, w.edit)
	site := "https://decided.example"
	for _, tc := range []struct {
		name string
		by   *passkeytest.Operator
		edit func(*decisions.Request)
		want map[string]any
	}{
		{"assign", assigner, func(r *decisions.Request) { r.Action, r.AssigneeID, r.Reason = domain.ActionAssign, w.world.second, "" },
			map[string]any{domain.FieldAssignee: float64(w.world.second)}},
		{"assess_risk, the level unchanged", w.sibling, func(r *decisions.Request) { r.Action, r.RiskLevel, r.Reason = domain.ActionAssessRisk, "low", "" },
			map[string]any{domain.FieldRisk: "low"}},
		{"adjudicate_match", w.decider, func(r *decisions.Request) {
			r.Action, r.MatchID, r.Verdict, r.Reason = domain.ActionAdjudicateMatch, "NK-weak", domain.VerdictFalsePositive, ""
		}, map[string]any{domain.FieldMatch: "NK-weak", domain.FieldVerdict: domain.VerdictFalsePositive}},
		{"update_profile", editor, func(r *decisions.Request) { r.Action, r.WebsiteURL, r.Reason = domain.ActionUpdateProfile, &site, "" },
			map[string]any{domain.FieldWebsite: site}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ent, r := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview, approvable)
			req := w.req(domain.ActionStart, r.ID, tc.by.ID)
			tc.edit(&req)
			req = signed(t, tc.by, passkey.PurposeDecision, req)
			if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
				t.Fatalf("apply: %v", err)
			}
			rec, err := w.st.AuditRecord(ctx, w.account, req.ActionID)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if rec.After[k] != v {
					t.Errorf("after[%s] = %v, want %v (after %v)", k, rec.After[k], v, rec.After)
				}
			}
			counts(t, w, ent.ID, req.ActionID)
		})
	}
}
