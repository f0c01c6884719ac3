package webhooks

import (
	"net/netip"
	"strings"
	"testing"
)

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
