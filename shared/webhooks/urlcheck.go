package webhooks

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// maxURLLength keeps endpoint URLs to what every proxy and log handles.
const maxURLLength = 2048

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
