package webhooks

import (
	"fmt"
	"net/netip"
	"strings"
)

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
