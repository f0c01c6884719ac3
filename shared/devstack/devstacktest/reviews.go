package devstacktest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// Reviews is a store whose table names the test knows, so it can read raw
// items as the stream would carry them, and an account in it; its records
// are created and changed at T0 and after.
type Reviews struct {
	St      *store.Store
	Account int64
	T0      time.Time
	db      dynamodbiface.DynamoDBAPI
	names   schema.Names
	seq     int
}

// NewReviews makes the store and the account, with Saudi Arabia configured.
func NewReviews(t *testing.T, t0 time.Time) *Reviews {
	t.Helper()
	ctx := context.Background()
	db := devstack.DB()
	names := Tables(t, db)
	st := store.New(db, names)
	acct, err := st.CreateAccount(ctx, "Events "+t.Name(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutCountryConfig(ctx, domain.DefaultCountryConfig(acct.ID, "SA", 682, t0)); err != nil {
		t.Fatal(err)
	}
	return &Reviews{St: st, Account: acct.ID, T0: t0, db: db.Client(), names: names}
}

// Review creates an entity with an initial review in the given status.
func (w *Reviews) Review(t *testing.T, status domain.ReviewStatus) domain.Review {
	t.Helper()
	w.seq++
	created, err := w.St.CreateEntity(context.Background(), domain.EntityDetail{
		Entity: domain.Entity{AccountID: w.Account, RegistrationNumber: fmt.Sprintf("70000%05d", w.seq), LegalName: "Evented Co",
			CountryCode: "SA", CountryID: 682, Status: domain.EntityReadyForReview, CreatedAt: w.T0, UpdatedAt: w.T0},
		Reviews: []domain.Review{{Purpose: domain.ReviewInitial, Status: status, CreatedAt: w.T0, UpdatedAt: w.T0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := w.St.Review(context.Background(), w.Account, created.Reviews[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Change writes r (read at r.Version) changed by edit, as an operator action
// does, and returns the stored review.
func (w *Reviews) Change(t *testing.T, r domain.Review, edit func(*domain.Review)) domain.Review {
	t.Helper()
	w.seq++
	next := r
	next.UpdatedAt = r.UpdatedAt.Add(time.Hour)
	edit(&next)
	err := w.St.ApplyDecision(context.Background(), domain.Decision{
		Audit:  domain.AuditRecord{AccountID: r.AccountID, ActionID: fmt.Sprintf("act-%d", w.seq), Action: domain.ActionAssign, OperatorID: 1, EntityID: r.EntityID, At: next.UpdatedAt},
		Review: &next,
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.St.Review(context.Background(), r.AccountID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Raw is the review's item exactly as stored.
func (w *Reviews) Raw(t *testing.T, r domain.Review) map[string]types.AttributeValue {
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

// Next is a number the world has not used yet, for names and action ids.
func (w *Reviews) Next() int {
	w.seq++
	return w.seq
}
