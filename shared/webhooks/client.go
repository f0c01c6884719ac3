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
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// DefaultTimeout bounds one delivery: connecting, the TLS handshake,
	// sending, and the receiver's answer. Receivers are asked to answer
	// quickly and work asynchronously (spec section 6).
	DefaultTimeout = 10 * time.Second

	// MaxResponseBody is how many bytes of a receiver's answer a delivery
	// records: enough to see an error message, not a page of HTML.
	MaxResponseBody = 4096

	// maxURLLength keeps endpoint URLs to what every proxy and log handles.
	maxURLLength = 2048

	// maxResponseHeaderBytes caps the headers a receiver may send back: we
	// read none of them, and the default limit (1 MB) is generous for an
	// untrusted peer.
	maxResponseHeaderBytes = 64 << 10
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

// AllowList names the internal networks a deployment may post to anyway,
// e.g. 127.0.0.0/8 for a receiver on the same machine in local runs. The
// zero value allows nothing. It is a value: safe to copy and share.
type AllowList struct {
	prefixes []netip.Prefix
}

// ParseAllowList reads a comma-separated list of CIDR prefixes, such as
// "127.0.0.0/8,::1/128". A bare address means that one address. Empty
// entries are ignored, so "" is the empty list. A prefix with host bits set
// ("10.0.0.5/8") is refused rather than silently widened: in a security
// setting a typo should be loud.
func ParseAllowList(s string) (AllowList, error) {
	var out AllowList
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return AllowList{}, fmt.Errorf("allow-list entry %q is not a CIDR prefix or an IP address", part)
			}
			if a.Zone() != "" {
				return AllowList{}, fmt.Errorf("allow-list entry %q: zones are not supported", part)
			}
			out.prefixes = append(out.prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return AllowList{}, fmt.Errorf("allow-list entry %q is not a CIDR prefix: %w", part, err)
		}
		if m := p.Masked(); m != p {
			return AllowList{}, fmt.Errorf("allow-list entry %q has host bits set; did you mean %s?", part, m)
		}
		out.prefixes = append(out.prefixes, p)
	}
	return out, nil
}

// Permits reports whether ip lies in one of the list's prefixes. An
// IPv4-mapped IPv6 address (::ffff:127.0.0.1) is the IPv4 address it maps,
// so "127.0.0.0/8" permits it too.
func (l AllowList) Permits(ip netip.Addr) bool {
	ip = ip.WithZone("")
	for _, p := range l.prefixes {
		if p.Contains(ip) || (ip.Is4In6() && p.Contains(ip.Unmap())) {
			return true
		}
	}
	return false
}

// Empty reports whether the list permits nothing.
func (l AllowList) Empty() bool { return len(l.prefixes) == 0 }

// String is the list as ParseAllowList reads it.
func (l AllowList) String() string {
	s := make([]string, len(l.prefixes))
	for i, p := range l.prefixes {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// forbiddenRange is a network a webhook may not reach, with the name a user
// sees in the error.
type forbiddenRange struct {
	prefix netip.Prefix
	name   string
}

// forbiddenV4 and forbiddenV6 are the IANA special-purpose ranges (RFC 6890
// and its updates) that are not globally reachable, plus the ones that are
// technically reachable but never a legitimate webhook receiver and could be
// used to reach something internal. IPv6 outside 2000::/3 is refused as a
// whole (see forbiddenReason); the ranges there are listed for their names. They are functions returning fresh
// slices so the package keeps no mutable state.
func forbiddenV4() []forbiddenRange {
	return []forbiddenRange{
		{netip.MustParsePrefix("0.0.0.0/8"), `"this network" (0.0.0.0/8)`}, // 0.0.0.0 reaches the local host on Linux
		{netip.MustParsePrefix("10.0.0.0/8"), "private (10.0.0.0/8)"},
		{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT (100.64.0.0/10)"},
		{netip.MustParsePrefix("127.0.0.0/8"), "loopback (127.0.0.0/8)"},
		{netip.MustParsePrefix("169.254.0.0/16"), "link-local (169.254.0.0/16, incl. the cloud metadata service)"},
		{netip.MustParsePrefix("172.16.0.0/12"), "private (172.16.0.0/12)"},
		{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment (192.0.0.0/24)"}, // DS-Lite, NAT64 discovery
		{netip.MustParsePrefix("192.0.2.0/24"), "documentation (192.0.2.0/24)"},
		{netip.MustParsePrefix("192.88.99.0/24"), "6to4 relay anycast (192.88.99.0/24)"}, // deprecated, RFC 7526
		{netip.MustParsePrefix("192.168.0.0/16"), "private (192.168.0.0/16)"},
		{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking (198.18.0.0/15)"},
		{netip.MustParsePrefix("198.51.100.0/24"), "documentation (198.51.100.0/24)"},
		{netip.MustParsePrefix("203.0.113.0/24"), "documentation (203.0.113.0/24)"},
		{netip.MustParsePrefix("224.0.0.0/4"), "multicast (224.0.0.0/4)"},
		{netip.MustParsePrefix("255.255.255.255/32"), "broadcast (255.255.255.255)"}, // listed before 240/4 for its name
		{netip.MustParsePrefix("240.0.0.0/4"), "reserved (240.0.0.0/4)"},
	}
}

func forbiddenV6() []forbiddenRange {
	return []forbiddenRange{
		{netip.MustParsePrefix("::/128"), "unspecified (::)"},
		{netip.MustParsePrefix("::1/128"), "loopback (::1)"},
		// IPv4-compatible addresses (deprecated, RFC 4291) have no legitimate
		// use and some stacks route them as the IPv4 address they carry.
		{netip.MustParsePrefix("::/96"), "IPv4-compatible (::/96)"},
		{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64 (64:ff9b:1::/48)"},
		{netip.MustParsePrefix("100::/64"), "discard-only (100::/64)"},
		// Teredo, ORCHID, AMT, AS112 and the other IETF protocol assignments:
		// Teredo in particular tunnels to an IPv4 address hidden in the bits.
		{netip.MustParsePrefix("2001::/23"), "IETF protocol assignment (2001::/23, incl. Teredo)"},
		{netip.MustParsePrefix("2001:db8::/32"), "documentation (2001:db8::/32)"},
		// 6to4 (deprecated, RFC 7526) carries an IPv4 address and is relayed
		// to it by whichever relay answers; refused whole.
		{netip.MustParsePrefix("2002::/16"), "6to4 (2002::/16)"},
		{netip.MustParsePrefix("3fff::/20"), "documentation (3fff::/20)"},
		{netip.MustParsePrefix("5f00::/16"), "segment routing (5f00::/16)"},
		// Unique local addresses include AWS's IPv6 instance metadata
		// service, fd00:ec2::254, and its DNS and NTP (fd00:ec2::253, ::123).
		{netip.MustParsePrefix("fd00:ec2::/64"), "AWS internal services (fd00:ec2::/64, incl. instance metadata)"}, // before fc00::/7 for its name
		{netip.MustParsePrefix("fc00::/7"), "unique local (fc00::/7)"},
		{netip.MustParsePrefix("fe80::/10"), "link-local (fe80::/10)"},
		{netip.MustParsePrefix("fec0::/10"), "site-local (fec0::/10, deprecated)"},
		{netip.MustParsePrefix("ff00::/8"), "multicast (ff00::/8)"},
	}
}

// Forbidden reports whether a webhook may not connect to ip: loopback,
// private, link-local (with the cloud metadata service), unspecified,
// multicast, broadcast, carrier-grade NAT, documentation, benchmarking,
// reserved and deprecated tunnelling ranges, in IPv4 and IPv6, and the
// IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) forms of the
// forbidden IPv4 ranges. An invalid address is forbidden: the check fails
// closed.
func Forbidden(ip netip.Addr) bool {
	return forbiddenReason(ip) != ""
}

// forbiddenReason names the range ip falls in, or "" when it may be reached.
func forbiddenReason(ip netip.Addr) string {
	if !ip.IsValid() {
		return "invalid"
	}
	// netip.Prefix.Contains never matches an address with a zone; the zone
	// only picks an interface, the address decides the range.
	ip = ip.WithZone("")
	if ip.Is4In6() {
		ip = ip.Unmap()
	}
	// The well-known NAT64 prefix (RFC 6052): 64:ff9b::a.b.c.d is translated
	// to the IPv4 address a.b.c.d. Public IPv4 receivers reached from an
	// IPv6-only network through DNS64 legitimately appear under it, so the
	// embedded address is judged instead of the whole prefix.
	if ip.Is6() && netip.MustParsePrefix("64:ff9b::/96").Contains(ip) {
		b := ip.As16()
		if r := forbiddenReason(netip.AddrFrom4([4]byte(b[12:]))); r != "" {
			return "NAT64 of " + r
		}
		return ""
	}
	ranges := forbiddenV6()
	if ip.Is4() {
		ranges = forbiddenV4()
	}
	for _, r := range ranges {
		if r.prefix.Contains(ip) {
			return r.name
		}
	}
	// Only 2000::/3 is allocated as global unicast; the rest of the IPv6
	// space is reserved, and the NAT64 and IPv4-mapped forms were judged
	// above.
	if ip.Is6() && !netip.MustParsePrefix("2000::/3").Contains(ip) {
		return "reserved (outside the global unicast 2000::/3)"
	}
	return ""
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

// CheckURL validates a webhook endpoint's URL when it is configured, with
// messages meant for the user who typed it. It requires an absolute https
// URL with a host and no user name or password; plain http only for an IP
// address or "localhost" that the allow-list permits (local runs). An IP
// address or localhost that is internal is refused unless the allow-list
// permits it. Host names are not resolved here: what a name resolves to is
// checked by the client each time it connects.
func CheckURL(raw string, allow AllowList) error {
	if strings.TrimSpace(raw) == "" {
		return errors.New("url is required")
	}
	if len(raw) > maxURLLength {
		return fmt.Errorf("url must be at most %d characters", maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("url is not a valid URL")
	}
	if !u.IsAbs() || u.Opaque != "" {
		return errors.New("url must be absolute, such as https://example.com/webhooks")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return errors.New("url must use https")
	}
	if u.User != nil {
		return errors.New("url must not contain a user name or password")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("url must name a host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("url port must be between 1 and 65535")
		}
	}

	ip, ipErr := netip.ParseAddr(host)
	isIP := ipErr == nil
	isLocalhost := !isIP && isLocalhostName(host)
	if !isIP && !isLocalhost && numericName(host) {
		// "127.1", "2130706433", "0x7f000001": not IP addresses to Go, but
		// some resolvers read them as one. No real host name ends in an
		// all-numeric label, so refuse the ambiguity.
		return fmt.Errorf("url host %q is neither a host name nor an IP address written in the usual form", host)
	}

	// permitted reports whether an internal destination is on the allow-list.
	permitted := false
	switch {
	case isIP:
		permitted = allow.Permits(ip)
	case isLocalhost:
		permitted = allow.Permits(netip.IPv6Loopback()) || allow.Permits(netip.AddrFrom4([4]byte{127, 0, 0, 1}))
	}

	// The internal-address refusals come first: "use https" would not help.
	if isIP {
		if reason := forbiddenReason(ip); reason != "" && !permitted {
			return fmt.Errorf("url must not point to an internal address: %s is %s", ip, reason)
		}
	}
	if isLocalhost && !permitted {
		return fmt.Errorf("url must not point to an internal address: %s is this machine", host)
	}
	if u.Scheme == "http" && !permitted {
		return errors.New("url must use https")
	}
	return nil
}

// isLocalhostName reports whether host is "localhost" or a name under it,
// which resolvers answer with loopback addresses (RFC 6761).
func isLocalhostName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// numericName reports whether a host name's last label is all digits or a
// 0x-hex number, as in the inet_aton shorthands of IPv4 addresses.
func numericName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(last, "0x"); ok {
		last = rest
		for _, c := range last {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	for _, c := range last {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ReadCapped reads at most n bytes of r, the part of a receiver's answer a
// delivery records, and reports whether there was more. It never reads more
// than n+1 bytes, so a receiver cannot make us hold a large answer. The
// caller closes r; an answer left unread is not worth draining to reuse the
// connection.
func ReadCapped(r io.Reader, n int) (body []byte, truncated bool, err error) {
	if n < 0 {
		n = 0
	}
	body, err = io.ReadAll(io.LimitReader(r, int64(n)+1))
	if len(body) > n {
		body, truncated = body[:n], true
	}
	if err != nil {
		return body, truncated, fmt.Errorf("read response body: %w", err)
	}
	return body, truncated, nil
}
