package domain

import (
	"strings"
	"testing"
)

func TestScopedID(t *testing.T) {
	tests := []struct {
		account, seq, want int64
	}{
		{1, 1, 1_000_000_001},
		{42, 7, 42_000_000_007},
		{MaxScopedAccount, IDSpan - 1, MaxScopedAccount*IDSpan + IDSpan - 1},
	}
	for _, tt := range tests {
		id := ScopedID(tt.account, tt.seq)
		if id != tt.want || SeqOfID(id) != tt.seq || id/IDSpan != tt.account {
			t.Errorf("ScopedID(%d, %d) = %d (seq %d)", tt.account, tt.seq, id, SeqOfID(id))
		}
		if id > 1<<53-1 {
			t.Errorf("ScopedID(%d, %d) = %d, past 2^53", tt.account, tt.seq, id)
		}
	}
	if CheckScopedAccount(MaxScopedAccount) != nil || CheckScopedAccount(MaxScopedAccount+1) == nil || CheckScopedAccount(0) == nil {
		t.Error("CheckScopedAccount bounds")
	}
}

func TestShortIDHint(t *testing.T) {
	tests := []struct {
		name           string
		account, id    int64
		want, wantNone bool
	}{
		{name: "a place in the sequence, as ids were once written", account: 1, id: 156, want: true},
		{name: "a whole id", account: 1, id: 1_000_000_156, wantNone: true},
		{name: "no account", account: 0, id: 156, wantNone: true},
		{name: "no id", account: 1, id: 0, wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ShortIDHint(tt.account, tt.id)
			if tt.wantNone != (got == "") || tt.want && !strings.Contains(got, "number 156 of account 1 is 1000000156") {
				t.Errorf("ShortIDHint(%d, %d) = %q", tt.account, tt.id, got)
			}
		})
	}
}
