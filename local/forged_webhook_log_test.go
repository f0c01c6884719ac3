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
	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/webhooks"
)

// maxRequestLog is what one hostile request may add to the log, whatever
// its size: a line or two, each carrying an untrusted value only as
// logging.Bounded renders it (at most logging.MaxBounded bytes, JSON
// escaping at most doubling it).
const maxRequestLog = 2 * (2*logging.MaxBounded + 400)

// A forged provider webhook through the gateway, as `up` serves it, is one
// log line naming why it was refused; a request the function logs nothing
// alarming about keeps the gateway's access line. Whatever the request's
// size (a 100 KB webhook-id, a 100 KB path), it adds a bounded number of
// bytes to the log: the untrusted values only as logging.Bounded renders
// them.
func TestForgedProviderWebhookLogsOneLine(t *testing.T) {
	st := devstacktest.Store(t)
	secret, err := webhooks.ParseSecret(localWebhookSecret())
	if err != nil {
		t.Fatal(err)
	}
	longID := "msg_" + strings.Repeat("i", 100<<10)
	cases := []struct {
		name       string
		path       string // "/webhooks/opensanctions" when empty
		id         string // "msg_forged_1" when empty
		sign       bool
		status     int
		lines      int // 1 when zero
		wantMsg    string
		wantReason bool
		// logged: a field of the first line and the untrusted value it
		// must carry as logging.Bounded renders it.
		logged, value string
	}{
		{name: "unsigned", status: 401, wantMsg: "provider webhook refused", wantReason: true},
		{name: "signed, unknown event type", sign: true, status: 200, wantMsg: "provider webhook ignored"},
		{name: "unsigned, a 100 KB webhook-id", id: longID, status: 400, wantMsg: "provider webhook refused", wantReason: true,
			logged: "webhook_id", value: longID},
		{name: "signed, a 100 KB webhook-id", id: longID, sign: true, status: 400, wantMsg: "provider webhook refused", wantReason: true,
			logged: "webhook_id", value: longID},
		// HTTP carries a tab and bytes over 0x7E in a header, not other
		// control bytes.
		{name: "signed, a webhook-id with a tab and a byte over 0x7E", id: "msg_\t\xff", sign: true, status: 400, wantMsg: "provider webhook refused", wantReason: true,
			logged: "webhook_id", value: "msg_\t\xff"},
		// No route: the gateway's access line alone.
		{name: "an unknown path of 100 KB", path: "/" + strings.Repeat("p", 100<<10), status: 404, wantMsg: "gateway",
			logged: "path", value: "/" + strings.Repeat("p", 100<<10)},
		// The function's refusal, then the gateway's access line.
		{name: "an unknown provider of 100 KB", path: "/webhooks/" + strings.Repeat("p", 100<<10), status: 404, lines: 2, wantMsg: "request refused",
			logged: "path", value: "/webhooks/" + strings.Repeat("p", 100<<10)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.path == "" {
				c.path = "/webhooks/opensanctions"
			}
			if c.id == "" {
				c.id = "msg_forged_1"
			}
			if c.lines == 0 {
				c.lines = 1
			}
			var out lockedBuffer
			log := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
			p := simulatorProviders("http://127.0.0.1:9")
			srv := httptest.NewServer(newGateway(st, log, p))
			defer srv.Close()
			body := []byte(`{"type":"screening.other","data":{}}`)
			req, _ := http.NewRequest(http.MethodPost, srv.URL+c.path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			ts := time.Now()
			req.Header.Set(webhooks.HeaderID, c.id)
			req.Header.Set(webhooks.HeaderTimestamp, itoa(int(ts.Unix())))
			req.Header.Set(webhooks.HeaderSignature, "v1,Zm9yZ2Vk")
			if c.sign {
				req.Header.Set(webhooks.HeaderSignature, webhooks.StandardSignature(secret, c.id, ts.Unix(), body))
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
			logged := out.String()
			lines := strings.Split(strings.TrimSpace(logged), "\n")
			t.Logf("log (%d bytes):\n%.2000s", len(logged), strings.Join(lines, "\n"))
			if c.status != 200 && len(lines) != c.lines {
				t.Fatalf("%d log lines, want %d", len(lines), c.lines)
			}
			if len(logged) > maxRequestLog {
				t.Errorf("the request added %d bytes to the log, over %d", len(logged), maxRequestLog)
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
			if c.logged != "" && first[c.logged] != logging.Bounded(c.value) {
				t.Errorf("line %v: %s is not %q", first, c.logged, logging.Bounded(c.value))
			}
		})
	}
}
