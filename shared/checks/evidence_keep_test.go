package checks

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// fakeBlobs records the objects put, or fails every put.
type fakeBlobs struct {
	objects map[string][]byte
	fail    bool
}

func (f *fakeBlobs) Put(_ context.Context, key string, body []byte) error {
	if f.fail {
		return errors.New("bucket unavailable")
	}
	f.objects[key] = append([]byte(nil), body...)
	return nil
}

// TestKeepEvidence: a body over the item's 350 KB goes to the blob store
// under its content-addressed key and leaves the evidence; a smaller one,
// or one not kept, stays as it is; without a blob store a large body is not
// kept, and the evidence says why; a failed write is the caller's error.
func TestKeepEvidence(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	small := []byte("{\"x\":1}")
	large := bytes.Repeat([]byte{0xFF}, domain.MaxInlineEvidence+1)
	tests := []struct {
		name       string
		body       []byte
		blobs      *fakeBlobs
		wantErr    bool
		wantKey    bool
		wantStored bool
	}{
		{name: "small: inline", body: small, blobs: &fakeBlobs{objects: map[string][]byte{}}, wantStored: true},
		{name: "at the item's limit: inline", body: large[:domain.MaxInlineEvidence], blobs: &fakeBlobs{objects: map[string][]byte{}}, wantStored: true},
		{name: "large: an object", body: large, blobs: &fakeBlobs{objects: map[string][]byte{}}, wantKey: true, wantStored: true},
		{name: "large, no blob store: not kept", body: large, wantStored: false},
		{name: "large, the write fails", body: large, blobs: &fakeBlobs{fail: true}, wantErr: true, wantStored: true},
		{name: "past the read limit: not kept anyway", body: bytes.Repeat([]byte("z"), domain.MaxEvidence+1), blobs: &fakeBlobs{objects: map[string][]byte{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := domain.NewEvidence("wathq", "GET", "https://api.wathq.sa/x", 200, tt.body, at)
			ev.AccountID, ev.CheckID = 3, 42
			var blobs BlobPutter
			if tt.blobs != nil {
				blobs = tt.blobs
			}
			err := KeepEvidence(context.Background(), blobs, ev)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want one: %v", err, tt.wantErr)
			}
			if ev.Stored != tt.wantStored || (!ev.Stored && (ev.Body != nil || ev.StoredReason == "")) {
				t.Errorf("stored %v (%q), %d bytes; want stored %v", ev.Stored, ev.StoredReason, len(ev.Body), tt.wantStored)
			}
			key := domain.EvidenceObjectKey(3, 42, ev.SHA256)
			if !tt.wantKey {
				if ev.BodyKey != "" || (tt.blobs != nil && len(tt.blobs.objects) != 0) {
					t.Errorf("key %q, objects %d", ev.BodyKey, len(tt.blobs.objects))
				}
				return
			}
			if ev.BodyKey != key || ev.Body != nil || !bytes.Equal(tt.blobs.objects[key], tt.body) {
				t.Errorf("key %q (want %q), %d bytes left in the evidence, object of %d bytes", ev.BodyKey, key, len(ev.Body), len(tt.blobs.objects[key]))
			}
			if !strings.HasPrefix(key, "evidence/3/42/") || ev.SHA256 != hexSum(tt.body) || ev.Size != len(tt.body) {
				t.Errorf("key %s, sha256 %s, size %d", key, ev.SHA256, ev.Size)
			}
		})
	}
}

// TestIntakeKeepsLargeAnswers: through the runner, a large answer becomes
// an object under its check's key; a blob store that refuses leaves the
// check completed as it was, its evidence not stored, and why.
func TestIntakeKeepsLargeAnswers(t *testing.T) {
	body := []byte(`{"status":{"id":"active","nameEn":"Active"},"crName":"` + strings.Repeat("a", domain.MaxInlineEvidence) + `"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) }))
	defer srv.Close()
	cfg := domain.CountryConfig{IntakeChecks: []domain.IntakeCheck{{Type: domain.CheckRegistryLookup, ProviderKey: ProviderWathq, TimeoutMS: 2000}}}
	for _, fail := range []bool{false, true} {
		blobs := &fakeBlobs{objects: map[string][]byte{}, fail: fail}
		r := &Runner{Registries: map[string]Registry{ProviderWathq: &Wathq{BaseURL: srv.URL, APIKey: "k", API: WathqV4, Clock: domain.SystemClock}}, Clock: domain.SystemClock, Blobs: blobs}
		d := r.Intake(context.Background(), IntakeInput{AccountID: 1, RegistrationNumber: "7001234567", CountryCode: "SA", Config: cfg, CheckIDs: []int64{5}})
		c := d.Checks[0]
		ev := c.Result["evidence"].(map[string]any)
		if ev["sha256"] != hexSum(body) || ev["size"] != len(body) || ev["stored"] != !fail {
			t.Errorf("fail %v: evidence %v", fail, ev)
		}
		key := domain.EvidenceObjectKey(1, 5, hexSum(body))
		if fail {
			if c.Evidence.Stored || ev["stored_reason"] == nil || len(blobs.objects) != 0 {
				t.Errorf("a refused write: evidence %+v", ev)
			}
			continue
		}
		if c.Evidence.BodyKey != key || !bytes.Equal(blobs.objects[key], body) || c.Evidence.Body != nil {
			t.Errorf("key %q, object %d bytes", c.Evidence.BodyKey, len(blobs.objects[key]))
		}
	}
}
