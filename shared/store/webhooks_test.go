package store_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

func endpointAudit(accountID int64, actionID string, action domain.Action) domain.AuditRecord {
	return domain.AuditRecord{AccountID: accountID, ActionID: actionID, Action: action, OperatorName: "admin", At: t0}
}

func TestEndpointRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st)
	until := t0.Add(time.Hour)
	in := domain.Endpoint{AccountID: acct, URL: "https://hooks.example.com/evs", Events: []domain.EventType{domain.EventRejected, domain.EventApproved},
		Active: true, Secret: "s1", PreviousSecret: "s0", PreviousExpiresAt: &until, Description: "ERP", CreatedAt: t0, UpdatedAt: t0}
	ep, err := st.CreateEndpoint(ctx, in, endpointAudit(acct, "c-1", domain.ActionEndpointCreate))
	if err != nil {
		t.Fatal(err)
	}
	if ep.ID == 0 || ep.Version != 1 {
		t.Fatalf("created %+v", ep)
	}
	got, err := st.Endpoint(ctx, acct, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got.Events)
	want := ep
	want.Events = []domain.EventType{domain.EventApproved, domain.EventRejected}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stored\n got %+v\nwant %+v", got, want)
	}
	rec, err := st.AuditRecord(ctx, acct, "c-1")
	if err != nil || rec.After["endpoint_id"] != float64(ep.ID) {
		t.Errorf("audit %+v (%v)", rec, err)
	}

	tests := []struct {
		name string
		run  func() error
		want error
		code string
	}{
		{"create in a missing account", func() error {
			e := in
			e.AccountID = 987654
			_, err := st.CreateEndpoint(ctx, e, endpointAudit(987654, "c-2", domain.ActionEndpointCreate))
			return err
		}, nil, domain.ECodeNotFound},
		{"create with a used action id", func() error {
			_, err := st.CreateEndpoint(ctx, in, endpointAudit(acct, "c-1", domain.ActionEndpointCreate))
			return err
		}, domain.ErrDuplicateAction, ""},
		{"update with a used action id", func() error {
			_, err := st.UpdateEndpoint(ctx, ep, endpointAudit(acct, "c-1", domain.ActionEndpointUpdate))
			return err
		}, domain.ErrDuplicateAction, ""},
		{"update at a stale version", func() error {
			e := ep
			e.Version = 7
			_, err := st.UpdateEndpoint(ctx, e, endpointAudit(acct, "u-1", domain.ActionEndpointUpdate))
			return err
		}, domain.ErrStale, ""},
		{"update a missing endpoint", func() error {
			e := ep
			e.ID = 999
			_, err := st.UpdateEndpoint(ctx, e, endpointAudit(acct, "u-2", domain.ActionEndpointUpdate))
			return err
		}, domain.ErrStale, ""},
		{"delete with a used action id", func() error {
			return st.DeleteEndpoint(ctx, acct, ep.ID, ep.Version, endpointAudit(acct, "c-1", domain.ActionEndpointDelete))
		}, domain.ErrDuplicateAction, ""},
		{"delete at a stale version", func() error {
			return st.DeleteEndpoint(ctx, acct, ep.ID, 3, endpointAudit(acct, "d-1", domain.ActionEndpointDelete))
		}, domain.ErrStale, ""},
		{"get another account's endpoint", func() error {
			_, err := st.Endpoint(ctx, acct+1, ep.ID)
			return err
		}, nil, domain.ECodeNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if tc.want != nil && !errors.Is(err, tc.want) || tc.code != "" && domain.ErrorCode(err) != tc.code {
				t.Errorf("err = %v, want %v %s", err, tc.want, tc.code)
			}
		})
	}
	if got, _ := st.Endpoint(ctx, acct, ep.ID); got.Version != 1 {
		t.Errorf("endpoint changed: %+v", got)
	}
	eps, err := st.Endpoints(ctx, acct, domain.ReadStrong)
	if err != nil || len(eps) != 1 {
		t.Errorf("endpoints %+v (%v)", eps, err)
	}
}

func delivery(accountID int64, id string, at time.Time) domain.Delivery {
	return domain.Delivery{AccountID: accountID, ID: id, Attempt: 1, EndpointID: 3, EventID: "evt_1", URL: "https://hooks.example.com/evs",
		Event:     domain.Event{EventType: domain.EventApproved, EntityReviewID: 20, EntityID: 10, AccountID: accountID, Outcome: new("approved"), OccurredAt: "2026-11-01T09:00:00.000Z"},
		Payload:   []byte(`{"event_type":"entity_review.approved","entity_review_id":20}`), // opaque to the store
		CreatedAt: at}
}

func TestClaimDelivery(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct := newAccount(t, st)
	lease := time.Minute
	d := delivery(acct, "dlv_1", t0)

	steps := []struct {
		name   string
		at     time.Time
		want   domain.ClaimResult
		status domain.DeliveryStatus
	}{
		{"first claim", t0, domain.Claimed, domain.DeliverySending},
		{"a duplicate within the lease", t0.Add(lease - time.Millisecond), domain.AlreadyClaimed, domain.DeliverySending},
		{"a duplicate after the lease", t0.Add(lease), domain.Interrupted, domain.DeliveryFailed},
		{"and again", t0.Add(2 * lease), domain.AlreadyClaimed, domain.DeliveryFailed},
	}
	for _, s := range steps {
		got, res, err := st.ClaimDelivery(ctx, d, s.at, lease)
		if err != nil || res != s.want || got.Status != s.status {
			t.Errorf("%s: %v %s (%v), want %v %s", s.name, res, got.Status, err, s.want, s.status)
		}
	}
	got, err := st.Delivery(ctx, acct, "dlv_1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.DeliveryFailed || got.Error == "" || got.CompletedAt == nil || !got.CompletedAt.Equal(t0.Add(lease)) ||
		!got.StartedAt.Equal(t0) || got.OriginalID != "dlv_1" || got.Attempts != 1 {
		t.Errorf("recorded %+v", got)
	}
	if err := st.FinishDelivery(ctx, got); !errors.Is(err, domain.ErrStale) {
		t.Errorf("finish a failed attempt: %v", err)
	}

	// A finished attempt is claimed once, and its result recorded once.
	d2 := delivery(acct, "dlv_2", t0)
	claimed, res, err := st.ClaimDelivery(ctx, d2, t0, lease)
	if err != nil || res != domain.Claimed {
		t.Fatal(res, err)
	}
	done := t0.Add(time.Second)
	claimed.Status, claimed.CompletedAt, claimed.ResponseStatus, claimed.ResponseBody, claimed.DurationMS = domain.DeliveryDelivered, &done, 204, "", 12
	if err := st.FinishDelivery(ctx, claimed); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishDelivery(ctx, claimed); !errors.Is(err, domain.ErrStale) {
		t.Errorf("finish twice: %v", err)
	}
	if _, res, _ := st.ClaimDelivery(ctx, d2, t0.Add(time.Hour), lease); res != domain.AlreadyClaimed {
		t.Errorf("claim a delivered attempt: %v", res)
	}
	got, _ = st.Delivery(ctx, acct, "dlv_2")
	want := claimed
	want.Attempts, want.OriginalID = 1, "dlv_2"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded\n got %+v\nwant %+v", got, want)
	}

	// A redelivery: created queued, claimed once.
	re := got
	re.ID, re.Attempt, re.Attempts, re.Status, re.OriginalID = domain.AttemptID("dlv_2", 2), 2, 0, domain.DeliveryQueued, "dlv_2"
	re.ResponseStatus, re.DurationMS, re.StartedAt, re.CompletedAt, re.CreatedAt = 0, 0, nil, nil, t0.Add(2*time.Hour)
	redelivery := domain.Redelivery{Original: got, Attempt: re, Audit: domain.AuditRecord{AccountID: acct, ActionID: "re-1", Action: domain.ActionRedeliver, At: t0}}
	if err := st.CreateRedelivery(ctx, redelivery); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateRedelivery(ctx, redelivery); !errors.Is(err, domain.ErrDuplicateAction) {
		t.Errorf("the same action again: %v", err)
	}
	redelivery.Audit.ActionID = "re-2"
	if err := st.CreateRedelivery(ctx, redelivery); !errors.Is(err, domain.ErrStale) {
		t.Errorf("another action for the same attempt: %v", err)
	}
	if o, _ := st.Delivery(ctx, acct, "dlv_2"); o.Attempts != 2 {
		t.Errorf("attempts %d", o.Attempts)
	}
	claimAt := t0.Add(3 * time.Hour)
	c, res, err := st.ClaimDelivery(ctx, domain.Delivery{AccountID: acct, ID: re.ID, Attempt: 2, URL: "https://moved.example.com/evs"}, claimAt, lease)
	if err != nil || res != domain.Claimed || c.Status != domain.DeliverySending || c.URL != "https://moved.example.com/evs" ||
		!c.StartedAt.Equal(claimAt) || !c.CreatedAt.Equal(re.CreatedAt) || !reflect.DeepEqual(c.Event, re.Event) || c.Reason != re.Reason {
		t.Errorf("claimed redelivery %+v %v (%v)", c, res, err)
	}
	if _, res, _ := st.ClaimDelivery(ctx, domain.Delivery{AccountID: acct, ID: re.ID, Attempt: 2}, claimAt.Add(time.Second), lease); res != domain.AlreadyClaimed {
		t.Errorf("claim a redelivery twice: %v", res)
	}
	if _, _, err := st.ClaimDelivery(ctx, domain.Delivery{AccountID: acct, ID: "dlv_2.9", Attempt: 9}, claimAt, lease); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("claim a redelivery never recorded: %v", err)
	}
	byStatus, err := st.Deliveries(ctx, acct, domain.DeliveryFilter{Status: domain.DeliverySending})
	if err != nil || len(byStatus) != 1 || byStatus[0].ID != re.ID {
		t.Errorf("sending: %+v (%v)", byStatus, err)
	}
}

// Each filter lists the account's attempts newest first, from its own
// index, and no other account's; a finished attempt moves to its status.
func TestDeliveriesFilters(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct, other := newAccount(t, st), newAccount(t, st)
	claim := func(d domain.Delivery) {
		t.Helper()
		if _, res, err := st.ClaimDelivery(ctx, d, d.CreatedAt, time.Minute); err != nil || res != domain.Claimed {
			t.Fatalf("claim %s: %v %v", d.ID, res, err)
		}
	}
	a, b, c := delivery(acct, "dlv_a", t0), delivery(acct, "dlv_b", t0.Add(time.Minute)), delivery(acct, "dlv_c", t0.Add(2*time.Minute))
	b.EndpointID = 4
	c.Event.EntityReviewID = 21
	for _, d := range []domain.Delivery{a, b, c, delivery(other, "dlv_x", t0.Add(3*time.Minute))} {
		claim(d)
	}
	done := t0.Add(time.Hour)
	b.Status, b.CompletedAt, b.ResponseStatus = domain.DeliveryDelivered, &done, 200
	if err := st.FinishDelivery(ctx, b); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		filter domain.DeliveryFilter
		want   []string
	}{
		{"all", domain.DeliveryFilter{}, []string{"dlv_c", "dlv_b", "dlv_a"}},
		{"limit", domain.DeliveryFilter{Limit: 2}, []string{"dlv_c", "dlv_b"}},
		{"endpoint", domain.DeliveryFilter{EndpointID: 3}, []string{"dlv_c", "dlv_a"}},
		{"endpoint and review", domain.DeliveryFilter{EndpointID: 3, ReviewID: 20}, []string{"dlv_a"}},
		{"review", domain.DeliveryFilter{ReviewID: 20}, []string{"dlv_b", "dlv_a"}},
		{"review and status", domain.DeliveryFilter{ReviewID: 20, Status: domain.DeliverySending}, []string{"dlv_a"}},
		{"sending", domain.DeliveryFilter{Status: domain.DeliverySending}, []string{"dlv_c", "dlv_a"}},
		{"delivered", domain.DeliveryFilter{Status: domain.DeliveryDelivered}, []string{"dlv_b"}},
		{"event type", domain.DeliveryFilter{EventType: domain.EventRejected}, nil},
	}
	for _, tc := range tests {
		ds, err := st.Deliveries(ctx, acct, tc.filter)
		var got []string
		for _, d := range ds {
			got = append(got, d.ID)
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
}

// A date range is a key condition on created_key at every index the
// filters pick (the account's, by endpoint, by review, by status): from
// included, before excluded, to the millisecond, either end open, and a
// limit counts only the attempts in the range.
func TestDeliveriesCreatedRange(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct, other := newAccount(t, st), newAccount(t, st)
	h := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour) }
	ms := time.Millisecond
	// On endpoint 3, review 20, sending, but d5 (endpoint 4, review 21,
	// delivered), which only the account's index lists.
	at := map[string]time.Time{"d0": h(0), "d1": h(1), "d2": h(2).Add(-ms), "d3": h(2), "d4": h(3), "d5": h(2).Add(30 * time.Minute), "d6": h(4)}
	for id, when := range at {
		d := delivery(acct, id, when)
		if id == "d5" {
			d.EndpointID, d.Event.EntityReviewID = 4, 21
		}
		if _, res, err := st.ClaimDelivery(ctx, d, when, time.Minute); err != nil || res != domain.Claimed {
			t.Fatalf("claim %s: %v %v", id, res, err)
		}
		if id == "d5" {
			done := when.Add(time.Second)
			d.Status, d.CompletedAt, d.ResponseStatus = domain.DeliveryDelivered, &done, 200
			if err := st.FinishDelivery(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Another account's, in every range below but the empty ones.
	if _, _, err := st.ClaimDelivery(ctx, delivery(other, "x2", h(2)), h(2), time.Minute); err != nil {
		t.Fatal(err)
	}

	indexes := []struct {
		name string
		f    domain.DeliveryFilter
	}{
		{"account", domain.DeliveryFilter{}},
		{"endpoint", domain.DeliveryFilter{EndpointID: 3}},
		{"review", domain.DeliveryFilter{ReviewID: 20}},
		{"status", domain.DeliveryFilter{Status: domain.DeliverySending}},
	}
	riyadh := time.FixedZone("AST", 3*3600)
	ranges := []struct {
		name         string
		from, before time.Time
		limit        int
		want         []string // by endpoint, review, status
		wantAll      []string // the account's
	}{
		{"open", time.Time{}, time.Time{}, 0, []string{"d6", "d4", "d3", "d2", "d1", "d0"}, []string{"d6", "d4", "d5", "d3", "d2", "d1", "d0"}},
		{"from", h(2), time.Time{}, 0, []string{"d6", "d4", "d3"}, []string{"d6", "d4", "d5", "d3"}},
		{"before", time.Time{}, h(2), 0, []string{"d2", "d1", "d0"}, []string{"d2", "d1", "d0"}},
		{"from and before", h(1), h(3), 0, []string{"d3", "d2", "d1"}, []string{"d5", "d3", "d2", "d1"}},
		{"one millisecond", h(2), h(2).Add(ms), 0, []string{"d3"}, []string{"d3"}},
		{"the millisecond before", h(2).Add(-ms), h(2), 0, []string{"d2"}, []string{"d2"}},
		{"bounds within a millisecond", h(2).Add(-ms / 2), h(3).Add(-ms / 2), 0, []string{"d3"}, []string{"d5", "d3"}},
		{"another zone", h(2).In(riyadh), h(3).In(riyadh), 0, []string{"d3"}, []string{"d5", "d3"}},
		{"a limit within the range", h(0), h(3), 2, []string{"d3", "d2"}, []string{"d5", "d3"}},
		{"after everything", h(5), time.Time{}, 0, nil, nil},
		{"before everything", time.Time{}, h(0), 0, nil, nil},
	}
	for _, ix := range indexes {
		for _, r := range ranges {
			t.Run(ix.name+"/"+r.name, func(t *testing.T) {
				f := ix.f
				f.CreatedFrom, f.CreatedBefore, f.Limit = r.from, r.before, r.limit
				ds, err := st.Deliveries(ctx, acct, f)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, d := range ds {
					got = append(got, d.ID)
				}
				want := r.want
				if ix.name == "account" {
					want = r.wantAll
				}
				if !slices.Equal(got, want) {
					t.Errorf("got %v, want %v", got, want)
				}
			})
		}
	}
}
