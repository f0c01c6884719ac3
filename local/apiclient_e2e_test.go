package main

// The generated Go client (shared/apiclient) against the local gateway:
// shared/api/openapi.yaml, through oapi-codegen, makes a client that talks
// to the real API. The providers are the simulator's, DynamoDB Local is
// underneath (newCreateFixture).

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/apiclient"
)

// bearer is the request editor that sends an API key.
func bearer(key string) apiclient.RequestEditorFn {
	return func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}
}

func TestGeneratedClient(t *testing.T) {
	f := newCreateFixture(t)
	ctx := context.Background()
	c, err := apiclient.NewClientWithResponses(f.srv.URL, apiclient.WithRequestEditorFn(bearer(f.key)))
	if err != nil {
		t.Fatal(err)
	}
	create := func(t *testing.T, number, country, idempotencyKey string) *apiclient.CreateEntityResponse {
		t.Helper()
		body := apiclient.CreateEntityRequest{}
		body.Entity.RegistrationNumber = number
		body.Entity.CountryCode = &country
		var params apiclient.CreateEntityParams
		if idempotencyKey != "" {
			params.IdempotencyKey = &idempotencyKey
		}
		res, err := c.CreateEntityWithResponse(ctx, &params, body)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}

	// Create, with an Idempotency-Key: a Saudi number the simulated
	// register knows and the screening clears.
	res := create(t, "7000000400", "sa", "client-e2e-400")
	if res.StatusCode() != 201 || res.JSON201 == nil {
		t.Fatalf("create: %d %s", res.StatusCode(), res.Body)
	}
	a := *res.JSON201
	if a.ID <= 0 || a.RegistrationNumber != "7000000400" || a.CountryID != 682 || a.Status != apiclient.EntityStatusReadyForReview ||
		a.RegistrationStatus != apiclient.RegistrationStatusValidStatus || a.SanctionsStatus != apiclient.SanctionsStatusClear {
		t.Errorf("created entity = %+v", a)
	}
	if a.CurrentScore == nil || *a.CurrentScore != 70 {
		t.Errorf("current_score = %v, want 70", a.CurrentScore)
	}
	if a.RiskLevel != nil || a.RiskLevelUpdatedAt != nil || a.RiskLevelAssessed == nil || *a.RiskLevelAssessed != false {
		t.Errorf("a new entity is unassessed: risk_level %v, risk_level_updated_at %v, risk_level_assessed %v", a.RiskLevel, a.RiskLevelUpdatedAt, a.RiskLevelAssessed)
	}
	if a.WebsiteURL != nil || a.SocialURL != nil || a.BusinessActivitySummary != nil {
		t.Errorf("null fields decoded as %q %q %q", str(a.WebsiteURL), str(a.SocialURL), str(a.BusinessActivitySummary))
	}
	if a.ChecksCount != 2 || len(a.Checks) != 2 || a.ReviewsCount != 1 || len(a.Reviews) != 1 {
		t.Fatalf("checks %d %v, reviews %d %v", a.ChecksCount, a.Checks, a.ReviewsCount, a.Reviews)
	}
	if a.Checks[0].ID <= 0 || a.Checks[0].ID == a.Checks[1].ID {
		t.Errorf("check ids %d and %d", a.Checks[0].ID, a.Checks[1].ID)
	}
	for _, ch := range a.Checks {
		if ch.Status != apiclient.CheckStatusCompleted || ch.TriggeringReason != apiclient.TriggeringReasonIntake || ch.CheckedAt == nil || ch.SubjectID != nil {
			t.Errorf("check = %+v", ch)
		}
		if ch.CheckType == apiclient.CheckTypeOrganizationScreening &&
			(ch.Result.MatchesCount == nil || *ch.Result.MatchesCount != 0 || ch.Result.Status == nil || *ch.Result.Status != "clear") {
			t.Errorf("screening result = %+v", ch.Result)
		}
	}
	review := a.Reviews[0]
	if review.Purpose != apiclient.ReviewPurposeInitial || review.Status != apiclient.ReviewStatusOpen || review.Outcome != nil ||
		review.AssignedUserID != nil || review.CompletedAt != nil || review.APIPath != "/api/v1/entity_reviews/"+strconv.FormatInt(review.ID, 10) {
		t.Errorf("initial review = %+v", review)
	}
	if h := res.Headers201; h == nil || h.Location != "/api/v1/entities/"+strconv.FormatInt(a.ID, 10) || h.IdempotentReplayed != nil {
		t.Errorf("201 headers = %+v", h)
	}

	// The same key and body: the first answer, replayed.
	again := create(t, "7000000400", "sa", "client-e2e-400")
	if again.StatusCode() != 201 || again.JSON201 == nil || again.JSON201.ID != a.ID {
		t.Fatalf("replay: %d %s", again.StatusCode(), again.Body)
	}
	if h := again.Headers201; h == nil || str(h.IdempotentReplayed) != "true" {
		t.Errorf("replay headers = %+v", h)
	}

	// Get it back: the same entity.
	got, err := c.GetEntityWithResponse(ctx, a.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.StatusCode() != 200 || got.JSON200 == nil {
		t.Fatalf("get: %d %s", got.StatusCode(), got.Body)
	}
	if e := got.JSON200; e.ID != a.ID || e.LegalName != a.LegalName || !e.UpdatedAt.Equal(a.UpdatedAt) || len(e.Checks) != 2 || len(e.Reviews) != 1 || e.Reviews[0].ID != review.ID {
		t.Errorf("got %+v, created %+v", e, a)
	}

	// Its review.
	rv, err := c.GetReviewWithResponse(ctx, review.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rv.StatusCode() != 200 || rv.JSON200 == nil {
		t.Fatalf("get review: %d %s", rv.StatusCode(), rv.Body)
	}
	if d := rv.JSON200.EntityReview; d.ID != review.ID || d.EntityID != a.ID || d.Purpose != apiclient.ReviewPurposeInitial ||
		d.Status != apiclient.ReviewStatusOpen || d.Outcome != nil || d.ChecksCount != 2 || d.NotesCount != 0 ||
		d.Entity.ID != a.ID || d.Entity.RegistrationNumber != "7000000400" || d.Entity.CountryID != 682 ||
		d.Entity.RiskLevelAssessed == nil || *d.Entity.RiskLevelAssessed != false {
		t.Errorf("review = %+v", d)
	}

	// Three more after a moment, two of them Saudi, for the filters.
	since := a.UpdatedAt.Add(time.Millisecond)
	time.Sleep(time.Until(since) + 5*time.Millisecond)
	var later []int64
	for _, e := range []struct{ number, country string }{{"7000000410", "SA"}, {"CN-0000420", "AE"}, {"7000000430", "sa"}} {
		r := create(t, e.number, e.country, "")
		if r.JSON201 == nil {
			t.Fatalf("create %s: %d %s", e.number, r.StatusCode(), r.Body)
		}
		if r.JSON201.UpdatedAt.Before(since) {
			t.Fatalf("%s updated at %v, before %v", e.number, r.JSON201.UpdatedAt, since)
		}
		later = append(later, r.JSON201.ID)
	}
	if !(a.ID < later[0] && later[0] < later[1] && later[1] < later[2]) {
		t.Fatalf("ids not increasing: %d %v", a.ID, later)
	}

	// List: Saudi, changed since, one a page; newest first.
	list := func(t *testing.T, params apiclient.ListEntitiesParams) *apiclient.ListEntitiesResponse {
		t.Helper()
		r, err := c.ListEntitiesWithResponse(ctx, &params)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	country, updatedSince, perPage, page2 := "sa", since.Format(time.RFC3339Nano), 1, 2
	p1 := list(t, apiclient.ListEntitiesParams{CountryCode: &country, UpdatedSince: &updatedSince, PerPage: &perPage})
	if p1.StatusCode() != 200 || p1.JSON200 == nil {
		t.Fatalf("list: %d %s", p1.StatusCode(), p1.Body)
	}
	if m := p1.JSON200.Meta; m != (apiclient.Meta{Page: 1, PerPage: 1, TotalCount: 2, TotalPages: 2}) {
		t.Errorf("meta = %+v, want page 1 of 2, one a page, 2 in all", m)
	}
	if es := p1.JSON200.Entities; len(es) != 1 || es[0].ID != later[2] || es[0].RegistrationNumber != "7000000430" || len(es[0].Checks) != 0 || len(es[0].Reviews) != 0 {
		t.Errorf("page 1 = %+v, want the newest Saudi one, %d, without checks and reviews", es, later[2])
	}
	if h := p1.Headers200; h == nil || h.XTotalCount != 2 || h.Link == nil || !strings.Contains(*h.Link, `rel="next"`) {
		t.Errorf("200 headers = %+v (Link %s)", h, str(h.Link))
	}
	p2 := list(t, apiclient.ListEntitiesParams{CountryCode: &country, UpdatedSince: &updatedSince, PerPage: &perPage, Page: &page2})
	if p2.JSON200 == nil || len(p2.JSON200.Entities) != 1 || p2.JSON200.Entities[0].ID != later[0] || p2.JSON200.Meta.Page != 2 {
		t.Errorf("page 2: %d %s, want %d", p2.StatusCode(), p2.Body, later[0])
	}
	all := list(t, apiclient.ListEntitiesParams{})
	if all.JSON200 == nil || all.JSON200.Meta.TotalCount != 4 || len(all.JSON200.Entities) != 4 || all.JSON200.Entities[3].ID != a.ID {
		t.Errorf("unfiltered: %d %s", all.StatusCode(), all.Body)
	}

	// 422: a filter naming no country, a create naming none either.
	unknown := "ZZ"
	bad := list(t, apiclient.ListEntitiesParams{CountryCode: &unknown})
	if bad.StatusCode() != 422 || bad.JSON422 == nil || bad.JSON200 != nil {
		t.Fatalf("unknown country_code: %d %s", bad.StatusCode(), bad.Body)
	}
	if msgs := bad.JSON422.Errors["country_code"]; len(bad.JSON422.Errors) != 1 || len(msgs) != 1 || msgs[0] != `Country "ZZ" is not a country the service knows` {
		t.Errorf("errors = %v", bad.JSON422.Errors)
	}
	refused := create(t, "7000000440", "XX", "")
	if refused.StatusCode() != 422 || refused.JSON422 == nil || len(refused.JSON422.Errors["country"]) != 1 {
		t.Errorf("create in XX: %d %s", refused.StatusCode(), refused.Body)
	}

	// 404: an id no entity or review has.
	missing, err := c.GetEntityWithResponse(ctx, later[2]+1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if missing.StatusCode() != 404 || missing.JSON404 == nil || missing.JSON404.Error.Code != apiclient.ErrorCodeNotFound || missing.JSON404.Error.Message == "" {
		t.Errorf("unknown entity: %d %s", missing.StatusCode(), missing.Body)
	}
	noReview, err := c.GetReviewWithResponse(ctx, review.ID+1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if noReview.StatusCode() != 404 || noReview.JSON404 == nil || noReview.JSON404.Error.Code != apiclient.ErrorCodeNotFound {
		t.Errorf("unknown review: %d %s", noReview.StatusCode(), noReview.Body)
	}

	// 401 without a key, 403 with one that may only view.
	anonymous, err := apiclient.NewClientWithResponses(f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := anonymous.GetEntityWithResponse(ctx, a.ID, nil); err != nil || r.JSON401 == nil || r.JSON401.Error.Code != apiclient.ErrorCodeUnauthorized {
		t.Errorf("without a key: %v %+v", err, r)
	}
	body := apiclient.CreateEntityRequest{}
	body.Entity.RegistrationNumber = "7000000450"
	if r, err := c.CreateEntityWithResponse(ctx, nil, body, bearer(f.viewKey)); err != nil || r.JSON403 == nil || r.JSON403.Error.Code != apiclient.ErrorCodeForbidden {
		t.Errorf("view-only key creating: %v %d %s", err, r.StatusCode(), r.Body)
	}
}
