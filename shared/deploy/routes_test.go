package deploy

import (
	"fmt"
	"strings"
	"testing"
)

// TestMustRoute: a routed function gets its route; any other name panics,
// naming it, so a wiring mistake stops the handler's build.
func TestMustRoute(t *testing.T) {
	tests := []struct {
		function, wantPath, wantPanic string
	}{
		{function: "get-entity", wantPath: BasePath + "/entities/{id}"},
		{function: "provider-webhook", wantPath: ProviderWebhookPath},
		{function: "decision", wantPanic: `"decision"`},
		{function: "", wantPanic: `""`},
	}
	for _, tt := range tests {
		t.Run(tt.function, func(t *testing.T) {
			var got Route
			panicked := func() (msg string) {
				defer func() {
					if v := recover(); v != nil {
						msg = fmt.Sprint(v)
					}
				}()
				got = MustRoute(tt.function)
				return ""
			}()
			if tt.wantPanic != "" {
				if !strings.Contains(panicked, tt.wantPanic) {
					t.Fatalf("panic = %q, want one naming %s", panicked, tt.wantPanic)
				}
				return
			}
			if panicked != "" || got.Path != tt.wantPath || got.Function != tt.function {
				t.Errorf("MustRoute(%q) = %+v, panic %q; want path %s", tt.function, got, panicked, tt.wantPath)
			}
		})
	}
}
