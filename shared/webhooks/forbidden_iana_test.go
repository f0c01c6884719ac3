package webhooks

import (
	"net/netip"
	"slices"
	"testing"

	"code.dny.dev/ssrf"
)

type ianaException struct {
	prefix netip.Prefix
	why    string
}

// ianaAllowed are the prefixes of ssrf's deny lists that webhooks may reach
// on purpose, each with why. They are globally reachable anycast services
// (IANA's special-purpose registries mark them "Globally Reachable: True"):
// nothing internal answers there, and refusing them would only make us
// disagree with the registry.
var ianaAllowed = []ianaException{
	{netip.MustParsePrefix("192.31.196.0/24"), "AS112-v4 (RFC 7535): public anycast sink for stray reverse DNS queries"},
	{netip.MustParsePrefix("192.52.193.0/24"), "AMT (RFC 7450): public anycast relays for multicast tunnelling"},
	{netip.MustParsePrefix("192.175.48.0/24"), "Direct Delegation AS112 (RFC 7534): public anycast DNS service"},
	{netip.MustParsePrefix("2620:4f:8000::/48"), "Direct Delegation AS112 (RFC 7534), IPv6: public anycast DNS service"},
}

// TestForbiddenCoversIANA holds Forbidden to the IANA special-purpose lists
// that code.dny.dev/ssrf generates: every address of every prefix it denies
// is forbidden here too, but for the exceptions above. When the library
// picks up a new IANA range, this test fails until the range is forbidden
// or listed as an exception.
func TestForbiddenCoversIANA(t *testing.T) {
	allowed := func(p netip.Prefix) bool {
		return slices.ContainsFunc(ianaAllowed, func(a ianaException) bool { return a.prefix == p })
	}
	deny := slices.Concat(ssrf.IPv4DeniedPrefixes, ssrf.IPv6DeniedPrefixes)
	for _, p := range deny {
		if allowed(p) {
			continue
		}
		t.Run(p.String(), func(t *testing.T) {
			if !covered(p) {
				t.Errorf("%s is denied by IANA's special-purpose lists but not wholly Forbidden", p)
			}
			// The public function agrees at both ends of the prefix.
			for _, a := range []netip.Addr{p.Addr(), lastAddr(p)} {
				if !Forbidden(a) {
					t.Errorf("Forbidden(%s) = false", a)
				}
			}
		})
	}
	// The exceptions stay honest: each is still on the library's lists and
	// still reachable here.
	for _, a := range ianaAllowed {
		if !slices.Contains(deny, a.prefix) {
			t.Errorf("exception %s is no longer on ssrf's deny lists; drop it", a.prefix)
		}
		if Forbidden(a.prefix.Addr()) || Forbidden(lastAddr(a.prefix)) {
			t.Errorf("exception %s (%s) is Forbidden; drop it from the exceptions", a.prefix, a.why)
		}
	}
}

// TestCovered keeps the checker honest: it must tell a wholly refused
// prefix from one that is only partly refused, or not at all.
func TestCovered(t *testing.T) {
	tests := []struct {
		prefix string
		want   bool
	}{
		{"10.0.0.0/8", true},
		{"10.1.0.0/16", true},         // inside a forbidden range
		{"224.0.0.0/3", true},         // multicast and reserved side by side
		{"192.0.0.0/23", false},       // 192.0.1.0/24 is public
		{"8.0.0.0/8", false},          // public
		{"0.0.0.0/0", false},          // partly
		{"fc00::/7", true},            // unique local
		{"4000::/2", true},            // outside 2000::/3
		{"::/8", false},               // holds NAT64 of public IPv4
		{"64:ff9b::a00:0/104", true},  // NAT64 of 10.0.0.0/8
		{"64:ff9b::800:0/104", false}, // NAT64 of 8.0.0.0/8
		{"2001:db8::/32", true},
		{"2600::/16", false},
		{"::/0", false}, // partly: global unicast is public
	}
	for _, tt := range tests {
		if got := covered(netip.MustParsePrefix(tt.prefix)); got != tt.want {
			t.Errorf("covered(%s) = %v, want %v", tt.prefix, got, tt.want)
		}
	}
}

// covered reports whether every address of p is refused, decided from the
// rules themselves rather than by sampling: p is covered when one rule
// refuses it whole, or when both its halves are covered.
func covered(p netip.Prefix) bool {
	global := netip.MustParsePrefix("2000::/3")
	nat64 := netip.MustParsePrefix("64:ff9b::/96")
	// NAT64 first, as Forbidden judges it: the embedded IPv4 address decides.
	if p.Addr().Is6() && within(p, nat64) {
		b := p.Addr().As16()
		return covered(netip.PrefixFrom(netip.AddrFrom4([4]byte(b[12:])), p.Bits()-96))
	}
	if p.Addr().Is6() && !global.Overlaps(p) && !p.Overlaps(nat64) {
		return true // IPv6 outside global unicast is refused whole
	}
	ranges := forbiddenV6()
	if p.Addr().Is4() {
		ranges = forbiddenV4()
	}
	overlaps := p.Overlaps(nat64)
	for _, r := range ranges {
		if within(p, r.prefix) {
			return true
		}
		overlaps = overlaps || p.Overlaps(r.prefix)
	}
	if p.Addr().Is6() && !within(p, global) {
		overlaps = true // partly outside global unicast
	}
	if !overlaps || p.IsSingleIP() {
		return false
	}
	lo, hi := halves(p)
	return covered(lo) && covered(hi)
}

// within reports whether p lies wholly inside q.
func within(p, q netip.Prefix) bool {
	return q.Bits() <= p.Bits() && q.Contains(p.Addr())
}

// halves splits p into its two prefixes one bit longer.
func halves(p netip.Prefix) (lo, hi netip.Prefix) {
	b := p.Addr().AsSlice()
	n := p.Bits()
	lo = netip.PrefixFrom(p.Addr(), n+1)
	b[n/8] |= 0x80 >> (n % 8)
	a, _ := netip.AddrFromSlice(b)
	return lo, netip.PrefixFrom(a, n+1)
}

// lastAddr is the highest address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
