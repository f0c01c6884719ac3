package schema

import (
	"testing"
)

func TestTablesAreTenantScoped(t *testing.T) {
	for _, tb := range Tables() {
		switch tb.ID {
		case APIKeys, PortalTokens, Counters, InboundWebhooks:
			// The key and token lookups find the account; the global id
			// sequences and webhook ids hold no tenant data.
			continue
		}
		if tb.PartitionKey.Name != "account_id" {
			t.Errorf("%s: partition key %q, want account_id", tb.ID, tb.PartitionKey.Name)
		}
		for _, ix := range tb.Indexes {
			if !ix.Local && !AccountScoped(ix.PartitionKey) {
				t.Errorf("%s.%s: global index not keyed by account", tb.ID, ix.Name)
			}
		}
	}
}

func TestNamesFromEnv(t *testing.T) {
	env := map[string]string{"ENTITIES_TABLE": "prod-entities", "ACCOUNTS_TABLE": "prod-accounts"}
	n, err := NamesFromEnv(func(k string) string { return env[k] }, Entities, Accounts)
	if err != nil || n[Entities] != "prod-entities" || n[Accounts] != "prod-accounts" || len(n) != 2 {
		t.Errorf("names = %v, %v", n, err)
	}
	if _, err := NamesFromEnv(func(k string) string { return env[k] }, Entities, Reviews); err == nil {
		t.Error("a missing REVIEWS_TABLE was accepted")
	}
	if _, err := NamesFromEnv(func(string) string { return "x" }, "nope"); err == nil {
		t.Error("an unknown table was accepted")
	}
}

func TestTableByID(t *testing.T) {
	tests := []struct {
		id      string
		wantErr bool
	}{{Entities, false}, {"entity", true}, {"", true}}
	for _, tc := range tests {
		_, err := TableByID(tc.id)
		if (err != nil) != tc.wantErr {
			t.Errorf("TableByID(%q): %v, want an error: %v", tc.id, err, tc.wantErr)
		}
		panicked := func() (p bool) {
			defer func() { p = recover() != nil }()
			MustTable(tc.id)
			return false
		}()
		if panicked != tc.wantErr {
			t.Errorf("MustTable(%q) panicked: %v", tc.id, panicked)
		}
	}
}
