package reviewevents

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// base is a review being worked on: in progress, assigned to operator 7.
func base() domain.Review {
	return domain.Review{
		AccountID: 1, ID: 20, EntityID: 10, Purpose: domain.ReviewInitial, Status: domain.ReviewInProgress,
		AssignedUserID: ptr(int64(7)), AssignedUserName: ptr("Dana"), StartedAt: ptr(t0),
		CreatedAt: t0, UpdatedAt: t0, Version: 3,
	}
}

// changed is r after an operator action: the next version, an hour later.
func changed(r domain.Review, edit func(*domain.Review)) domain.Review {
	r.Version++
	r.UpdatedAt = r.UpdatedAt.Add(time.Hour)
	edit(&r)
	return r
}

func TestDetect(t *testing.T) {
	escalated := func(level string) domain.Review {
		r := base()
		r.Status, r.Escalation = domain.ReviewEscalated, ptr(level)
		return r
	}
	open := base()
	open.Status, open.AssignedUserID, open.AssignedUserName, open.StartedAt = domain.ReviewOpen, nil, nil, nil
	tests := []struct {
		name     string
		old, new *domain.Review
		want     []domain.EventType
	}{
		// Events.
		{"approve", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome, r.OutcomeReason, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeApproved), ptr("ok"), ptr(t0)
		})), []domain.EventType{domain.EventApproved}},
		{"reject", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome, r.OutcomeReason, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeRejected), ptr("no"), ptr(t0)
		})), []domain.EventType{domain.EventRejected}},
		{"approve an escalated review", ptr(escalated(domain.EscalationAML)), ptr(changed(escalated(domain.EscalationAML), func(r *domain.Review) {
			r.Status, r.Outcome, r.Escalation, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeApproved), nil, ptr(t0)
		})), []domain.EventType{domain.EventApproved}},
		{"escalate", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, ptr(domain.EscalationSupervisor)
		})), []domain.EventType{domain.EventEscalated}},
		{"escalate an open review", &open, ptr(changed(open, func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, ptr(domain.EscalationSupervisor)
		})), []domain.EventType{domain.EventEscalated}},
		{"escalate to AML", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Escalation = domain.ReviewEscalated, ptr(domain.EscalationAML)
		})), []domain.EventType{domain.EventEscalatedToAML}},
		{"supervisor to AML fires escalated_to_aml only", ptr(escalated(domain.EscalationSupervisor)),
			ptr(changed(escalated(domain.EscalationSupervisor), func(r *domain.Review) { r.Escalation = ptr(domain.EscalationAML) })),
			[]domain.EventType{domain.EventEscalatedToAML}},
		{"assign an unassigned review", &open, ptr(changed(open, func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = ptr(int64(8)), ptr("Sami")
		})), []domain.EventType{domain.EventAssigned}},
		{"reassign", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = ptr(int64(8)), ptr("Sami")
		})), []domain.EventType{domain.EventAssigned}},
		{"queue checks", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.ChecksQueuedAt, r.ChecksCount = ptr(t0.Add(time.Hour)), 2
		})), []domain.EventType{domain.EventChecksQueued}},
		{"queue checks again", ptr(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = ptr(t0) })),
			ptr(changed(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = ptr(t0) }), func(r *domain.Review) {
				r.ChecksQueuedAt = ptr(t0.Add(2 * time.Hour))
			})), []domain.EventType{domain.EventChecksQueued}},
		// Starting a review nobody holds assigns it to the operator who
		// starts it: its assignee changes (spec 6: "a review's assignee
		// changes"), the start itself is no event.
		{"start assigning the operator", &open, ptr(changed(open, func(r *domain.Review) {
			r.Status, r.StartedAt, r.AssignedUserID, r.AssignedUserName = domain.ReviewInProgress, ptr(t0), ptr(int64(7)), ptr("Dana")
		})), []domain.EventType{domain.EventAssigned}},

		// Non-events.
		{"insert (a new review)", nil, &open, nil},
		{"remove", &open, nil, nil},
		{"start an assigned review", ptr(func() domain.Review {
			r := open
			r.AssignedUserID, r.AssignedUserName = ptr(int64(7)), ptr("Dana")
			return r
		}()), ptr(changed(open, func(r *domain.Review) {
			r.Status, r.StartedAt, r.AssignedUserID, r.AssignedUserName = domain.ReviewInProgress, ptr(t0), ptr(int64(7)), ptr("Dana")
		})), nil},
		{"cancel", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.CompletedAt, r.OutcomeReason = domain.ReviewCancelled, ptr(t0), ptr("duplicate")
		})), nil},
		{"cancel an escalated review", ptr(escalated(domain.EscalationSupervisor)), ptr(changed(escalated(domain.EscalationSupervisor), func(r *domain.Review) {
			r.Status, r.CompletedAt, r.Escalation = domain.ReviewCancelled, ptr(t0), nil
		})), nil},
		{"profile-only change (updated_at, version)", ptr(base()), ptr(changed(base(), func(*domain.Review) {})), nil},
		{"notes count", ptr(base()), ptr(changed(base(), func(r *domain.Review) { r.NotesCount++ })), nil},
		{"assign to the same person", ptr(base()), ptr(changed(base(), func(r *domain.Review) {
			r.AssignedUserID, r.AssignedUserName = ptr(int64(7)), ptr("Dana")
		})), nil},
		{"unassign", ptr(base()), ptr(changed(base(), func(r *domain.Review) { r.AssignedUserID, r.AssignedUserName = nil, nil })), nil},
		{"re-escalation to the same level", ptr(escalated(domain.EscalationSupervisor)),
			ptr(changed(escalated(domain.EscalationSupervisor), func(*domain.Review) {})), nil},
		{"AML again", ptr(escalated(domain.EscalationAML)), ptr(changed(escalated(domain.EscalationAML), func(*domain.Review) {})), nil},
		{"a completed review changed again", ptr(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome = domain.ReviewCompleted, ptr(domain.OutcomeApproved)
		})), ptr(changed(changed(base(), func(r *domain.Review) {
			r.Status, r.Outcome = domain.ReviewCompleted, ptr(domain.OutcomeApproved)
		}), func(r *domain.Review) { r.NotesCount++ })), nil},
		{"same checks_queued_at", ptr(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = ptr(t0) })),
			ptr(changed(changed(base(), func(r *domain.Review) { r.ChecksQueuedAt = ptr(t0) }), func(*domain.Review) {})), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Detect(tc.old, tc.new)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Detect = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewEvent(t *testing.T) {
	approved := changed(base(), func(r *domain.Review) {
		r.Status, r.Outcome, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeApproved), ptr(t0)
	})
	rejected := changed(base(), func(r *domain.Review) {
		r.Status, r.Outcome, r.CompletedAt = domain.ReviewCompleted, ptr(domain.OutcomeRejected), ptr(t0)
	})
	escalated := changed(base(), func(r *domain.Review) { r.Status, r.Escalation = domain.ReviewEscalated, ptr(domain.EscalationAML) })
	tests := []struct {
		kind domain.EventType
		r    domain.Review
		want string
	}{
		{domain.EventApproved, approved,
			`{"event_type":"entity_review.approved","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":"approved","occurred_at":"2026-11-01T10:00:00.000Z"}`},
		{domain.EventRejected, rejected,
			`{"event_type":"entity_review.rejected","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":"rejected","occurred_at":"2026-11-01T10:00:00.000Z"}`},
		{domain.EventEscalatedToAML, escalated,
			`{"event_type":"entity_review.escalated_to_aml","entity_review_id":20,"entity_id":10,"account_id":1,"outcome":null,"occurred_at":"2026-11-01T10:00:00.000Z"}`},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind), func(t *testing.T) {
			b, err := json.Marshal(NewEvent(tc.kind, tc.r))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("body\n got %s\nwant %s", b, tc.want)
			}
		})
	}
}

func TestEventID(t *testing.T) {
	r := base()
	next := changed(r, func(*domain.Review) {})
	other := r
	other.ID = 21
	otherAccount := r
	otherAccount.AccountID = 2
	sameVersionLater := r
	sameVersionLater.UpdatedAt = r.UpdatedAt.Add(time.Minute) // a re-read of the same version
	id := EventID(domain.EventApproved, r)
	if !regexp.MustCompile(`^evt_[0-9a-f]{32}$`).MatchString(id) {
		t.Errorf("EventID = %q, want evt_ and 32 hex digits", id)
	}
	tests := []struct {
		name string
		kind domain.EventType
		r    domain.Review
		same bool
	}{
		{"same version", domain.EventApproved, r, true},
		{"same version, other fields", domain.EventApproved, sameVersionLater, true},
		{"next version", domain.EventApproved, next, false},
		{"other kind", domain.EventAssigned, r, false},
		{"other review", domain.EventApproved, other, false},
		{"other account", domain.EventApproved, otherAccount, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EventID(tc.kind, tc.r); (got == id) != tc.same {
				t.Errorf("EventID = %s, first %s; want same=%v", got, id, tc.same)
			}
		})
	}
}

// streamImage turns an item as the SDK reads it into the form a DynamoDB
// stream record carries in aws-lambda-go: through the stream's JSON.
func streamImage(t testing.TB, item map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	t.Helper()
	b, err := json.Marshal(streamJSONMap(item))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]events.DynamoDBAttributeValue
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("decode stream image %s: %v", b, err)
	}
	return out
}

func streamJSONMap(item map[string]types.AttributeValue) map[string]any {
	out := make(map[string]any, len(item))
	for k, v := range item {
		out[k] = streamJSON(v)
	}
	return out
}

func streamJSON(av types.AttributeValue) any {
	b64 := base64.StdEncoding.EncodeToString
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": b64(v.Value)}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		var l []string
		for _, x := range v.Value {
			l = append(l, b64(x))
		}
		return map[string]any{"BS": l}
	case *types.AttributeValueMemberL:
		l := []any{}
		for _, x := range v.Value {
			l = append(l, streamJSON(x))
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": streamJSONMap(v.Value)}
	}
	panic(fmt.Sprintf("attribute type %T", av))
}

// reviewsWorld is a store whose table names the test knows, so it can read
// raw items as the stream would carry them.
type reviewsWorld struct {
	st      *store.Store
	db      dynamodbiface.DynamoDBAPI
	names   schema.Names
	account int64
	seq     int
}

func newReviewsWorld(t *testing.T) *reviewsWorld {
	t.Helper()
	ctx := context.Background()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	acct, err := st.CreateAccount(ctx, "Events "+t.Name(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutCountryConfig(ctx, domain.DefaultCountryConfig(acct.ID, "SA", 682, t0)); err != nil {
		t.Fatal(err)
	}
	return &reviewsWorld{st: st, db: db.Client(), names: names, account: acct.ID}
}

// review creates an entity with an initial review in the given status.
func (w *reviewsWorld) review(t *testing.T, status domain.ReviewStatus) domain.Review {
	t.Helper()
	w.seq++
	created, err := w.st.CreateEntity(context.Background(), domain.EntityDetail{
		Entity: domain.Entity{AccountID: w.account, RegistrationNumber: fmt.Sprintf("70000%05d", w.seq), LegalName: "Evented Co",
			CountryCode: "SA", CountryID: 682, Status: domain.EntityReadyForReview, CreatedAt: t0, UpdatedAt: t0},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: status, CreatedAt: t0, UpdatedAt: t0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := w.st.Review(context.Background(), w.account, created.Reviews[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// change writes r (read at r.Version) changed by edit, as an operator action
// does, and returns the stored review.
func (w *reviewsWorld) change(t *testing.T, r domain.Review, edit func(*domain.Review)) domain.Review {
	t.Helper()
	w.seq++
	next := r
	next.UpdatedAt = r.UpdatedAt.Add(time.Hour)
	edit(&next)
	err := w.st.ApplyDecision(context.Background(), domain.Decision{
		Audit:  domain.AuditRecord{AccountID: r.AccountID, ActionID: fmt.Sprintf("act-%d", w.seq), Action: domain.ActionAssign, OperatorID: 1, EntityID: r.EntityID, At: next.UpdatedAt},
		Review: &next,
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.st.Review(context.Background(), r.AccountID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// raw is the review's item exactly as stored.
func (w *reviewsWorld) raw(t *testing.T, r domain.Review) map[string]types.AttributeValue {
	t.Helper()
	out, err := w.db.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(w.names[schema.Reviews]),
		Key: map[string]types.AttributeValue{
			"account_id": &types.AttributeValueMemberN{Value: fmt.Sprint(r.AccountID)},
			"review_id":  &types.AttributeValueMemberN{Value: fmt.Sprint(r.ID)},
		},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Item) == 0 {
		t.Fatalf("review %d not stored", r.ID)
	}
	return out.Item
}

func TestImageRoundTripsStoredReview(t *testing.T) {
	w := newReviewsWorld(t)
	fresh := w.review(t, domain.ReviewOpen)
	freshRaw := w.raw(t, fresh)
	full := w.change(t, fresh, func(r *domain.Review) {
		r.Status, r.Outcome, r.OutcomeReason = domain.ReviewCompleted, ptr(domain.OutcomeApproved), ptr("documents_verified")
		r.AssignedUserID, r.AssignedUserName = ptr(int64(7)), ptr("Dana Decider")
		r.Escalation, r.ChecksQueuedAt = ptr(domain.EscalationAML), ptr(t0.Add(30*time.Minute))
		r.StartedAt, r.CompletedAt = ptr(t0.Add(10*time.Minute)), ptr(t0.Add(time.Hour))
		r.NotesCount, r.ChecksCount = 2, 3
	})
	if full.Version != 1 || full.Outcome == nil || full.Escalation == nil || full.ChecksQueuedAt == nil {
		t.Fatalf("stored review = %+v", full)
	}
	for _, tc := range []struct {
		name string
		r    domain.Review
		raw  map[string]types.AttributeValue
	}{{"as created", fresh, freshRaw}, {"every field set", full, w.raw(t, full)}} {
		t.Run(tc.name, func(t *testing.T) {
			img := streamImage(t, tc.raw)
			back, err := item(img)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.raw) {
				t.Errorf("round trip changed the item\n got %#v\nwant %#v", back, tc.raw)
			}
			got, err := review(img)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.r) {
				t.Errorf("review from image\n got %+v\nwant %+v", *got, tc.r)
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
	back, err := item(streamImage(t, raw))
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
	w := newReviewsWorld(t)
	raw := w.raw(t, w.review(t, domain.ReviewOpen))
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
			if r, err := review(streamImage(t, m)); err == nil {
				t.Errorf("review = %+v, want an error", r)
			} else if !strings.Contains(err.Error(), "decode review item") {
				t.Errorf("error = %v", err)
			}
		})
	}
}
