package sim

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/evs-kyb/evs/shared/capped"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// ScreeningEvent is the body of a screening webhook: the provider's answer to
// one query of an earlier match request (the same shape as in yente's
// /match response), named by the query's reference.
type ScreeningEvent struct {
	Type      string             `json:"type"` // "screening.completed"
	Timestamp string             `json:"timestamp"`
	Data      ScreeningEventData `json:"data"`
}

// ScreeningEventData carries the answer.
type ScreeningEventData struct {
	Reference string         `json:"reference"`
	Dataset   string         `json:"dataset"`
	Response  map[string]any `json:"response"`
}

// NewScreeningEvent builds the event for a reference and an outcome.
func NewScreeningEvent(reference string, o Outcome, name string, at time.Time) ScreeningEvent {
	results := []any{}
	for _, m := range Matches(o, name) {
		results = append(results, m)
	}
	return ScreeningEvent{
		Type:      "screening.completed",
		Timestamp: at.UTC().Format(time.RFC3339),
		Data: ScreeningEventData{
			Reference: reference,
			Dataset:   "default",
			Response: map[string]any{
				"status": 200, "results": results,
				"total": map[string]any{"value": len(results), "relation": "eq"},
			},
		},
	}
}

// Delivery is what a Send did: the message id and the receiver's answer.
type Delivery struct {
	ID     string
	Status int
	Body   string
}

// Send posts an event to url signed the Standard Webhooks way with secret.
// id may be empty for a fresh one; sending the same id again is a replay.
func Send(ctx context.Context, client *http.Client, url string, secret webhooks.Secret, id string, event any, at time.Time) (Delivery, error) {
	if id == "" {
		var b [12]byte
		rand.Read(b[:])
		id = "msg_" + hex.EncodeToString(b[:])
	}
	body, err := json.Marshal(event)
	if err != nil {
		return Delivery{}, err
	}
	ts := at.Unix()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Delivery{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhooks.HeaderID, id)
	req.Header.Set(webhooks.HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(webhooks.HeaderSignature, webhooks.StandardSignature(secret, id, ts, body))
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return Delivery{ID: id}, fmt.Errorf("post webhook: %w", err)
	}
	defer resp.Body.Close()
	b, _, _ := capped.Read(resp.Body, 64<<10)
	return Delivery{ID: id, Status: resp.StatusCode, Body: string(b)}, nil
}
