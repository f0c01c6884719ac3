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
	"testing/iotest"
	"time"
)

func TestForbidden(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		// IPv4, forbidden.
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"10.0.0.1", true},
		{"10.255.255.255", true},
		{"100.64.0.1", true},
		{"100.127.255.254", true},
		{"127.0.0.1", true},
		{"127.1.2.3", true},
		{"169.254.169.254", true}, // cloud instance metadata
		{"169.254.170.2", true},   // ECS task metadata
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.0.0.8", true},
		{"192.0.2.1", true},
		{"192.88.99.1", true},
		{"192.168.1.1", true},
		{"198.18.0.1", true},
		{"198.19.255.255", true},
		{"198.51.100.7", true},
		{"203.0.113.9", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},
		// IPv4, allowed: public, and the neighbours of forbidden ranges.
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"9.255.255.255", false},
		{"11.0.0.0", false},
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		{"126.255.255.255", false},
		{"128.0.0.0", false},
		{"169.253.255.255", false},
		{"172.15.255.255", false},
		{"172.32.0.0", false},
		{"192.167.255.255", false},
		{"192.169.0.0", false},
		{"223.255.255.255", false},
		// IPv6, forbidden.
		{"::", true},
		{"::1", true},
		{"::127.0.0.1", true}, // IPv4-compatible
		{"::8.8.8.8", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"febf:ffff::1", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"fd00:ec2::254", true}, // AWS IPv6 instance metadata
		{"fd00:ec2::253", true},
		{"fec0::1", true},
		{"ff02::1", true},
		{"ff0e::1", true},
		{"100::1", true},
		{"2001::1", true},             // Teredo
		{"2001:0:4136:e378::1", true}, // Teredo
		{"2001:db8::1", true},
		{"2002:7f00:1::1", true}, // 6to4 of 127.0.0.1
		{"2002:808:808::1", true},
		{"3fff::1", true},
		{"5f00::1", true},
		{"64:ff9b:1::a00:1", true},
		{"::ffff:0:7f00:1", true}, // IPv4-translated (SIIT)
		{"4000::1", true},         // unallocated, outside 2000::/3
		{"1::1", true},
		// IPv6, allowed.
		{"2606:4700:4700::1111", false},
		{"2a00:1450:4001:82a::200e", false},
		{"2001:4860:4860::8888", false},
		{"2400:cb00:2049::1", false},
		{"3ffe:ffff::1", false}, // just below 3fff::/20
		{"fbff:ffff::1", true},  // just below fc00::/7, but outside 2000::/3
		// IPv4-mapped IPv6.
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:100.64.0.1", true},
		{"::ffff:0.0.0.0", true},
		{"::ffff:255.255.255.255", true},
		{"::ffff:8.8.8.8", false},
		// NAT64: judged by the embedded IPv4 address.
		{"64:ff9b::7f00:1", true},     // 127.0.0.1
		{"64:ff9b::a9fe:a9fe", true},  // 169.254.169.254
		{"64:ff9b::c0a8:101", true},   // 192.168.1.1
		{"64:ff9b::808:808", false},   // 8.8.8.8
		{"64:ff9b::1.1.1.1", false},   //
		{"64:ff9b::10.1.2.3", true},   //
		{"64:ff9b::ffff:ffff", true},  // 255.255.255.255
		{"64:ff9b:0:0:1::", true},     // outside the /96, and outside 2000::/3
		{"64:ff9b::100.64.0.1", true}, // CGNAT
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := Forbidden(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("Forbidden(%s) = %v, want %v (%s)", tt.addr, got, tt.want, forbiddenReason(netip.MustParseAddr(tt.addr)))
			}
		})
	}
	if !Forbidden(netip.Addr{}) {
		t.Error("the zero Addr must be forbidden (fail closed)")
	}
}

func TestParseAllowList(t *testing.T) {
	tests := []struct {
		in      string
		want    string // String() of the list
		wantErr string
	}{
		{"", "", ""},
		{"  ", "", ""},
		{"127.0.0.0/8,::1/128", "127.0.0.0/8,::1/128", ""},
		{" 10.0.0.0/8 , 192.168.0.0/16 ,", "10.0.0.0/8,192.168.0.0/16", ""},
		{"127.0.0.1", "127.0.0.1/32", ""},
		{"::1", "::1/128", ""},
		{"10.0.0.5/8", "", "has host bits set; did you mean 10.0.0.0/8?"},
		{"10.0.0.0/33", "", "is not a CIDR prefix"},
		{"localhost", "", "is not a CIDR prefix or an IP address"},
		{"127.0.0.0/8;::1/128", "", "is not a CIDR prefix"},
		{"fe80::1%eth0", "", "zones are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAllowList(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("list = %q, want %q", got, tt.want)
			}
			if got.Empty() != (tt.want == "") {
				t.Errorf("Empty() = %v", got.Empty())
			}
		})
	}
}

func TestAllowListPermits(t *testing.T) {
	l, err := ParseAllowList("127.0.0.0/8,::1/128,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.9.9.9", true},
		{"::ffff:127.0.0.1", true}, // the mapped form of a permitted IPv4 address
		{"::1", true},
		{"fd00:ec2::254", true},
		{"10.0.0.1", false},
		{"169.254.169.254", false},
		{"::2", false},
		{"8.8.8.8", false},
	}
	for _, tt := range tests {
		if got := l.Permits(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("Permits(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
	if (AllowList{}).Permits(netip.MustParseAddr("127.0.0.1")) {
		t.Error("the zero AllowList permitted an address")
	}
}

func TestCheckURL(t *testing.T) {
	local, err := ParseAllowList("127.0.0.0/8,::1/128")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		url     string
		allow   AllowList
		wantErr string // "" when valid
	}{
		{"https", "https://hooks.example.com/evs", AllowList{}, ""},
		{"https with port and query", "https://hooks.example.com:8443/evs?x=1", AllowList{}, ""},
		{"https public IP", "https://93.184.216.34/hook", AllowList{}, ""},
		{"https public IPv6", "https://[2606:4700:4700::1111]/hook", AllowList{}, ""},
		{"upper-case scheme", "HTTPS://hooks.example.com/", AllowList{}, ""},
		{"empty", "", AllowList{}, "url is required"},
		{"relative", "/webhooks", AllowList{}, "url must be absolute"},
		{"no scheme", "hooks.example.com/evs", AllowList{}, "url must be absolute"},
		{"opaque", "https:hooks.example.com", AllowList{}, "url must be absolute"},
		{"ftp", "ftp://hooks.example.com/", AllowList{}, "url must use https"},
		{"javascript", "javascript:alert(1)", AllowList{}, "url must be absolute"},
		{"http host name", "http://hooks.example.com/", AllowList{}, "url must use https"},
		{"http host name even when loopback is allowed", "http://hooks.example.com/", local, "url must use https"},
		{"http public IP not allowed", "http://93.184.216.34/", AllowList{}, "url must use https"},
		{"userinfo", "https://user:pass@hooks.example.com/", AllowList{}, "must not contain a user name or password"},
		{"user only", "https://user@hooks.example.com/", AllowList{}, "must not contain a user name or password"},
		{"no host", "https:///path", AllowList{}, "url must name a host"},
		{"port only", "https://:443/", AllowList{}, "url must name a host"},
		{"port zero", "https://hooks.example.com:0/", AllowList{}, "port must be between 1 and 65535"},
		{"port too big", "https://hooks.example.com:70000/", AllowList{}, "port must be between 1 and 65535"},
		{"bad URL", "https://hooks example.com/", AllowList{}, "not a valid URL"},
		{"too long", "https://hooks.example.com/" + strings.Repeat("a", 2048), AllowList{}, "at most 2048 characters"},
		{"loopback IP", "https://127.0.0.1/", AllowList{}, "internal address: 127.0.0.1 is loopback"},
		{"metadata", "http://169.254.169.254/latest/meta-data/", AllowList{}, "internal address: 169.254.169.254 is link-local"},
		{"private IP over http", "http://10.0.0.1/", AllowList{}, "internal address: 10.0.0.1 is private"},
		{"IPv6 loopback", "https://[::1]:8080/", AllowList{}, "internal address"},
		{"mapped loopback", "https://[::ffff:127.0.0.1]/", AllowList{}, "internal address"},
		{"AWS IPv6 metadata", "http://[fd00:ec2::254]/", AllowList{}, "internal address"},
		{"link-local with zone", "https://[fe80::1%25eth0]/", AllowList{}, "internal address"},
		{"localhost", "https://localhost:3000/", AllowList{}, "localhost is this machine"},
		{"localhost over http", "http://localhost:3000/", AllowList{}, "localhost is this machine"},
		{"name under localhost", "https://evs.localhost/", AllowList{}, "is this machine"},
		{"numeric shorthand", "https://127.1/", AllowList{}, "neither a host name nor an IP address"},
		{"decimal IPv4", "https://2130706433/", AllowList{}, "neither a host name nor an IP address"},
		{"hex IPv4", "https://0x7f000001/", AllowList{}, "neither a host name nor an IP address"},
		{"allowed loopback over http", "http://127.0.0.1:9000/hook", local, ""},
		{"allowed localhost over http", "http://localhost:9000/hook", local, ""},
		{"allowed IPv6 loopback", "http://[::1]:9000/hook", local, ""},
		{"allowed loopback over https", "https://127.0.0.1/", local, ""},
		{"private IP not on the list", "http://10.0.0.1/", local, "internal address: 10.0.0.1 is private"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckURL(tt.url, tt.allow)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("CheckURL(%q) = %v, want an error containing %q", tt.url, err, tt.wantErr)
			}
		})
	}
}

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
			body, truncated, err := ReadCapped(resp.Body, MaxResponseBody)
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

func TestReadCapped(t *testing.T) {
	tests := []struct {
		name          string
		in            string
		n             int
		want          string
		wantTruncated bool
	}{
		{"empty", "", 10, "", false},
		{"shorter", "hello", 10, "hello", false},
		{"exactly n", "hello", 5, "hello", false},
		{"one over", "hello!", 5, "hello", true},
		{"much longer", strings.Repeat("x", 10_000), MaxResponseBody, strings.Repeat("x", MaxResponseBody), true},
		{"zero", "hello", 0, "", true},
		{"negative is zero", "hello", -1, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, truncated, err := ReadCapped(strings.NewReader(tt.in), tt.n)
			if err != nil || string(body) != tt.want || truncated != tt.wantTruncated {
				t.Errorf("ReadCapped = %q, %v, %v; want %q, %v", body, truncated, err, tt.want, tt.wantTruncated)
			}
		})
	}
	t.Run("reads no more than n+1 bytes", func(t *testing.T) {
		r := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
		if _, _, err := ReadCapped(r, 100); err != nil {
			t.Fatal(err)
		}
		if r.n > 101 {
			t.Errorf("read %d bytes", r.n)
		}
	})
	t.Run("a read error is reported with what was read", func(t *testing.T) {
		r := io.MultiReader(strings.NewReader("part"), iotest.ErrReader(errors.New("reset")))
		body, _, err := ReadCapped(r, 100)
		if err == nil || string(body) != "part" {
			t.Errorf("ReadCapped = %q, %v", body, err)
		}
	})
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func itoa(p uint16) string { return strconv.Itoa(int(p)) }
