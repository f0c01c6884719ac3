package main

import (
	"slices"
	"testing"
)

// TestLocalRelyingPartyFollowsUp: every local command takes the console's
// origins from what up served, so a decision signed on a console served on
// another port verifies from a shell that never set PORT; the variables
// override all.
func TestLocalRelyingPartyFollowsUp(t *testing.T) {
	t.Setenv("EVS_DEMO_DIR", t.TempDir())
	t.Setenv("PORT", "")
	t.Setenv("PASSKEY_RP_ID", "")
	t.Setenv("PASSKEY_ORIGINS", "")
	steps := []struct {
		name   string
		served string // the port up serves on before the step ("": none)
		env    map[string]string
		want   []string
	}{
		{name: "before any up", want: []string{"http://localhost:3000"}},
		{name: "up on 3107", served: "3107", want: []string{"http://localhost:3107"}},
		{name: "then up on 3000", served: "3000", want: []string{"http://localhost:3107", "http://localhost:3000"}},
		{name: "up on 3000 again", served: "3000", want: []string{"http://localhost:3107", "http://localhost:3000"}},
		{name: "the variables set", env: map[string]string{"PASSKEY_RP_ID": "console.example", "PASSKEY_ORIGINS": "https://console.example"},
			want: []string{"https://console.example"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			for k, v := range s.env {
				t.Setenv(k, v)
			}
			if s.served != "" {
				if err := rememberOrigin(servedOrigin(s.served)); err != nil {
					t.Fatal(err)
				}
			}
			if got := localPasskeys().Origins; !slices.Equal(got, s.want) {
				t.Errorf("origins %v, want %v", got, s.want)
			}
		})
	}
}
