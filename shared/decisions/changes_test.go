package decisions_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
)

type fixedRegistry checks.RegistryRecord

func (f fixedRegistry) Lookup(context.Context, string) (checks.RegistryRecord, error) {
	return checks.RegistryRecord(f), nil
}

type fixedScreener []checks.ScreeningMatch

func (f fixedScreener) Screen(_ context.Context, q checks.ScreeningQuery) (checks.ScreeningResult, error) {
	return (&checks.Yente{}).Read(q.Reference, checks.YenteQueryResponse{Status: 200, Results: f}), nil
}

// TestQueueChecksRecordsChanges: queue_checks' screening records, against
// the entity's previous screening, the matches added and removed; its
// registry lookup, with no previous lookup, records none.
func TestQueueChecksRecordsChanges(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	w.svc = &decisions.Service{Store: w.st, Clock: domain.SystemClock, Checker: &checks.Runner{
		Clock:      domain.SystemClock,
		Registries: map[string]checks.Registry{checks.ProviderWathq: fixedRegistry{Found: true, Name: "Decided Holding", StatusID: "active", Status: domain.RegistrationValid}},
		Screeners: map[string]checks.Screener{checks.ProviderOpenSanctions: fixedScreener{
			{ID: "NK-weak", Score: 0.75}, {ID: "NK-new", Score: 0.95},
		}},
	}}
	ent, rev := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview)
	before, err := w.st.EntityChecks(ctx, w.account, ent.ID, ent.ChecksCount)
	if err != nil || len(before) != 1 {
		t.Fatalf("checks before: %v %v", before, err)
	}
	if _, _, err := w.svc.Apply(ctx, w.req(domain.ActionQueueChecks, rev.ID, w.decider), nil); err != nil {
		t.Fatal(err)
	}
	ent, err = w.st.Entity(ctx, w.account, ent.ID)
	if err != nil {
		t.Fatal(err)
	}
	after, err := w.st.EntityChecks(ctx, w.account, ent.ID, ent.ChecksCount)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		typ  domain.CheckType
		want any
	}{
		{domain.CheckOrganizationScreening, map[string]any{
			"previous_check_id": float64(before[0].ID),
			"matches_added":     []any{map[string]any{"id": "NK-new", "score": 0.95}},
			"matches_removed":   []any{map[string]any{"id": "NK-other", "score": 0.72}},
		}},
		{domain.CheckRegistryLookup, nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			var got any
			found := false
			for _, c := range after {
				if c.Type == tt.typ && c.ID != before[0].ID {
					got, found = c.Result["changes"], true
				}
			}
			if !found {
				t.Fatalf("no re-run %s check in %+v", tt.typ, after)
			}
			if !reflect.DeepEqual(normalise(got), normalise(tt.want)) {
				t.Errorf("changes %#v\nwant    %#v", got, tt.want)
			}
		})
	}
}

// normalise makes stored numbers comparable (DynamoDB gives them back as
// float64).
func normalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalise(e)
		}
		return out
	case []any:
		out := []any{}
		for _, e := range x {
			out = append(out, normalise(e))
		}
		return out
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return v
}

// TestRegisterRenameIsInTheTrail: when the checks run again and the
// register now gives the business another name, the queue_checks record's
// before and after show the legal name and the names changing, so the
// rename is in the trail (not only on the entity).
func TestRegisterRenameIsInTheTrail(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	w.svc = &decisions.Service{Store: w.st, Clock: domain.SystemClock, Checker: &checks.Runner{
		Clock:      domain.SystemClock,
		Registries: map[string]checks.Registry{checks.ProviderWathq: fixedRegistry{Found: true, Name: "شركة الاسم الجديد", NameEn: "New Name Trading", StatusID: "active", Status: domain.RegistrationValid}},
		Screeners:  map[string]checks.Screener{checks.ProviderOpenSanctions: fixedScreener{}},
	}}
	ent, rev := w.entity(t, domain.ReviewInProgress, domain.EntityReadyForReview, func(d *domain.EntityDetail) {
		d.Entity.Names = []domain.EntityName{{Name: "Decided Co", Source: domain.NameRegister}}
	})
	req := w.req(domain.ActionQueueChecks, rev.ID, w.decider)
	if _, _, err := w.svc.Apply(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	rec, err := w.st.AuditRecord(ctx, w.account, req.ActionID)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ field, before, after string }{
		{"legal_name", "Decided Co", "شركة الاسم الجديد"},
		{"names", "Decided Co (the register's legal name)", "شركة الاسم الجديد (the register's legal name); New Name Trading (the register's Latin name)"},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			if b, a := rec.Before[tt.field], rec.After[tt.field]; b != tt.before || a != tt.after {
				t.Errorf("%s before %q after %q; want %q → %q (record %+v)", tt.field, b, a, tt.before, tt.after, rec)
			}
		})
	}
	if got, _ := w.st.Entity(ctx, w.account, ent.ID); got.LegalName != "شركة الاسم الجديد" {
		t.Errorf("entity legal name %q", got.LegalName)
	}
}
