package api

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// TestWebhookHeaderLimitsDocumented holds README's "Input limits" section
// to the provider webhook's header limits and to the bounded logging.
func TestWebhookHeaderLimitsDocumented(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "### Input limits")
	if !ok {
		t.Fatal(`shared/api/README.md has no "### Input limits" section`)
	}
	section, _, _ = strings.Cut(section, "\n### ")
	thousands := func(n int) string {
		s := strconv.Itoa(n)
		if len(s) > 3 {
			s = s[:len(s)-3] + "," + s[len(s)-3:]
		}
		return s
	}
	for _, want := range []string{
		"`webhook-id`", strconv.Itoa(webhooks.MaxIDBytes) + " bytes", "printable ASCII, 0x20 to 0x7E",
		"`webhook-timestamp`", strconv.Itoa(webhooks.MaxTimestampBytes) + " bytes",
		"`webhook-signature`", thousands(webhooks.MaxSignatureBytes) + " bytes",
		"`logging.Bounded`", strconv.Itoa(logging.BoundedPrefix) + " bytes", strconv.Itoa(logging.MaxBounded) + " bytes",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the API README's input limits do not mention %s", want)
		}
	}
}
