package webhooks

// The outbound side: the HTTP client that posts deliveries to subscribers.
//
// A subscriber chooses the URL we post to, so the URL is untrusted input that
// makes our network send requests (server-side request forgery). The client
// therefore refuses to connect to internal addresses (loopback, private
// networks, the cloud metadata service, ...) and the check is made where it
// cannot be dodged: on the IP address each socket is about to connect to,
// after DNS resolution. Checking the host name when the endpoint is saved is
// not enough, because the name can later resolve elsewhere (DNS rebinding),
// and following a redirect would let any public host point us anywhere, so
// redirects are never followed.

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

const (
	// DefaultTimeout bounds one delivery: connecting, the TLS handshake,
	// sending, and the receiver's answer. Receivers are asked to answer
	// quickly and work asynchronously (spec section 6).
	DefaultTimeout = 10 * time.Second

	// maxResponseHeaderBytes caps the headers a receiver may send back: we
	// read none of them, and the default limit (1 MB) is generous for an
	// untrusted peer.
	maxResponseHeaderBytes = 64 << 10

	// MaxResponseBody is how many bytes of a receiver's answer a delivery
	// records: enough to see an error message, not a page of HTML.
	MaxResponseBody = 4096
)

// BlockedAddressError is the error of a connection refused because its
// destination is an internal address the allow-list does not permit. It
// reaches the caller of http.Client.Do wrapped in a *url.Error and a
// *net.OpError; find it with errors.As.
type BlockedAddressError struct {
	Addr   netip.Addr // the resolved address the connection would have gone to
	Reason string     // the kind of address, e.g. "loopback (127.0.0.0/8)"
}

func (e *BlockedAddressError) Error() string {
	return fmt.Sprintf("webhooks: refusing to connect to %s: %s addresses are not allowed as webhook destinations", e.Addr, e.Reason)
}

// ClientOptions configure NewClient.
type ClientOptions struct {
	// Timeout bounds a whole delivery, and each of its phases. Zero or less
	// means DefaultTimeout.
	Timeout time.Duration
	// Allow lists the internal networks the client may reach anyway (local
	// runs, tests). Empty in production.
	Allow AllowList
}

// NewClient returns the HTTP client for webhook deliveries. It:
//
//   - checks every connection's resolved IP address as the socket is about to
//     connect, refusing Forbidden addresses the allow-list does not permit
//     with a *BlockedAddressError (so DNS rebinding cannot get around it);
//   - never follows redirects: a 3xx is the receiver's answer, recorded as a
//     failed delivery;
//   - ignores proxy settings from the environment, which would move the
//     connection (and the check) to the proxy;
//   - bounds dialling, the TLS handshake, waiting for the answer and the
//     whole request by the timeout;
//   - keeps connections alive between deliveries, since one receiver gets
//     many; a connection is only reused for the host and port it was checked
//     and dialled for.
//
// Build one per process and share it: it is safe for concurrent use.
func NewClient(opts ClientOptions) *http.Client {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	allow := opts.Allow
	dialer := &net.Dialer{
		Timeout:   timeout,
		KeepAlive: 30 * time.Second,
		// ControlContext runs for each address the dialer tries, after name
		// resolution and before connect(2): the address checked is the
		// address connected to.
		ControlContext: func(_ context.Context, network, address string, _ syscall.RawConn) error {
			return checkDial(network, address, allow)
		},
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true, // a custom DialContext turns HTTP/2 off unless asked
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// checkDial is the connect-time check of one address ("ip:port").
func checkDial(network, address string, allow AllowList) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return fmt.Errorf("webhooks: refusing to dial %s %s: only TCP is allowed", network, address)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// The dialer always hands over a resolved numeric address; anything
		// else is refused rather than guessed at.
		return fmt.Errorf("webhooks: refusing to dial %q: not an IP address and port: %w", address, err)
	}
	ip := ap.Addr()
	if reason := forbiddenReason(ip); reason != "" && !allow.Permits(ip) {
		return &BlockedAddressError{Addr: ip, Reason: reason}
	}
	return nil
}
