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

// Get shows one attempt (a first attempt or a redelivery, by its id) to an
// operator with webhook_delivery.view, or to the account's administrator
// (OperatorID 0 and Admin set, as RedeliverAs allows). not_found when the
// actor's account has no such attempt: another account's is never read.
func (o *Redeliverer) Get(ctx context.Context, a domain.Actor, id string) (domain.Delivery, error) {
	if _, err := o.actor(ctx, a, domain.PermWebhookDeliveryView); err != nil {
		return domain.Delivery{}, err
	}
	return o.Store.Delivery(ctx, a.AccountID, id)
}

// Attempts shows the attempts of the delivery that attempt id belongs to,
// oldest first, to whom Get shows one: the latest limit of them (all when
// limit <= 0), and how many earlier ones are left out. An attempt that is
// missing (expired: records live 90 days; or not written yet) is skipped.
// One permission check for them all, where a Get per attempt would make
// one each.
func (o *Redeliverer) Attempts(ctx context.Context, a domain.Actor, id string, limit int) ([]domain.Delivery, int, error) {
	if _, err := o.actor(ctx, a, domain.PermWebhookDeliveryView); err != nil {
		return nil, 0, err
	}
	att, err := o.Store.Delivery(ctx, a.AccountID, id)
	if err != nil {
		return nil, 0, err
	}
	orig := att
	if att.OriginalID != "" && att.OriginalID != att.ID {
		if orig, err = o.Store.Delivery(ctx, a.AccountID, att.OriginalID); err != nil {
			return nil, 0, err
		}
	}
	last, first := max(orig.Attempts, 1), 1
	if limit > 0 {
		first = max(1, last-limit+1)
	}
	var out []domain.Delivery
	for n := first; n <= last; n++ {
		var d domain.Delivery
		switch aid := domain.AttemptID(orig.ID, n); aid {
		case att.ID:
			d = att
		case orig.ID:
			d = orig
		default:
			d, err = o.Store.Delivery(ctx, a.AccountID, aid)
			if domain.ErrorCode(err) == domain.ECodeNotFound {
				continue
			}
			if err != nil {
				return nil, 0, err
			}
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		out = []domain.Delivery{att}
	}
	return out, first - 1, nil
}
