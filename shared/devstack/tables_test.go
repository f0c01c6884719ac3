package devstack

import (
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
	if len(in.LocalSecondaryIndexes) != 4 || len(in.GlobalSecondaryIndexes) != 0 {
		t.Fatalf("indexes: %d local, %d global", len(in.LocalSecondaryIndexes), len(in.GlobalSecondaryIndexes))
	}
	defined := map[string]types.ScalarAttributeType{}
	for _, a := range in.AttributeDefinitions {
		defined[*a.AttributeName] = a.AttributeType
	}
	want := map[string]types.ScalarAttributeType{"account_id": "N", "entity_id": "N", "seq": "N", "country_seq": "S", "registration_key": "S", "updated_at": "S"}
	if len(defined) != len(want) {
		t.Errorf("attributes %v, want %v", defined, want)
	}
	for k, v := range want {
		if defined[k] != v {
			t.Errorf("attribute %s: %s, want %s", k, defined[k], v)
		}
	}
	for _, ix := range in.LocalSecondaryIndexes {
		if *ix.IndexName == schema.EntitiesByUpdated && (ix.Projection.ProjectionType != types.ProjectionTypeInclude || len(ix.Projection.NonKeyAttributes) != 1) {
			t.Errorf("by_updated projection = %+v", ix.Projection)
		}
	}
	rv, _ := schema.Lookup(schema.Reviews)
	if s := CreateTableInput(rv, "r").StreamSpecification; s == nil || s.StreamViewType != types.StreamViewTypeNewAndOldImages {
		t.Errorf("reviews stream = %+v", s)
	}
}
