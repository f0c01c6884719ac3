package reviewevents

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// Endpoints lists an account's webhook endpoints.
type Endpoints interface {
	// No codes.
	Endpoints(ctx context.Context, accountID int64, c domain.Consistency) ([]domain.Endpoint, error)
}

// Reviews decodes the reviews table's stream images: only the store that
// wrote the items knows their form.
type Reviews interface {
	// ReviewFromImage: no codes; an error for an image that is not a review.
	ReviewFromImage(img map[string]events.DynamoDBAttributeValue) (domain.Review, error)
}

// Emitter is the review-events function: it reads a batch of the reviews
// table's stream and sends one delivery message per event and subscribed,
// active endpoint.
type Emitter struct {
	Endpoints Endpoints
	Reviews   Reviews
	Queue     delivery.Sender
}

// Handle processes the records in order. At the first record that fails
// (an image it cannot read, endpoints it cannot list, messages it cannot
// send) it stops and reports that record's SequenceNumber: Lambda keeps
// what came before and retries from there, within the event source's
// bounded retries, bisecting, before the on-failure queue takes it. A
// record retried sends its messages again; their delivery ids are the same,
// so each is still posted once.
func (e *Emitter) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	log := logging.From(ctx)
	endpoints := map[int64][]domain.Endpoint{} // per account, for this batch
	sent := 0
	for _, rec := range ev.Records {
		msgs, err := e.messages(ctx, rec, endpoints)
		if err == nil && len(msgs) > 0 {
			err = e.Queue.Send(ctx, msgs)
		}
		if err != nil {
			log.Error("review event record failed", "event_id", rec.EventID, "sequence_number", rec.Change.SequenceNumber, "error", err.Error())
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: rec.Change.SequenceNumber}}}, nil
		}
		sent += len(msgs)
	}
	log.Info("review events", "records", len(ev.Records), "deliveries", sent)
	return events.DynamoDBEventResponse{}, nil
}

// messages are the deliveries one stream record makes.
func (e *Emitter) messages(ctx context.Context, rec events.DynamoDBEventRecord, cache map[int64][]domain.Endpoint) ([]delivery.Message, error) {
	old, err := e.review(rec.Change.OldImage)
	if err != nil {
		return nil, fmt.Errorf("old image: %w", err)
	}
	new, err := e.review(rec.Change.NewImage)
	if err != nil {
		return nil, fmt.Errorf("new image: %w", err)
	}
	kinds := Detect(old, new)
	if len(kinds) == 0 {
		return nil, nil
	}
	eps, ok := cache[new.AccountID]
	if !ok {
		if eps, err = e.Endpoints.Endpoints(ctx, new.AccountID, domain.ReadEventual); err != nil {
			return nil, err
		}
		cache[new.AccountID] = eps
	}
	var out []delivery.Message
	for _, k := range kinds {
		ev, id := NewEvent(k, *new), EventID(k, *new)
		n := 0
		for _, ep := range eps {
			if ep.Receives(k, new.UpdatedAt) {
				out, n = append(out, delivery.NewMessage(id, ev, ep.ID)), n+1
			}
		}
		logging.From(ctx).Info("review event", "event_type", k, "event_id", id, "account_id", new.AccountID, "review_id", new.ID, "deliveries", n)
	}
	return out, nil
}

// review decodes an image; no image (a review created or deleted) is nil.
func (e *Emitter) review(img map[string]events.DynamoDBAttributeValue) (*domain.Review, error) {
	if len(img) == 0 {
		return nil, nil
	}
	r, err := e.Reviews.ReviewFromImage(img)
	if err != nil {
		return nil, err
	}
	return &r, nil
}
