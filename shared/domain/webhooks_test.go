package domain

import (
	"slices"
	"testing"
)

// A ping is addressed to one endpoint: it is no subscribable kind, fans
// out to nobody, and is posted to its endpoint while that is active.
func TestPingIsNoSubscribableKind(t *testing.T) {
	if slices.Contains(EventTypes(), EventPing) || ValidEventType(string(EventPing)) {
		t.Errorf("ping is among the subscribable kinds %v", EventTypes())
	}
	active := Endpoint{Active: true, Events: []EventType{EventApproved}}
	tests := []struct {
		name string
		ep   Endpoint
		kind EventType
		want bool
	}{
		{"a subscribed kind", active, EventApproved, true},
		{"another kind", active, EventRejected, false},
		{"a ping to an active endpoint", active, EventPing, true},
		{"a ping to an inactive endpoint", Endpoint{Events: []EventType{EventApproved}}, EventPing, false},
		{"a subscribed kind, inactive", Endpoint{Events: []EventType{EventApproved}}, EventApproved, false},
	}
	for _, tc := range tests {
		if got := tc.ep.Accepts(tc.kind); got != tc.want {
			t.Errorf("%s: Accepts = %v, want %v", tc.name, got, tc.want)
		}
	}
	if active.Receives(EventPing, active.CreatedAt) {
		t.Error("a fan-out would send a ping to every endpoint")
	}
	for kind, ok := range map[EventType]bool{EventPing: true, EventApproved: true, "": true, "pong": false} {
		if err := (DeliveryFilter{EventType: kind}).Validate(); (err == nil) != ok {
			t.Errorf("filter by %q: %v", kind, err)
		}
	}
}
