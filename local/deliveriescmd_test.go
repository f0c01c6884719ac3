package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/domain"
)

// TestDeliveriesListRange: deliveries list --from/--before hand the times
// to delivery.list as created_from/created_before, on the local store;
// the admin command checks them.
func TestDeliveriesListRange(t *testing.T) {
	ctx := context.Background()
	st, _ := cliStore(t)
	acct, err := st.CreateAccount(ctx, "Deliveries CLI", domain.Now())
	if err != nil {
		t.Fatal(err)
	}
	// One attempt an hour from 10:00 to 12:00 (UTC).
	for i := range 3 {
		at := time.Date(2026, 11, 1, 10+i, 0, 0, 0, time.UTC)
		d := domain.Delivery{AccountID: acct.ID, ID: fmt.Sprintf("dlv_%d", 10+i), Attempt: 1, EndpointID: 3, EventID: fmt.Sprintf("evt_%d", i),
			Event: domain.Event{EventType: domain.EventApproved, EntityReviewID: 20, EntityID: 10, AccountID: acct.ID}, Payload: []byte(`{}`), CreatedAt: at}
		if _, _, err := st.ClaimDelivery(ctx, d, at, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	a := strconv.FormatInt(acct.ID, 10)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"open", nil, "dlv_12 dlv_11 dlv_10"},
		{"from", []string{"--from", "2026-11-01T11:00:00Z"}, "dlv_12 dlv_11"},
		{"before", []string{"--before", "2026-11-01T11:00:00Z"}, "dlv_10"},
		{"both", []string{"--from", "2026-11-01T13:00:00+03:00", "--before", "2026-11-01T12:00:00Z"}, "dlv_11 dlv_10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, err := runCaptured(t, append([]string{"deliveries", "list", "--account", a}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v (stderr: %s)", err, stderr)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
				var d admin.DeliveryView
				if line == "" {
					continue
				}
				if err := json.Unmarshal([]byte(line), &d); err != nil {
					t.Fatalf("printed %q: %v", line, err)
				}
				got = append(got, d.ID)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("listed %v, want %s", got, tc.want)
			}
		})
	}
	for _, args := range [][]string{
		{"--from", "2026-11-01"},
		{"--from", "2026-11-02T00:00:00Z", "--before", "2026-11-01T00:00:00Z"},
	} {
		_, _, err := runCaptured(t, append([]string{"deliveries", "list", "--account", a}, args...)...)
		if r, ok := asRefusal(err); !ok || r.Name != "InvalidRequest" {
			t.Errorf("%v: %v, want InvalidRequest", args, err)
		}
	}
}
