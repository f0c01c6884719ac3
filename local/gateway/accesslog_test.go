package gateway

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/logging"
)

// TestAccessLineIsBounded: the access line carries an ordinary path as it
// is, and any other (100 KB, control bytes) as logging.Bounded renders it,
// so that an unknown path costs the log one line of bounded size.
func TestAccessLineIsBounded(t *testing.T) {
	for _, c := range []struct {
		name, path string
		status     int
	}{
		{"an ordinary unknown path", "/nowhere", 404},
		{"an unknown path of 100 KB", "/" + strings.Repeat("x", 100<<10), 404},
		{"an unknown path of control bytes", "/\x00\x1b[31m\n", 404},
		{"a known path with a 100 KB segment", "/webhooks/opensanctions/" + strings.Repeat("x", 100<<10), 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			g, calls := limitsGateway(echoLength)
			g.Log = slog.New(slog.NewJSONHandler(&out, nil))
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path = c.path // as the server decoded it
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, req)
			if rec.Code != c.status || calls.Load() != 0 {
				t.Errorf("status %d after %d calls, want %d after none", rec.Code, calls.Load(), c.status)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 1 || len(lines[0]) > 2*logging.MaxBounded+200 {
				t.Fatalf("%d lines, the first of %d bytes:\n%.500s", len(lines), len(lines[0]), out.String())
			}
			var line map[string]any
			if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
				t.Fatal(err)
			}
			if line["msg"] != "gateway" || line["path"] != logging.Bounded(c.path) {
				t.Errorf("line %s, want the path %q", lines[0], logging.Bounded(c.path))
			}
		})
	}
}
