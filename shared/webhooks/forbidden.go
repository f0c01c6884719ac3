package webhooks

import "net/netip"

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
// whole (see forbiddenReason); the ranges there are listed for their names.
// They are functions returning fresh slices so the package keeps no mutable
// state.
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
