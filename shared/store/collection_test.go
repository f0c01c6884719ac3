package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// collectionMetrics asks every write for ReturnItemCollectionMetrics=SIZE
// and keeps what DynamoDB answers. It answers only for a write to a table
// with a local secondary index: an item collection there is capped at 10 GB
// (and at one partition), which is what capped an account.
type collectionMetrics struct {
	mu      sync.Mutex
	writes  int
	metrics []types.ItemCollectionMetrics
}

func (c *collectionMetrics) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("collection-metrics", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			size := types.ReturnItemCollectionMetricsSize
			write := true
			switch p := in.Parameters.(type) {
			case *dynamodb.PutItemInput:
				p.ReturnItemCollectionMetrics = size
			case *dynamodb.UpdateItemInput:
				p.ReturnItemCollectionMetrics = size
			case *dynamodb.DeleteItemInput:
				p.ReturnItemCollectionMetrics = size
			case *dynamodb.TransactWriteItemsInput:
				p.ReturnItemCollectionMetrics = size
			case *dynamodb.BatchWriteItemInput:
				p.ReturnItemCollectionMetrics = size
			default:
				write = false
			}
			out, md, err := next.HandleInitialize(ctx, in)
			if !write || err != nil {
				return out, md, err
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			c.writes++
			switch v := out.Result.(type) {
			case *dynamodb.PutItemOutput:
				c.add(v.ItemCollectionMetrics)
			case *dynamodb.UpdateItemOutput:
				c.add(v.ItemCollectionMetrics)
			case *dynamodb.DeleteItemOutput:
				c.add(v.ItemCollectionMetrics)
			case *dynamodb.TransactWriteItemsOutput:
				for _, ms := range v.ItemCollectionMetrics {
					c.metrics = append(c.metrics, ms...)
				}
			case *dynamodb.BatchWriteItemOutput:
				for _, ms := range v.ItemCollectionMetrics {
					c.metrics = append(c.metrics, ms...)
				}
			}
			return out, md, err
		}), middleware.After)
	})
}

func (c *collectionMetrics) add(m *types.ItemCollectionMetrics) {
	if m != nil {
		c.metrics = append(c.metrics, *m)
	}
}

// TestNoWriteLandsInACappedItemCollection writes what an account's life
// writes (an entity with its checks, guard and review by a create and by
// an import, a decision with its audit record and new review, a delivery)
// and proves, by DynamoDB's own ItemCollectionMetrics, that none lands in a
// size-capped item collection: one account may hold any number of
// entities. The control shows DynamoDB Local does report the metrics for a
// table shaped as entities was (five local indexes).
func TestNoWriteLandsInACappedItemCollection(t *testing.T) {
	ctx := context.Background()
	metrics := &collectionMetrics{}
	st := devstacktest.Store(t, metrics.option)
	acct := newAccount(t, st, "SA")

	created, err := st.CreateEntity(ctx, withChildren(sampleEntity(acct, "SA", "7001234567", t0)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportEntities(ctx, acct, []domain.EntityDetail{withChildren(sampleEntity(acct, "SA", "7001234568", t0))}); err != nil {
		t.Fatal(err)
	}
	e := created.Entity
	r := created.Reviews[0]
	started := r
	started.Status, started.UpdatedAt = domain.ReviewInProgress, t0.Add(time.Hour)
	e.UpdatedAt = started.UpdatedAt
	next := domain.Review{AccountID: acct, EntityID: e.ID, Purpose: domain.ReviewPeriodic, Status: domain.ReviewOpen, CreatedAt: e.UpdatedAt, UpdatedAt: e.UpdatedAt}
	if err := st.ApplyDecision(ctx, domain.Decision{
		Audit:     domain.AuditRecord{AccountID: acct, ActionID: "collection-1", Action: domain.ActionStart, EntityID: e.ID, ReviewID: &r.ID, OperatorName: "test", At: e.UpdatedAt},
		Review:    &started,
		Entity:    &e,
		NewReview: &next,
	}); err != nil {
		t.Fatal(err)
	}
	if metrics.writes < 4 {
		t.Fatalf("%d writes seen, want the create's, the import's and the decision's", metrics.writes)
	}
	for _, m := range metrics.metrics {
		t.Errorf("a write landed in a capped item collection: %v ~%v GB", m.ItemCollectionKey, m.SizeEstimateRangeGB)
	}

	// The control: the same entity item in a table with local indexes.
	client := devstack.DB(metrics.option).Client()
	name := devstack.UniquePrefix(t.Name()) + "lsi"
	lsi := func(n string) types.LocalSecondaryIndex {
		return types.LocalSecondaryIndex{IndexName: aws.String(n), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("account_id"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(n), KeyType: types.KeyTypeRange}}}
	}
	if _, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("account_id"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("entity_id"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("seq"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("account_id"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("entity_id"), KeyType: types.KeyTypeRange}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{lsi("seq")},
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	metrics.metrics = nil
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
		"account_id": &types.AttributeValueMemberN{Value: fmt.Sprint(acct)},
		"entity_id":  &types.AttributeValueMemberN{Value: fmt.Sprint(e.ID)},
		"seq":        &types.AttributeValueMemberN{Value: "1"},
	}}); err != nil {
		t.Fatal(err)
	}
	if len(metrics.metrics) == 0 {
		// DynamoDB Local (2.x) answers no ItemCollectionMetrics at all, even
		// here: on it the assertion above holds vacuously, and the size of
		// an entity is computed from its stored items instead
		// (TestBytesPerEntity). Against DynamoDB it is a real check.
		t.Log("DynamoDB Local returns no ItemCollectionMetrics, even for a table with a local index")
	}
}

// TestNoLocalIndexes: a local index caps its partition key's item
// collection at 10 GB, and every table is partitioned by account.
func TestNoLocalIndexes(t *testing.T) {
	for _, tb := range schema.Tables() {
		for _, ix := range tb.Indexes {
			if ix.Local {
				t.Errorf("%s.%s is a local index: it caps one account's items at 10 GB", tb.ID, ix.Name)
			}
		}
	}
}

func withChildren(d domain.EntityDetail) domain.EntityDetail {
	at := d.Entity.CreatedAt
	d.Checks = []domain.Check{
		{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted, TriggeringReason: domain.TriggerIntake, Result: map[string]any{"status": "active"}, CreatedAt: at, UpdatedAt: at},
		{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckPending, TriggeringReason: domain.TriggerIntake, Result: map[string]any{}, CreatedAt: at, UpdatedAt: at},
	}
	d.Reviews = []domain.Review{{Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: at, UpdatedAt: at}}
	return d
}
