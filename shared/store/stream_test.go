package store_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

func TestReviewFromItem(t *testing.T) {
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	item := func(edit func(map[string]types.AttributeValue)) map[string]types.AttributeValue {
		m := map[string]types.AttributeValue{"account_id": n("1"), "review_id": n("20"), "entity_id": n("10"), "purpose": s("initial"),
			"status": s("escalated"), "escalation": s("aml"), "version": n("4"), "checks_queued_at": s("2026-11-01T09:30:00.000Z"),
			"created_at": s("2026-11-01T09:00:00.000Z"), "updated_at": s("2026-11-01T10:00:00.000Z")}
		if edit != nil {
			edit(m)
		}
		return m
	}
	queued := t0.Add(30 * time.Minute)
	tests := []struct {
		name string
		item map[string]types.AttributeValue
		want *domain.Review
	}{
		{"a review", item(nil), &domain.Review{AccountID: 1, ID: 20, EntityID: 10, Purpose: domain.ReviewInitial, Status: domain.ReviewEscalated,
			Escalation: new("aml"), ChecksQueuedAt: &queued, Version: 4, CreatedAt: t0, UpdatedAt: t0.Add(time.Hour)}},
		{"no version (never decided)", item(func(m map[string]types.AttributeValue) { delete(m, "version") }), &domain.Review{AccountID: 1, ID: 20, EntityID: 10,
			Purpose: domain.ReviewInitial, Status: domain.ReviewEscalated, Escalation: new("aml"), ChecksQueuedAt: &queued, CreatedAt: t0, UpdatedAt: t0.Add(time.Hour)}},
		{"version as a string", item(func(m map[string]types.AttributeValue) { m["version"] = s("4") }), nil},
		{"no account", item(func(m map[string]types.AttributeValue) { delete(m, "account_id") }), nil},
		{"no review id", item(func(m map[string]types.AttributeValue) { delete(m, "review_id") }), nil},
		{"no entity id", item(func(m map[string]types.AttributeValue) { delete(m, "entity_id") }), nil},
		{"empty", map[string]types.AttributeValue{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := store.ReviewFromItem(tc.item)
			switch {
			case tc.want == nil && err == nil:
				t.Errorf("review %+v, want an error", got)
			case tc.want != nil && err != nil:
				t.Error(err)
			case tc.want != nil && !reflect.DeepEqual(got, *tc.want):
				t.Errorf("review\n got %+v\nwant %+v", got, *tc.want)
			}
		})
	}
}

func TestImageRoundTripsStoredReview(t *testing.T) {
	w := devstacktest.NewReviews(t, t0)
	fresh := w.Review(t, domain.ReviewOpen)
	freshRaw := w.Raw(t, fresh)
	full := w.Change(t, fresh, func(r *domain.Review) {
		r.Status, r.Outcome, r.OutcomeReason = domain.ReviewCompleted, new(domain.OutcomeApproved), new("documents_verified")
		r.AssignedUserID, r.AssignedUserName = new(int64(7)), new("Dana Decider")
		r.Escalation, r.ChecksQueuedAt = new(domain.EscalationAML), new(t0.Add(30*time.Minute))
		r.StartedAt, r.CompletedAt = new(t0.Add(10*time.Minute)), new(t0.Add(time.Hour))
		r.NotesCount, r.ChecksCount = 2, 3
	})
	if full.Version != 1 || full.Outcome == nil || full.Escalation == nil || full.ChecksQueuedAt == nil {
		t.Fatalf("stored review = %+v", full)
	}
	for _, tc := range []struct {
		name string
		r    domain.Review
		raw  map[string]types.AttributeValue
	}{{"as created", fresh, freshRaw}, {"every field set", full, w.Raw(t, full)}} {
		t.Run(tc.name, func(t *testing.T) {
			img := devstacktest.StreamImage(t, tc.raw)
			back, err := store.ItemFromImage(img)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.raw) {
				t.Errorf("round trip changed the item\n got %#v\nwant %#v", back, tc.raw)
			}
			got, err := w.St.ReviewFromImage(img)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.r) {
				t.Errorf("review from image\n got %+v\nwant %+v", got, tc.r)
			}
		})
	}
}

func TestImageEveryAttributeType(t *testing.T) {
	raw := map[string]types.AttributeValue{
		"s":     &types.AttributeValueMemberS{Value: "text ✓"},
		"empty": &types.AttributeValueMemberS{Value: ""},
		"n":     &types.AttributeValueMemberN{Value: "-12.5"},
		"t":     &types.AttributeValueMemberBOOL{Value: true},
		"f":     &types.AttributeValueMemberBOOL{Value: false},
		"null":  &types.AttributeValueMemberNULL{Value: true},
		"b":     &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 255}},
		"ss":    &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":    &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs":    &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "x"}, &types.AttributeValueMemberN{Value: "1"},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberBOOL{Value: true}}},
		}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberNULL{Value: true}}},
		}},
	}
	back, err := store.ItemFromImage(devstacktest.StreamImage(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range raw {
		if got := back[k]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, want %#v", k, got, want)
		}
	}
	if len(back) != len(raw) {
		t.Errorf("got %d attributes, want %d", len(back), len(raw))
	}
}

func TestImageThatDoesNotDecode(t *testing.T) {
	w := devstacktest.NewReviews(t, t0)
	raw := w.Raw(t, w.Review(t, domain.ReviewOpen))
	tests := []struct {
		name string
		edit func(map[string]types.AttributeValue)
	}{
		{"version as a string", func(m map[string]types.AttributeValue) { m["version"] = &types.AttributeValueMemberS{Value: "three"} }},
		{"review id as a string", func(m map[string]types.AttributeValue) { m["review_id"] = &types.AttributeValueMemberS{Value: "x"} }},
		{"no entity id", func(m map[string]types.AttributeValue) { delete(m, "entity_id") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := make(map[string]types.AttributeValue, len(raw))
			for k, v := range raw {
				m[k] = v
			}
			tc.edit(m)
			if r, err := w.St.ReviewFromImage(devstacktest.StreamImage(t, m)); err == nil {
				t.Errorf("review = %+v, want an error", r)
			} else if !strings.Contains(err.Error(), "decode review item") {
				t.Errorf("error = %v", err)
			}
		})
	}
}
