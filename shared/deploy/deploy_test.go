package deploy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/evs-kyb/evs/shared/schema"
)

// TestEveryFunctionIsDescribed keeps this catalogue, functions/ and the route
// table in step.
func TestEveryFunctionIsDescribed(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("..", "..", "functions"))
	if err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for _, f := range Functions() {
		described[f.Name] = true
		if _, err := os.Stat(filepath.Join("..", "..", "functions", f.Name, "main.go")); err != nil {
			t.Errorf("%s: no functions/%s/main.go", f.Name, f.Name)
		}
		for _, g := range f.Grants {
			if _, ok := schema.Lookup(g.Table); !ok || len(g.Actions) == 0 {
				t.Errorf("%s: bad grant %+v", f.Name, g)
			}
		}
	}
	for _, d := range dirs {
		if d.IsDir() && !described[d.Name()] {
			t.Errorf("functions/%s is not in Functions()", d.Name())
		}
	}
	for _, r := range Routes() {
		if !described[r.Function] {
			t.Errorf("route %s %s is served by %q, which is not a function", r.Method, r.Path, r.Function)
		}
	}
}

func TestNames(t *testing.T) {
	if got := TableLogicalID("api_keys"); got != "ApiKeysTable" {
		t.Errorf("TableLogicalID(api_keys) = %s", got)
	}
	f, _ := Lookup("get-entity")
	want := []string{"CHECKS_TABLE", "ENTITIES_TABLE", "LOG_LEVEL", "REVIEWS_TABLE"}
	if got := f.EnvVarNames(); len(got) != len(want) || got[0] != want[0] || got[3] != want[3] {
		t.Errorf("EnvVarNames = %v, want %v", got, want)
	}
}

// TestEventSources holds queues and event sources to what Lambda needs.
func TestEventSources(t *testing.T) {
	for _, f := range Functions() {
		for _, id := range f.SendsTo {
			if q, ok := LookupQueue(id); !ok || q.EnvVar == "" {
				t.Errorf("%s sends to %q, which is no queue with a URL variable", f.Name, id)
			}
		}
		if s := f.Stream; s != nil {
			if tb, ok := schema.Lookup(s.Table); !ok || tb.Stream == "" {
				t.Errorf("%s reads the stream of %q, which has none", f.Name, s.Table)
			}
			if _, ok := LookupQueue(s.OnFailure); !ok || s.MaxRetries <= 0 || s.BatchSize <= 0 {
				t.Errorf("%s: stream source %+v needs bounded retries, a batch size and an on-failure queue", f.Name, s)
			}
		}
		if s := f.Queue; s != nil {
			q, ok := LookupQueue(s.Queue)
			if !ok {
				t.Fatalf("%s reads queue %q, which does not exist", f.Name, s.Queue)
			}
			if q.VisibilityTimeoutSeconds < 6*f.TimeoutSeconds {
				t.Errorf("%s: queue %s visibility %d s < 6 × timeout %d s", f.Name, q.ID, q.VisibilityTimeoutSeconds, f.TimeoutSeconds)
			}
			if _, ok := LookupQueue(q.DeadLetter); !ok || q.MaxReceiveCount <= 0 {
				t.Errorf("queue %s needs a dead-letter queue", q.ID)
			}
		}
	}
}

// TestLookupsFailLoudly: a name that is not in the catalogue is an error
// (or, from the Must forms, a panic), never a zero value used silently.
func TestLookupsFailLoudly(t *testing.T) {
	tests := []struct {
		name    string
		lookup  func() error
		must    func()
		wantErr bool
	}{
		{"function", func() error { _, err := FunctionByName("webhook-delivery"); return err }, func() { MustFunction("webhook-delivery") }, false},
		{"no function", func() error { _, err := FunctionByName("webhook-deliveries"); return err }, func() { MustFunction("webhook-deliveries") }, true},
		{"queue", func() error { _, err := QueueByID(QueueDeliveries); return err }, func() { MustQueue(QueueDeliveries) }, false},
		{"no queue", func() error { _, err := QueueByID("nope"); return err }, func() { MustQueue("nope") }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.lookup(); (err != nil) != tc.wantErr {
				t.Errorf("error %v, want one: %v", err, tc.wantErr)
			}
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				tc.must()
				return false
			}()
			if panicked != tc.wantErr {
				t.Errorf("Must panicked: %v, want %v", panicked, tc.wantErr)
			}
		})
	}
}

// TestCatalogueIsDescribed: every setting, queue and secret says what it is, for
// the template parameters, secrets and outputs made from them.
func TestCatalogueIsDescribed(t *testing.T) {
	for _, s := range Settings() {
		if s.Description == "" || s.Parameter == "" {
			t.Errorf("setting %s: no parameter or description", s.EnvVar)
		}
	}
	for _, q := range Queues() {
		if q.Description == "" {
			t.Errorf("queue %s: no description", q.ID)
		}
	}
	for _, s := range Secrets() {
		if s.Description == "" || s.Holds == "" {
			t.Errorf("secret %s: no description or no Holds", s.SecretID)
		}
	}
}

// TestStageURLSettings: a setting that defaults to the stage's URL has no
// default of its own and belongs to functions no route reaches (their
// environment waits for the API, which would wait for them: a dependency
// cycle in both templates).
func TestStageURLSettings(t *testing.T) {
	found := false
	for _, f := range Functions() {
		for _, s := range f.Settings {
			if !s.DefaultsToStageURL {
				continue
			}
			found = true
			if s.Default != "" {
				t.Errorf("%s: %s defaults to the stage's URL and to %q", f.Name, s.Parameter, s.Default)
			}
			if r, routed := f.Route(); routed {
				t.Errorf("%s: %s defaults to the stage's URL, but the route %s %s reaches the function", f.Name, s.Parameter, r.Method, r.Path)
			}
		}
	}
	if !found {
		t.Error("no setting defaults to the stage's URL; SETTINGS_BASE_URL should")
	}
}

// The audit trail's records, heads and exports are never updated or
// deleted by any function (a head moves by a conditioned Put), and only
// the periodic run writes the export: the hash chain's guarantees lean on
// these grants (README, the audit trail's hash chain).
func TestAuditTablesAreAppendOnly(t *testing.T) {
	for _, f := range Functions() {
		for _, g := range f.Grants {
			if g.Table != schema.Audit && g.Table != schema.AuditExports {
				continue
			}
			for _, a := range g.Actions {
				switch {
				case a == updateItem || a == deleteItem:
					t.Errorf("%s may %s on %s", f.Name, a, g.Table)
				case g.Table == schema.AuditExports && a == putItem && f.Name != "periodic-reviews":
					t.Errorf("%s may put audit exports", f.Name)
				}
			}
		}
	}
}
