package webhooks

import (
	"strings"
	"testing"
)

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
