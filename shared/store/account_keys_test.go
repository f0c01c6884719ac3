package store

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// Every item the store writes carries the partition keys of its table's
// global indexes, and those schema.AccountScoped names start with the
// account id: an index keyed by one lists no other account's items.
func TestGlobalIndexKeysAreWrittenAccountScoped(t *testing.T) {
	const acct = 42
	items := map[string]any{
		schema.Checks:            newCheckItem(domain.Check{AccountID: acct, ID: 1, EntityID: 7}),
		schema.Reviews:           newReviewItem(domain.Review{AccountID: acct, ID: 2, EntityID: 7}),
		schema.Audit:             newAuditItem(domain.AuditRecord{AccountID: acct, ActionID: "a1", EntityID: 7}),
		schema.WebhookDeliveries: newDeliveryItem(domain.Delivery{AccountID: acct, ID: "d1", EndpointID: 3, Status: domain.DeliverySending, Event: domain.Event{EntityReviewID: 2}}),
	}
	for id, it := range items {
		av, err := dynamo.MarshalItem(it)
		if err != nil {
			t.Fatal(err)
		}
		for _, ix := range schema.MustTable(id).Indexes {
			pk := ix.PartitionKey
			if ix.Local || pk.Name == "account_id" {
				continue
			}
			s, _ := av[pk.Name].(*types.AttributeValueMemberS)
			switch {
			case s == nil:
				t.Errorf("%s.%s: the item has no %s", id, ix.Name, pk.Name)
			case !schema.AccountScoped(pk):
				t.Errorf("%s.%s: %s is not account scoped", id, ix.Name, pk.Name)
			case !strings.HasPrefix(s.Value, "42#"):
				t.Errorf("%s.%s: %s = %q, want it to start with the account id", id, ix.Name, pk.Name, s.Value)
			}
		}
	}
}
