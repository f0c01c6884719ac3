package webhooks

import (
	"net/netip"
	"testing"
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
