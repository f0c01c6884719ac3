package store_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// entityWithChildren creates an entity with a completed registry check, a
// pending screening and an open initial review.
func entityWithChildren(t *testing.T, st *store.Store, acct int64, number string) domain.EntityDetail {
	t.Helper()
	d := sampleEntity(acct, "SA", number, t0)
	d.Checks = []domain.Check{
		{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted, TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "active"}, CreatedAt: t0, UpdatedAt: t0},
		{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckPending, TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "pending"}, CreatedAt: t0.Add(time.Second), UpdatedAt: t0.Add(time.Second)},
	}
	d.Reviews = []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: t0, UpdatedAt: t0}}
	created, err := st.CreateEntity(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// The by_entity indexes are global, so not strongly consistent: right after
// each write the entity's checks and reviews must still all be listed, as
// they are now.
func TestEntityChecksAndReviewsReadTheirWrites(t *testing.T) {
	ctx := context.Background()
	eventual := &eventualBatchGets{}
	st := devstacktest.Store(t, eventual.option)
	acct := newAccount(t, st, "SA")
	created := entityWithChildren(t, st, acct, "7000000101")
	id := created.Entity.ID

	cs, err := st.EntityChecks(ctx, acct, id, created.Entity.ChecksCount)
	if err != nil || len(cs) != 2 || cs[0].Status != domain.CheckPending || cs[1].Status != domain.CheckCompleted {
		t.Fatalf("checks after the create = %+v, %v", cs, err)
	}
	rs, err := st.EntityReviews(ctx, acct, id, created.Entity.ReviewsCount)
	if err != nil || len(rs) != 1 || rs[0].Status != domain.ReviewOpen || rs[0].ChecksCount != 2 {
		t.Fatalf("reviews after the create = %+v, %v", rs, err)
	}

	// The screening's result changes the check in place.
	e, err := st.Entity(ctx, acct, id)
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	if _, err := st.ApplyScreening(ctx, domain.ScreeningUpdate{
		Provider: "opensanctions", WebhookID: "wh-1", Check: cs[0], Entity: e,
		Result: map[string]any{"status": "clear", "matches_count": 0}, ProviderStatus: "clear",
		SanctionsStatus: domain.SanctionsClear, At: at, ReceiptTTL: time.Hour,
	}); err != nil {
		t.Fatal(err)
	}
	cs, err = st.EntityChecks(ctx, acct, id, e.ChecksCount)
	if err != nil || len(cs) != 2 || cs[0].Status != domain.CheckCompleted || cs[0].Result["status"] != "clear" {
		t.Fatalf("checks after the screening = %+v, %v", cs, err)
	}

	// A decision changes the review and adds a check and a review.
	if e, err = st.Entity(ctx, acct, id); err != nil {
		t.Fatal(err)
	}
	ids, err := st.ReserveCheckIDs(ctx, acct, 1)
	if err != nil {
		t.Fatal(err)
	}
	started := rs[0]
	started.Status, started.StartedAt, started.UpdatedAt = domain.ReviewInProgress, &at, at
	next := e
	next.ChecksCount++
	next.ReviewsCount++
	if err := st.ApplyDecision(ctx, domain.Decision{
		Audit:     domain.AuditRecord{AccountID: acct, ActionID: "a1", Action: domain.ActionStart, EntityID: id, At: at},
		Review:    &started,
		Entity:    &next,
		NewChecks: []domain.Check{{AccountID: acct, ID: ids[0], EntityID: id, Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckPending, TriggeringReason: domain.TriggerOperatorRequested, CreatedAt: at, UpdatedAt: at}},
		NewReview: &domain.Review{AccountID: acct, EntityID: id, Purpose: domain.ReviewPeriodic, Status: domain.ReviewOpen, CreatedAt: at, UpdatedAt: at},
	}); err != nil {
		t.Fatal(err)
	}
	d, err := st.EntityDetail(ctx, acct, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Checks) != 3 || d.Checks[0].ID != ids[0] || d.Checks[1].Status != domain.CheckCompleted {
		t.Errorf("checks after the decision = %+v", d.Checks)
	}
	if len(d.Reviews) != 2 || d.Reviews[1].ID != started.ID || d.Reviews[1].Status != domain.ReviewInProgress || d.Reviews[1].Version != 1 {
		t.Errorf("reviews after the decision = %+v", d.Reviews)
	}
	// DynamoDB Local answers every read consistently; DynamoDB does so only
	// when asked.
	if len(eventual.tables) > 0 {
		t.Errorf("BatchGetItem without ConsistentRead on %v", eventual.tables)
	}
}

// eventualBatchGets records the tables a BatchGetItem read without
// ConsistentRead.
type eventualBatchGets struct {
	mu     sync.Mutex
	tables []string
}

func (e *eventualBatchGets) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("eventual", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if b, ok := in.Parameters.(*dynamodb.BatchGetItemInput); ok {
				e.mu.Lock()
				for table, ka := range b.RequestItems {
					if !aws.ToBool(ka.ConsistentRead) {
						e.tables = append(e.tables, table)
					}
				}
				e.mu.Unlock()
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
	})
}

// lagger hides the last key of the next responses of the by_entity
// indexes, as a global index that has not caught up with its table does.
type lagger struct {
	mu      sync.Mutex
	hide    int // responses still to cut short; < 0: all of them
	queries int // by_entity queries seen
}

func (l *lagger) set(hide int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hide, l.queries = hide, 0
}

func (l *lagger) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.queries
}

func (l *lagger) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("lag", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			q, ok := in.Parameters.(*dynamodb.QueryInput)
			res, _ := out.Result.(*dynamodb.QueryOutput)
			if err != nil || !ok || res == nil || aws.ToString(q.IndexName) != schema.ByEntity {
				return out, md, err
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			l.queries++
			if l.hide != 0 && len(res.Items) > 0 {
				res.Items, res.Count = res.Items[:len(res.Items)-1], res.Count-1
				if l.hide > 0 {
					l.hide--
				}
			}
			return out, md, err
		}), middleware.After)
	})
}

// A lagging index is asked again until it shows as many checks and reviews
// as the entity counts; one that stays behind is answered from after about
// a second, with a warning.
func TestEntityListsWaitForALaggingIndex(t *testing.T) {
	lag := &lagger{}
	st := devstacktest.Store(t, lag.option)
	acct := newAccount(t, st, "SA")
	var logs bytes.Buffer
	ctx := logging.WithLogger(context.Background(), slog.New(slog.NewJSONHandler(&logs, nil)))
	created := entityWithChildren(t, st, acct, "7000000102")
	id := created.Entity.ID

	lag.set(4) // the first read of each list, and one more each
	d, err := st.EntityDetail(ctx, acct, id)
	if err != nil || len(d.Checks) != 2 || len(d.Reviews) != 1 {
		t.Fatalf("detail = %d checks, %d reviews, %v; want 2 and 1", len(d.Checks), len(d.Reviews), err)
	}
	if n := lag.count(); n < 5 {
		t.Errorf("%d index queries; a lagging index was not asked again", n)
	}
	if logs.Len() != 0 {
		t.Errorf("an index that caught up was warned about: %s", logs.String())
	}

	lag.set(-1)
	start := time.Now()
	cs, err := st.EntityChecks(ctx, acct, id, 2)
	if took := time.Since(start); err != nil || len(cs) != 1 || took < 900*time.Millisecond || took > 3*time.Second {
		t.Errorf("an index that stays behind: %d checks after %v, %v; want the one it shows after about a second", len(cs), took, err)
	}
	if !strings.Contains(logs.String(), "index behind its table") || !strings.Contains(logs.String(), fmt.Sprintf(`"entity_id":%d`, id)) {
		t.Errorf("no warning naming the entity: %s", logs.String())
	}

	// Not knowing the count, a reader takes what the index shows.
	lag.set(-1)
	if cs, err := st.EntityChecks(ctx, acct, id, 0); err != nil || len(cs) != 1 || lag.count() != 1 {
		t.Errorf("want 0: %d checks, %d queries, %v", len(cs), lag.count(), err)
	}
}

// An entity with more checks and reviews than one BatchGetItem takes (100
// keys) is listed whole, each once.
func TestEntityListsPastOneBatch(t *testing.T) {
	ctx := context.Background()
	counter := &devstacktest.Reads{}
	st := devstacktest.Store(t, counter.Option)
	acct := newAccount(t, st, "SA")
	d := sampleEntity(acct, "SA", "7000000103", t0)
	for i := range 150 {
		at := t0.Add(time.Duration(i) * time.Second)
		d.Checks = append(d.Checks, domain.Check{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted,
			TriggeringReason: domain.TriggerIntake, Result: map[string]any{"i": i}, CreatedAt: at, UpdatedAt: at})
	}
	for i := range 101 {
		at := t0.Add(time.Duration(i) * time.Second)
		d.Reviews = append(d.Reviews, domain.Review{Purpose: domain.ReviewPeriodic, Status: domain.ReviewCompleted, CreatedAt: at, UpdatedAt: at})
	}
	out, err := st.ImportEntities(ctx, acct, []domain.EntityDetail{d})
	if err != nil {
		t.Fatal(err)
	}
	e := out[0].Entity
	counter.Reset()
	cs, err := st.EntityChecks(ctx, acct, e.ID, e.ChecksCount)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := st.EntityReviews(ctx, acct, e.ID, e.ReviewsCount)
	if err != nil {
		t.Fatal(err)
	}
	checkIDs, reviewIDs := map[int64]bool{}, map[int64]bool{}
	for _, c := range cs {
		checkIDs[c.ID] = true
	}
	for _, r := range rs {
		reviewIDs[r.ID] = true
	}
	if len(cs) != 150 || len(checkIDs) != 150 || len(rs) != 101 || len(reviewIDs) != 101 {
		t.Errorf("%d checks (%d ids), %d reviews (%d ids); want 150 and 101, each once", len(cs), len(checkIDs), len(rs), len(reviewIDs))
	}
	if n := counter.Requests()["BatchGetItem"]; n != 4 {
		t.Errorf("%d BatchGetItem requests, want 4 (two of at most 100 keys per list)", n)
	}
}
