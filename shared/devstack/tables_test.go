package devstack

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evs-kyb/evs/shared/schema"
)

func TestCreateTableInput(t *testing.T) {
	tb, _ := schema.Lookup(schema.Entities)
	in := CreateTableInput(tb, "x-entities")
	if *in.TableName != "x-entities" || in.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("name %s billing %s", *in.TableName, in.BillingMode)
	}
	if len(in.LocalSecondaryIndexes) != 0 || len(in.GlobalSecondaryIndexes) != 3 {
		t.Fatalf("indexes: %d local, %d global", len(in.LocalSecondaryIndexes), len(in.GlobalSecondaryIndexes))
	}
	defined := map[string]types.ScalarAttributeType{}
	for _, a := range in.AttributeDefinitions {
		defined[*a.AttributeName] = a.AttributeType
	}
	want := map[string]types.ScalarAttributeType{"account_id": "N", "entity_id": "N", "country_key": "S", "country_seq": "N", "updated_at": "S"}
	if len(defined) != len(want) {
		t.Errorf("attributes %v, want %v", defined, want)
	}
	for k, v := range want {
		if defined[k] != v {
			t.Errorf("attribute %s: %s, want %s", k, defined[k], v)
		}
	}
	for _, ix := range in.GlobalSecondaryIndexes {
		if *ix.IndexName == schema.EntitiesByCountryUpdated && (ix.Projection.ProjectionType != types.ProjectionTypeInclude || len(ix.Projection.NonKeyAttributes) != 1) {
			t.Errorf("by_country_updated projection = %+v", ix.Projection)
		}
	}
	rv, _ := schema.Lookup(schema.Reviews)
	if s := CreateTableInput(rv, "r").StreamSpecification; s == nil || s.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Errorf("reviews stream = %+v", s)
	}
}

// A table kept from before its indexes changed is refused, naming the fix.
func TestSameIndexes(t *testing.T) {
	tb, _ := schema.Lookup(schema.Entities)
	now := described(CreateTableInput(tb, "x"))
	var before types.TableDescription
	before.GlobalSecondaryIndexes = now.GlobalSecondaryIndexes[:len(now.GlobalSecondaryIndexes)-1]
	if err := sameIndexes(now, tb, "x"); err != nil {
		t.Errorf("the schema's own indexes: %v", err)
	}
	if err := sameIndexes(&before, tb, "x"); err == nil || !strings.Contains(err.Error(), "make local-reset") {
		t.Errorf("an index missing: %v, want a refusal naming make local-reset", err)
	}
}

// An index that kept its name but changed kind, keys or projection (a local
// index become global) is refused too: queries on it would fail.
func TestSameIndexesComparesShapes(t *testing.T) {
	account := schema.Attr{Name: "account_id", Type: schema.Number}
	tb := schema.Table{ID: "t", PartitionKey: account, SortKey: &schema.Attr{Name: "id", Type: schema.Number},
		Indexes: []schema.Index{{Name: "by_x", PartitionKey: schema.Attr{Name: "x_key", Type: schema.String}, SortKey: schema.Attr{Name: "id", Type: schema.Number}, Projection: schema.ProjectKeysOnly}}}
	if err := sameIndexes(described(CreateTableInput(tb, "x")), tb, "x"); err != nil {
		t.Errorf("the schema's own indexes: %v", err)
	}
	local, allAttrs := tb, tb
	local.Indexes = []schema.Index{{Name: "by_x", Local: true, SortKey: schema.Attr{Name: "x", Type: schema.Number}, Projection: schema.ProjectKeysOnly}}
	allAttrs.Indexes = []schema.Index{tb.Indexes[0]}
	allAttrs.Indexes[0].Projection = schema.ProjectAll
	for what, old := range map[string]schema.Table{"a local index under a global one's name": local, "a changed projection": allAttrs} {
		if err := sameIndexes(described(CreateTableInput(old, "x")), tb, "x"); err == nil || !strings.Contains(err.Error(), "make local-reset") {
			t.Errorf("%s: %v, want a refusal naming make local-reset", what, err)
		}
	}
}

// described is the description DynamoDB gives of the table in.
func described(in *dynamodb.CreateTableInput) *types.TableDescription {
	d := &types.TableDescription{TableName: in.TableName, KeySchema: in.KeySchema}
	for _, ix := range in.LocalSecondaryIndexes {
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, types.LocalSecondaryIndexDescription{IndexName: ix.IndexName, KeySchema: ix.KeySchema, Projection: ix.Projection})
	}
	for _, ix := range in.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{IndexName: ix.IndexName, KeySchema: ix.KeySchema, Projection: ix.Projection})
	}
	return d
}
