package devstack

import (
	"strings"
	"testing"

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
	var now, before types.TableDescription
	for _, ix := range CreateTableInput(tb, "x").GlobalSecondaryIndexes {
		now.GlobalSecondaryIndexes = append(now.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{IndexName: ix.IndexName})
	}
	before.GlobalSecondaryIndexes = now.GlobalSecondaryIndexes[:len(now.GlobalSecondaryIndexes)-1]
	if err := sameIndexes(&now, tb, "x"); err != nil {
		t.Errorf("the schema's own indexes: %v", err)
	}
	if err := sameIndexes(&before, tb, "x"); err == nil || !strings.Contains(err.Error(), "make local-reset") {
		t.Errorf("an index missing: %v, want a refusal naming make local-reset", err)
	}
}
