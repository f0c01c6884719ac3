package delivery

import (
	"context"

	"github.com/evs-kyb/evs/shared/domain"
)

// ListAll shows the account's attempts, newest first, to the account's
// administrator (the command line, which holds the tables' credentials).
func (o *Redeliverer) ListAll(ctx context.Context, accountID int64, f domain.DeliveryFilter) ([]domain.Delivery, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return o.Store.Deliveries(ctx, accountID, f)
}
