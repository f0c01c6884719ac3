package decisions_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/etag"
)

// legal is, for each action, a review (and entity) it is legal on and the
// request that takes it.
type legal struct {
	from       domain.ReviewStatus
	entityFrom domain.EntityStatus
	operator   func(*world) int64
	edit       func(*decisions.Request, *world)
}

// prepFor makes an entity one the decision policy allows the action on.
func prepFor(a domain.Action) []func(*domain.EntityDetail) {
	if a == domain.ActionApprove {
		return []func(*domain.EntityDetail){approvable}
	}
	return nil
}

func legalActions() map[domain.Action]legal {
	decider := func(w *world) int64 { return w.decider }
	return map[domain.Action]legal{
		domain.ActionAssign: {domain.ReviewOpen, "", func(w *world) int64 { return w.assigner },
			func(r *decisions.Request, w *world) { r.AssigneeID = w.second }},
		domain.ActionStart:         {domain.ReviewOpen, "", decider, nil},
		domain.ActionEscalate:      {domain.ReviewInProgress, "", decider, nil},
		domain.ActionEscalateToAML: {domain.ReviewEscalated, "", decider, nil},
		domain.ActionApprove:       {domain.ReviewInProgress, "", decider, nil},
		domain.ActionReject:        {domain.ReviewInProgress, "", decider, nil},
		domain.ActionCancel:        {domain.ReviewOpen, "", decider, nil},
		domain.ActionQueueChecks:   {domain.ReviewOpen, "", decider, nil},
		domain.ActionAdjudicateMatch: {domain.ReviewInProgress, "", decider,
			func(r *decisions.Request, _ *world) { r.MatchID, r.Verdict = "NK-weak", domain.VerdictFalsePositive }},
		domain.ActionAssessRisk: {domain.ReviewCompleted, "", func(w *world) int64 { return w.risk },
			func(r *decisions.Request, _ *world) { r.RiskLevel = "high" }},
		domain.ActionUpdateProfile: {domain.ReviewOpen, "", func(w *world) int64 { return w.edit },
			func(r *decisions.Request, _ *world) { r.WebsiteURL = new("https://seen.example.sa") }},
		domain.ActionOpenPeriodicReview: {domain.ReviewCompleted, domain.EntityApproved, decider, nil},
		domain.ActionEndRelationship:    {domain.ReviewCompleted, domain.EntityApproved, decider, nil},
		domain.ActionRecordParty: {domain.ReviewInProgress, "", decider, func(r *decisions.Request, _ *world) {
			r.PartyOp, r.PartyKind, r.PartyName, r.PartyRoles, r.PartySource = domain.PartyOpAdd, "person", new("Seen Declared"), new("manager"), "declared"
		}},
	}
}

// TestSeen: every kind of decision bound to a view of the dossier is
// refused with StaleView, writing nothing, when the view is not the
// dossier's current ETag (as the API answers it), and is applied when it
// is, its audit record keeping the tag seen and the tag decided on.
func TestSeen(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	legals := legalActions()
	for _, action := range domain.Actions() {
		l, ok := legals[action]
		if !ok {
			t.Fatalf("no legal request for %s: add one", action)
		}
		t.Run(string(action), func(t *testing.T) {
			entityFrom := l.entityFrom
			if entityFrom == "" {
				entityFrom = domain.EntityReadyForReview
			}
			e, r := w.entity(t, l.from, entityFrom, prepFor(action)...)
			detail, err := w.st.EntityDetail(ctx, w.account, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			current := dossier.ETag(detail.Entity, dossier.FormMarkdown)
			request := func(seen string) decisions.Request {
				req := w.req(action, r.ID, l.operator(w))
				if l.edit != nil {
					l.edit(&req, w)
				}
				req.Seen = seen
				return req
			}

			stale := etag.Of([]byte("an older dossier"))
			if _, err := w.svc.Validate(ctx, request(stale)); domain.FailureName(err) != domain.FailStaleView {
				t.Errorf("Validate with a stale view: %v, want StaleView", err)
			}
			_, _, err = w.svc.Apply(ctx, request(stale), nil)
			if domain.FailureName(err) != domain.FailStaleView || !strings.Contains(err.Error(), current) {
				t.Fatalf("Apply with a stale view: %v, want StaleView naming %s", err, current)
			}
			after, _ := w.st.Review(ctx, w.account, r.ID)
			ent, _ := w.st.Entity(ctx, w.account, e.ID)
			trail, _ := w.st.AuditTrail(ctx, w.account, e.ID)
			if after.Version != r.Version || ent.Version != e.Version || len(trail) != 0 {
				t.Fatalf("a stale view wrote: review v%d, entity v%d, %d audit records", after.Version, ent.Version, len(trail))
			}

			req := request("W/" + current) // any spelling the API's tag may come back in
			if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
				t.Fatalf("Apply with the current view: %v", err)
			}
			rec, err := w.st.AuditRecord(ctx, w.account, req.ActionID)
			if err != nil || rec.SeenETag != req.Seen || rec.DossierETag != current {
				t.Errorf("audit seen %q dossier %q (%v), want %q and %s", rec.SeenETag, rec.DossierETag, err, req.Seen, current)
			}
		})
	}
}

// TestUnseen: without a view named, decisions work as before, and the
// audit record still keeps the dossier's ETag as decided.
func TestUnseen(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	e, r := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
	detail, err := w.st.EntityDetail(ctx, w.account, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	req := w.req(domain.ActionStart, r.ID, w.decider)
	if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	rec, err := w.st.AuditRecord(ctx, w.account, req.ActionID)
	if err != nil || rec.SeenETag != "" || rec.DossierETag != dossier.ETag(detail.Entity, dossier.FormMarkdown) {
		t.Errorf("audit seen %q dossier %q (%v)", rec.SeenETag, rec.DossierETag, err)
	}
	// The snapshot is of the Markdown as decided on, before the decision,
	// and kept with its hash.
	if md, want := dossier.Snapshot(detail, country.ISO()); rec.DossierSHA256 != want || rec.DossierMarkdown != md {
		t.Errorf("audit dossier_sha256 %q with %d bytes kept, want %q with %d", rec.DossierSHA256, len(rec.DossierMarkdown), want, len(md))
	}
}

// TestPinnedDossier: the store refuses a decision bound to a view whose
// entity's dossier moved past the revision read, and writes nothing: after
// a write to the entity, and after a decision that changed only a review
// (the decided one or another), which writes the entity's revision too.
func TestPinnedDossier(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	for _, tc := range []struct {
		name  string
		moved func(t *testing.T, e domain.Entity, r domain.Review) // a write between the read and the decision
		want  error
	}{
		{"as read", func(*testing.T, domain.Entity, domain.Review) {}, nil},
		{"its review changed alone", func(t *testing.T, _ domain.Entity, r domain.Review) {
			req := w.req(domain.ActionAssign, r.ID, w.assigner)
			req.AssigneeID = w.second
			if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
				t.Fatal(err)
			}
		}, domain.ErrStale},
		{"the entity changed", func(t *testing.T, e domain.Entity, r domain.Review) {
			req := w.req(domain.ActionUpdateProfile, r.ID, w.edit)
			req.WebsiteURL = new("https://moved.example.sa")
			if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
				t.Fatal(err)
			}
		}, domain.ErrStale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, r := w.entity(t, domain.ReviewOpen, domain.EntityReadyForReview)
			tc.moved(t, e, r)
			pinned := e
			d := domain.Decision{Audit: domain.AuditRecord{AccountID: w.account, ActionID: "pin-" + strings.ReplaceAll(tc.name, " ", "-"), Action: domain.ActionStart,
				OperatorID: w.decider, ReviewID: &r.ID, EntityID: e.ID, At: t0}, Pinned: &pinned}
			if err := w.st.ApplyDecision(ctx, d); !errors.Is(err, tc.want) && (err != nil || tc.want != nil) {
				t.Fatalf("ApplyDecision = %v, want %v", err, tc.want)
			}
			_, err := w.st.AuditRecord(ctx, w.account, d.Audit.ActionID)
			if written := err == nil; written != (tc.want == nil) {
				t.Errorf("audit record written %v", written)
			}
		})
	}
}
