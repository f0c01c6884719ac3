package domain

import "testing"

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
