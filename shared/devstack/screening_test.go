package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestYenteURL(t *testing.T) {
	for _, tc := range []struct {
		name, url, port, want string
	}{
		{"default", "", "", "http://127.0.0.1:8765"},
		{"the stack's port", "", "8785", "http://127.0.0.1:8785"},
		{"YENTE_URL wins", "http://yente.example:9000/", "8785", "http://yente.example:9000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("YENTE_URL", tc.url)
			t.Setenv("YENTE_PORT", tc.port)
			if got := YenteURL(); got != tc.want {
				t.Errorf("YenteURL() = %s, want %s", got, tc.want)
			}
		})
	}
}

// fakeYente answers /readyz with ready's status and /match/default with
// the ids given, as yente shapes its answer.
func fakeYente(t *testing.T, ready int, ids ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/readyz":
			w.WriteHeader(ready)
			fmt.Fprint(w, `{"status":"ok"}`)
		case r.Method == http.MethodPost && r.URL.Path == "/match/default":
			var body struct {
				Queries map[string]struct {
					Schema     string              `json:"schema"`
					Properties map[string][]string `json:"properties"`
				} `json:"queries"`
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			q := body.Queries["canary"]
			if q.Schema != "Company" || len(q.Properties["name"]) != 1 || q.Properties["name"][0] != YenteCanaryName {
				http.Error(w, "not the canary query", http.StatusBadRequest)
				return
			}
			results := []string{}
			for _, id := range ids {
				results = append(results, fmt.Sprintf(`{"id":%q,"score":1.0,"match":true}`, id))
			}
			fmt.Fprintf(w, `{"responses":{"canary":{"status":200,"results":[%s]}}}`, strings.Join(results, ","))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestYenteReady: the stack's yente is ready only once /readyz answers and
// the canary is found; /readyz alone is not enough (it answers before the
// index alias is switched).
func TestYenteReady(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		ready int
		ids   []string
		want  string // "" for ready, else part of the error
	}{
		{"ready", http.StatusOK, []string{"evs-co-other", YenteCanaryID}, ""},
		{"index not ready", http.StatusServiceUnavailable, []string{YenteCanaryID}, "HTTP 503"},
		{"ready but the canary missing", http.StatusOK, nil, "canary"},
		{"ready but another entity", http.StatusOK, []string{"evs-co-desert-falcon"}, "canary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeYente(t, tc.ready, tc.ids...)
			err := yenteReady(ctx, srv.URL)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("yenteReady: %v, want ready", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("yenteReady: %v, want an error saying %q", err, tc.want)
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		srv := fakeYente(t, http.StatusOK, YenteCanaryID)
		srv.Close()
		if err := yenteReady(ctx, srv.URL); err == nil {
			t.Error("yenteReady: nil for a closed port")
		}
	})
}

// TestYenteAnswers: Ensure asks the stack's yente to be ready, and a
// yente named by YENTE_URL only to answer (it is someone's own: Ensure
// starts nothing for it).
func TestYenteAnswers(t *testing.T) {
	ctx := context.Background()
	notReady := fakeYente(t, http.StatusServiceUnavailable)
	port := notReady.URL[strings.LastIndex(notReady.URL, ":")+1:]

	t.Setenv("YENTE_URL", "")
	t.Setenv("YENTE_PORT", port)
	if yenteAnswers(ctx) {
		t.Error("the stack's yente, not ready: taken as ready")
	}
	if err := errYenteNotReady(ctx); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Errorf("errYenteNotReady: %v", err)
	}

	t.Setenv("YENTE_URL", notReady.URL)
	if !yenteAnswers(ctx) {
		t.Error("YENTE_URL's yente answers, but is not taken")
	}
	if err := errYenteNotReady(ctx); err != nil {
		t.Errorf("errYenteNotReady with YENTE_URL answering: %v", err)
	}

	ready := fakeYente(t, http.StatusOK, YenteCanaryID)
	t.Setenv("YENTE_URL", "")
	t.Setenv("YENTE_PORT", ready.URL[strings.LastIndex(ready.URL, ":")+1:])
	if !yenteAnswers(ctx) {
		t.Error("the stack's yente, ready: not taken")
	}
}
