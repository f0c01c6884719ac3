package checks

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestEvidenceAtTheEdge: a provider fake answers known bytes; the evidence
// is their hash and size exactly (non-UTF-8 and large bodies included, up
// to the 4 MiB read of an answer), with the request's method and a URL that
// carries no credential, for an answer, a refusal with a body, and an
// unreadable answer; a timeout has none; an answer past 4 MiB records the
// hash and size of the bytes read (4 MiB and one), not stored, and why.
func TestEvidenceAtTheEdge(t *testing.T) {
	nonUTF8 := []byte("{\"cr_info\":\xff\xfe\x00 not json")
	large := bytes.Repeat([]byte("x"), domain.MaxInlineEvidence+1)
	atLimit := bytes.Repeat([]byte{0xC3}, domain.MaxEvidence)
	pastLimit := bytes.Repeat([]byte("z"), domain.MaxEvidence+100)
	wathqBody := []byte(wathqLegacyActive)
	yenteBody := []byte(`{"responses":{"evs-1-2":{"status":200,"results":[],"total":{"value":0}}}}`)
	tests := []struct {
		name       string
		provider   string
		status     int
		body       []byte
		delay      time.Duration
		wantErr    string // ProviderError.Status
		wantNone   bool
		wantStored bool
	}{
		{"wathq answer", ProviderWathq, 200, wathqBody, 0, "", false, true},
		{"wathq not found", ProviderWathq, 404, []byte(`{"code":"404"}`), 0, "", false, true},
		{"wathq 503 with a body", ProviderWathq, 503, []byte("<html>down</html>"), 0, "503", false, true},
		{"wathq non-UTF-8", ProviderWathq, 200, nonUTF8, 0, "bad_response", false, true},
		{"wathq larger than an item", ProviderWathq, 503, large, 0, "503", false, true},
		{"wathq at the read limit", ProviderWathq, 503, atLimit, 0, "503", false, true},
		{"wathq past the read limit", ProviderWathq, 503, pastLimit, 0, "503", false, false},
		{"wathq timeout", ProviderWathq, 200, wathqBody, 300 * time.Millisecond, "timeout", true, false},
		{"yente answer", ProviderOpenSanctions, 200, yenteBody, 0, "", false, true},
		{"yente 503 with a body", ProviderOpenSanctions, 503, []byte("busy\x00\x01"), 0, "503", false, true},
		{"yente timeout", ProviderOpenSanctions, 200, yenteBody, 300 * time.Millisecond, "timeout", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.delay > 0 {
					time.Sleep(tt.delay)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write(tt.body)
			}))
			defer srv.Close()
			// A base URL configured with credentials in it: none reaches
			// the evidence.
			base := strings.Replace(srv.URL, "http://", "http://user:pa55word@", 1) + "/?api_key=s3cret&region=sa"
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			var (
				ev  *domain.Evidence
				err error
			)
			switch tt.provider {
			case ProviderWathq:
				var rec RegistryRecord
				rec, err = (&Wathq{BaseURL: srv.URL, APIKey: "wathq-key", API: WathqV4, Clock: domain.SystemClock}).Lookup(ctx, "7001234567")
				ev = rec.Evidence
			default:
				var res ScreeningResult
				res, err = (&Yente{BaseURL: base, APIKey: "yente-key"}).Screen(ctx, ScreeningQuery{Reference: "evs-1-2", Names: []ScreenedName{{Name: "Al Noor", Source: domain.NameDeclared}}})
				ev = res.Evidence
			}
			if pe, ok := err.(*ProviderError); ok {
				if pe.Status != tt.wantErr {
					t.Fatalf("error status %s, want %q", pe.Status, tt.wantErr)
				}
				ev = pe.Evidence
			} else if err != nil || tt.wantErr != "" {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if tt.wantNone {
				if ev != nil {
					t.Fatalf("evidence of a timeout: %+v", ev)
				}
				return
			}
			if ev == nil {
				t.Fatal("no evidence")
			}
			read := tt.body
			if len(read) > domain.MaxEvidence {
				read = read[:domain.MaxEvidence+1] // where reading stopped
			}
			if ev.SHA256 != hexSum(read) || ev.Size != len(read) {
				t.Errorf("sha256 %s size %d, want %s %d", ev.SHA256, ev.Size, hexSum(read), len(read))
			}
			if ev.Stored != tt.wantStored {
				t.Errorf("stored %v (%s), want %v", ev.Stored, ev.StoredReason, tt.wantStored)
			}
			if tt.wantStored && !bytes.Equal(ev.Body, tt.body) {
				t.Error("the body kept is not the bytes received")
			}
			if !tt.wantStored && (len(ev.Body) != 0 || ev.StoredReason == "") {
				t.Errorf("a body not kept: %d bytes, reason %q", len(ev.Body), ev.StoredReason)
			}
			if ev.HTTPStatus != tt.status || ev.Provider != tt.provider || ev.ReceivedAt.IsZero() {
				t.Errorf("metadata %+v", ev)
			}
			wantMethod := map[string]string{ProviderWathq: "GET", ProviderOpenSanctions: "POST"}[tt.provider]
			if ev.Method != wantMethod || !strings.HasPrefix(ev.URL, srv.URL) {
				t.Errorf("request %s %s", ev.Method, ev.URL)
			}
			for _, secret := range []string{"pa55word", "user", "s3cret", "wathq-key", "yente-key"} {
				if strings.Contains(ev.URL, secret) {
					t.Errorf("the URL %s carries %q", ev.URL, secret)
				}
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.wathq.sa/v4/commercialregistration/info/7001234567", "https://api.wathq.sa/v4/commercialregistration/info/7001234567"},
		{"https://u:p@h/x?api_key=k&limit=5", "https://h/x?api_key=REDACTED&limit=5"},
		{"https://h/x?token=t&Signature=s&sessionId=1#frag", "https://h/x?Signature=REDACTED&sessionId=REDACTED&token=REDACTED"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := http.NewRequest("GET", tt.in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := RedactURL(u.URL); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestIntakeResultEvidence: the result's evidence is the allow-listed
// provenance (never the body), the check carries the body for the store,
// and a failed call with a body keeps its evidence.
func TestIntakeResultEvidence(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("down for maintenance"))
	}))
	defer srv.Close()
	cfg := domain.CountryConfig{IntakeChecks: []domain.IntakeCheck{{Type: domain.CheckRegistryLookup, ProviderKey: ProviderWathq, TimeoutMS: 2000}}}
	for _, noEvidence := range []bool{false, true} {
		r := &Runner{Registries: map[string]Registry{ProviderWathq: &Wathq{BaseURL: srv.URL, APIKey: "k", Clock: domain.SystemClock}}, Clock: domain.SystemClock, NoEvidence: noEvidence}
		d := r.Intake(context.Background(), IntakeInput{AccountID: 1, RegistrationNumber: "7001234567", CountryCode: "SA", Config: cfg, CheckIDs: []int64{5}})
		c := d.Checks[0]
		ev, _ := c.Result["evidence"].(map[string]any)
		if noEvidence {
			if ev != nil || c.Evidence != nil {
				t.Fatalf("NoEvidence kept evidence: %v", ev)
			}
			continue
		}
		if c.Status != domain.CheckFailed || ev == nil || c.Evidence == nil {
			t.Fatalf("check %s, evidence %v", c.Status, ev)
		}
		if ev["http_status"] != 503 || ev["sha256"] != hexSum([]byte("down for maintenance")) || ev["body"] != nil {
			t.Errorf("evidence %v", ev)
		}
		if c.Evidence.CheckID != 5 || c.Evidence.AccountID != 1 {
			t.Errorf("evidence keyed %d/%d", c.Evidence.AccountID, c.Evidence.CheckID)
		}
	}
}

// TestEvidenceIsOfTheBytesSent: the answer is asked for uncompressed, so the
// hash is of what the provider sent, not of bytes Go's transport inflated
// from a gzip answer it asked for unseen. (The fake compresses whenever it
// is allowed to, as a CDN in front of a provider would.)
func TestEvidenceIsOfTheBytesSent(t *testing.T) {
	body := []byte(wathqLegacyActive)
	var asked string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.Header.Get("Accept-Encoding")
		if strings.Contains(asked, "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			_, _ = gz.Write(body)
			_ = gz.Close()
			return
		}
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	rec, err := (&Wathq{BaseURL: srv.URL, APIKey: "wathq-key", API: WathqV4, Clock: domain.SystemClock}).Lookup(context.Background(), "7001234567")
	if err != nil {
		t.Fatal(err)
	}
	if asked != "identity" || rec.Evidence == nil || rec.Evidence.SHA256 != hexSum(body) || rec.Evidence.Size != len(body) {
		t.Fatalf("Accept-Encoding %q; evidence %+v, want the hash of the %d bytes sent", asked, rec.Evidence, len(body))
	}
}
