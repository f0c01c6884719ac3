package api

import (
	"testing"

	"github.com/evs-kyb/evs/shared/webhooks"
)

// The provider webhook's header limits the description states are the
// ones webhooks.CheckStandardHeaders applies.
func TestOpenAPIWebhookHeaderLimits(t *testing.T) {
	m := openAPIModel(t)
	item, ok := m.Paths.PathItems.Get("/webhooks/{provider}")
	if !ok || item.Post == nil {
		t.Fatal("openapi.yaml has no POST /webhooks/{provider}")
	}
	want := map[string]int{webhooks.HeaderID: webhooks.MaxIDBytes, webhooks.HeaderTimestamp: webhooks.MaxTimestampBytes, webhooks.HeaderSignature: webhooks.MaxSignatureBytes}
	for _, p := range item.Post.Parameters {
		limit, ok := want[p.Name]
		if !ok || p.In != "header" {
			continue
		}
		delete(want, p.Name)
		if got := p.Schema.Schema().MaxLength; got == nil || *got != int64(limit) {
			t.Errorf("%s maxLength: openapi.yaml says %v, the code %d", p.Name, deref(got), limit)
		}
		if p.Name == webhooks.HeaderID && p.Schema.Schema().Pattern != "^[ -~]+$" {
			t.Errorf("%s pattern: openapi.yaml says %q, the code printable ASCII, ^[ -~]+$", p.Name, p.Schema.Schema().Pattern)
		}
	}
	for name := range want {
		t.Errorf("openapi.yaml does not describe the header %s", name)
	}
	if _, ok := item.Post.Responses.Codes.Get("400"); !ok {
		t.Error("openapi.yaml has no 400 for the provider webhook")
	}
}
