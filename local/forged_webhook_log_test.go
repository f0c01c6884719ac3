package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// A forged provider webhook through the gateway, as `up` serves it, is one
// log line naming why it was refused; a request the function logs nothing
// alarming about keeps the gateway's access line.
func TestForgedProviderWebhookLogsOneLine(t *testing.T) {
	st := devstacktest.Store(t)
	secret, err := webhooks.ParseSecret(localWebhookSecret())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		sign       bool
		status     int
		wantMsg    string
		wantReason bool
	}{
		{name: "unsigned", status: 401, wantMsg: "provider webhook refused", wantReason: true},
		{name: "signed, unknown event type", sign: true, status: 200, wantMsg: "provider webhook ignored"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out lockedBuffer
			log := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
			p := simulatorProviders("http://127.0.0.1:9")
			srv := httptest.NewServer(newGateway(st, log, p))
			defer srv.Close()
			body := []byte(`{"type":"screening.other","data":{}}`)
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhooks/opensanctions", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			id, ts := "msg_forged_1", time.Now()
			req.Header.Set(webhooks.HeaderID, id)
			req.Header.Set(webhooks.HeaderTimestamp, itoa(int(ts.Unix())))
			req.Header.Set(webhooks.HeaderSignature, "v1,Zm9yZ2Vk")
			if c.sign {
				req.Header.Set(webhooks.HeaderSignature, webhooks.StandardSignature(secret, id, ts.Unix(), body))
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			t.Logf("log:\n%s", strings.Join(lines, "\n"))
			if c.status == 401 && len(lines) != 1 {
				t.Fatalf("%d log lines, want 1", len(lines))
			}
			var first map[string]any
			if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
				t.Fatal(err)
			}
			if first["msg"] != c.wantMsg {
				t.Errorf("line %v, want msg %q", first, c.wantMsg)
			}
			if reason, _ := first["reason"].(string); c.wantReason && reason == "" {
				t.Errorf("line %v names no reason", first)
			}
		})
	}
}
