package delivery

import (
	"context"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

// ListAll shows the account's attempts, newest first, to the account's
// administrator (the command line, which holds the tables' credentials).
func (o *Operations) ListAll(ctx context.Context, accountID int64, f store.DeliveryFilter) ([]domain.Delivery, error) {
	if f.Status != "" && !validStatus(f.Status) {
		return nil, domain.Invalid("status", fmt.Sprintf("must be one of %v", domain.DeliveryStatuses))
	}
	if f.EventType != "" && !domain.ValidEventType(string(f.EventType)) {
		return nil, domain.Invalid("event", fmt.Sprintf("must be one of %v", domain.EventTypes))
	}
	return o.Store.Deliveries(ctx, accountID, f)
}
