package main

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

// adminEvent is an admin sample event: its answer, decoded into A (strictly:
// the JSON must be an object of A's fields), checked with its raw text.
func adminEvent[A any](file string, check func(t *testing.T, answer A, raw string)) sampleEvent {
	return sampleEvent{file: file, result: func(t *testing.T, out []byte, _ *store.Store) {
		var a A
		dec := json.NewDecoder(strings.NewReader(string(out)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			t.Fatalf("answer %s: %v", out, err)
		}
		check(t, a, string(out))
	}}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// decisionEvent is a decision sample event: its answer is the review as the
// workflow shows it, checked with the entity it belongs to as stored after.
func decisionEvent(file string, entityID int64, check func(t *testing.T, r decisions.ReviewOut, e domain.Entity)) sampleEvent {
	return sampleEvent{file: file, result: func(t *testing.T, out []byte, st *store.Store) {
		var o decisions.TaskOutput
		if err := json.Unmarshal(out, &o); err != nil || o.Review == nil {
			t.Fatalf("task output %s: %v", out, err)
		}
		e, err := st.Entity(context.Background(), 1, entityID)
		if err != nil {
			t.Fatal(err)
		}
		if o.Review.EntityID != entityID {
			t.Errorf("review %d is entity %d's, want %d's", o.Review.ID, o.Review.EntityID, entityID)
		}
		check(t, *o.Review, e)
	}}
}

func proxyHeader(r events.APIGatewayProxyResponse, name string) string {
	if v := http.Header(r.MultiValueHeaders).Get(name); v != "" {
		return v
	}
	for k, v := range r.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func wantContentType(t *testing.T, r events.APIGatewayProxyResponse, prefix string) {
	t.Helper()
	if ct := proxyHeader(r, "Content-Type"); !strings.HasPrefix(ct, prefix) {
		t.Errorf("Content-Type = %q, want %s", ct, prefix)
	}
}

func proxyJSON(t *testing.T, r events.APIGatewayProxyResponse) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Body), &m); err != nil {
		t.Fatalf("body is not JSON (%v): %.300s", err, r.Body)
	}
	return m
}

// wantIDs checks the ids of a JSON array of objects, in order.
func wantIDs(t *testing.T, what string, v any, ids ...int64) {
	t.Helper()
	arr, _ := v.([]any)
	var got []int64
	for _, x := range arr {
		id, _ := x.(map[string]any)["id"].(float64)
		got = append(got, int64(id))
	}
	if !slices.Equal(got, ids) {
		t.Errorf("%s ids = %v, want %v", what, got, ids)
	}
}
