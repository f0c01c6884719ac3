package webhooks

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/capped"
)

func TestCheckDial(t *testing.T) {
	tests := []struct {
		network, address string
		blocked          bool // a *BlockedAddressError
		wantErr          bool
	}{
		{"tcp4", "93.184.216.34:443", false, false},
		{"tcp6", "[2606:4700:4700::1111]:443", false, false},
		{"tcp4", "127.0.0.1:80", true, true},
		{"tcp6", "[::ffff:169.254.169.254]:80", true, true},
		{"tcp6", "[fd00:ec2::254]:80", true, true},
		{"tcp6", "[fe80::1%eth0]:80", true, true},
		{"udp4", "8.8.8.8:53", false, true},
		{"tcp", "example.com:443", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.network+" "+tt.address, func(t *testing.T) {
			err := checkDial(tt.network, tt.address, AllowList{})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			var be *BlockedAddressError
			if errors.As(err, &be) != tt.blocked {
				t.Errorf("BlockedAddressError = %v, want %v (%v)", be != nil, tt.blocked, err)
			}
		})
	}
}

func TestNewClient(t *testing.T) {
	var elsewhere atomic.Int32
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		w.Write(body)
	})
	mux.HandleFunc("POST /moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) })
	mux.HandleFunc("POST /slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	defer srv.Close()
	defer close(release)
	port := srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()

	allow, err := ParseAllowList("127.0.0.0/8,::1/128")
	if err != nil {
		t.Fatal(err)
	}
	post := func(c *http.Client, u string) (*http.Response, error) {
		return c.Post(u, "application/json", strings.NewReader(`{"event_type":"entity_review.approved"}`))
	}
	wantBlocked := func(t *testing.T, err error) {
		t.Helper()
		var ue *url.Error
		if !errors.As(err, &ue) {
			t.Fatalf("err = %v (%T), want a *url.Error", err, err)
		}
		var be *BlockedAddressError
		if !errors.As(err, &be) {
			t.Fatalf("err = %v, want a *BlockedAddressError", err)
		}
		if !be.Addr.IsLoopback() && !be.Addr.Unmap().IsLoopback() {
			t.Errorf("blocked address = %s, want a loopback address", be.Addr)
		}
		if !strings.Contains(err.Error(), "refusing to connect to") {
			t.Errorf("message = %q", err)
		}
	}

	t.Run("loopback refused without the allow-list", func(t *testing.T) {
		resp, err := post(NewClient(ClientOptions{}), srv.URL+"/hook")
		if err == nil {
			resp.Body.Close()
			t.Fatal("the request reached a loopback server")
		}
		wantBlocked(t, err)
	})

	t.Run("localhost refused at connect time", func(t *testing.T) {
		u := "http://localhost:" + itoa(port) + "/hook"
		resp, err := post(NewClient(ClientOptions{}), u)
		if err == nil {
			resp.Body.Close()
			t.Fatal("the request reached localhost")
		}
		wantBlocked(t, err)
	})

	t.Run("mapped loopback refused", func(t *testing.T) {
		u := "http://[::ffff:127.0.0.1]:" + itoa(port) + "/hook"
		resp, err := post(NewClient(ClientOptions{}), u)
		if err == nil {
			resp.Body.Close()
			t.Fatal("the request reached a mapped loopback address")
		}
		wantBlocked(t, err)
	})

	t.Run("allowed with the allow-list", func(t *testing.T) {
		c := NewClient(ClientOptions{Allow: allow})
		for _, u := range []string{srv.URL + "/hook", "http://localhost:" + itoa(port) + "/hook"} {
			resp, err := post(c, u)
			if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			body, truncated, err := capped.Read(resp.Body, MaxResponseBody)
			resp.Body.Close()
			if err != nil || truncated || resp.StatusCode != http.StatusAccepted || !bytes.Contains(body, []byte("approved")) {
				t.Errorf("%s: %d %q truncated=%v err=%v", u, resp.StatusCode, body, truncated, err)
			}
		}
	})

	t.Run("a redirect is the answer, not followed", func(t *testing.T) {
		resp, err := post(NewClient(ClientOptions{Allow: allow}), srv.URL+"/moved")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != "/elsewhere" {
			t.Errorf("answer = %d Location %q, want 307 /elsewhere", resp.StatusCode, resp.Header.Get("Location"))
		}
		if n := elsewhere.Load(); n != 0 {
			t.Errorf("the redirect was followed %d times", n)
		}
	})

	t.Run("the timeout fires", func(t *testing.T) {
		start := time.Now()
		resp, err := post(NewClient(ClientOptions{Timeout: 200 * time.Millisecond, Allow: allow}), srv.URL+"/slow")
		if err == nil {
			resp.Body.Close()
			t.Fatal("no timeout")
		}
		var ue *url.Error
		if !errors.As(err, &ue) || !ue.Timeout() {
			t.Errorf("err = %v, want a timeout", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("the timeout took %v", d)
		}
	})

	t.Run("no proxy from the environment", func(t *testing.T) {
		tr := NewClient(ClientOptions{}).Transport.(*http.Transport)
		if tr.Proxy != nil {
			t.Error("Transport.Proxy is set")
		}
	})

	t.Run("default timeout", func(t *testing.T) {
		if c := NewClient(ClientOptions{}); c.Timeout != DefaultTimeout {
			t.Errorf("Timeout = %v, want %v", c.Timeout, DefaultTimeout)
		}
	})
}

func itoa(p uint16) string { return strconv.Itoa(int(p)) }
