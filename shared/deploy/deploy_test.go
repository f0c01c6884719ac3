package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
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
		if len(f.Streams) > 0 && f.Queue != nil {
			t.Errorf("%s has streams and a queue: one kind of event source", f.Name)
		}
		tables := map[string]bool{}
		for _, s := range f.Streams {
			if tables[s.Table] {
				t.Errorf("%s reads the stream of %q twice", f.Name, s.Table)
			}
			tables[s.Table] = true
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

// The tamper-evident tables are append-only by an allow-list: on the audit
// trail, its exports and the evidence table, a role may hold only GetItem,
// Query and PutItem (no UpdateItem, DeleteItem, BatchWriteItem — which can
// delete —, PartiQL or wildcard), but for the admin and decision functions'
// UpdateItem of an item's expiry alone (legal holds, the end of a
// relationship); and no function may put, update or
// delete audit exports any more: the heads go to the records bucket
// (audit-export), the exports already written stay as they are.
func TestAuditTablesAreAppendOnly(t *testing.T) {
	allowed := map[string]bool{getItem: true, query: true, putItem: true}
	for _, f := range Functions() {
		for _, g := range f.Grants {
			if g.Table != schema.Audit && g.Table != schema.AuditExports && g.Table != schema.Evidence {
				continue
			}
			for _, a := range g.Actions {
				switch {
				case a == updateItem && g.Table != schema.AuditExports && (f.Name == "admin" || f.Name == "decision") && slices.Equal(g.Attributes, schema.RetentionAttributes(g.Table)):
					// A legal hold moves the expiry aside and back, the end of
					// a relationship sets it: those attributes alone, by the
					// grant's IAM condition.
				case !allowed[a]:
					t.Errorf("%s may %s on %s: only GetItem, Query and PutItem are allowed there", f.Name, a, g.Table)
				case g.Table == schema.AuditExports && a != getItem && a != query:
					t.Errorf("%s may %s audit exports: no function may write them", f.Name, a)
				}
			}
		}
	}
}

// The evidence bucket's grants: each function that writes evidence items
// may put objects (a large body goes there first), and nothing else of the
// bucket; only the admin function (evidence.get) and audit-export (the
// locked copy) read objects, and write none; only audit-export deletes
// one (a body whose item expired); no one lists or touches versions. Each
// object action brings the one KMS
// action S3 takes as its caller on the bucket's key. The bucket uses the
// evidence table's customer-managed key and keeps objects as long as the
// table keeps items.
func TestEvidenceObjectGrants(t *testing.T) {
	want := map[string][]string{
		"create-entity":    {s3PutObject},
		"decision":         {s3PutObject},
		"provider-webhook": {s3PutObject},
		"admin":            {s3GetObject},
		"audit-export":     {s3GetObject, s3DeleteObject},
		"web":              {s3GetObject}, // the console shows a provider's answer
	}
	wantKMS := map[string][]string{s3PutObject: {"kms:GenerateDataKey"}, s3GetObject: {"kms:Decrypt"}, s3DeleteObject: nil}
	for _, f := range Functions() {
		var got []string
		for _, g := range f.Objects {
			if _, ok := LookupBucket(g.Bucket); !ok {
				t.Errorf("%s: grant on bucket %q, which is not in Buckets()", f.Name, g.Bucket)
			}
			if g.Bucket != BucketEvidence {
				continue
			}
			got = append(got, g.Actions...)
			for _, a := range g.Actions {
				if k := g.KeyActions(); len(g.Actions) == 1 && fmt.Sprint(k) != fmt.Sprint(wantKMS[a]) {
					t.Errorf("%s: %s brings %v on the key, want %v", f.Name, a, k, wantKMS[a])
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want[f.Name]) {
			t.Errorf("%s may %v on the evidence bucket's objects, want %v", f.Name, got, want[f.Name])
		}
		writesEvidence := false
		for _, g := range f.Grants {
			writesEvidence = writesEvidence || g.Table == schema.Evidence && slices.Contains(g.Actions, putItem)
		}
		if writesEvidence != slices.Contains(got, s3PutObject) {
			t.Errorf("%s: writes evidence items %v, may put objects %v", f.Name, writesEvidence, !writesEvidence)
		}
	}
	b := MustBucket(BucketEvidence)
	if tb, ok := schema.Lookup(b.KeyOfTable); !ok || !tb.CustomerKey || tb.ID != schema.Evidence {
		t.Errorf("the evidence bucket is encrypted with the key of %q, want the evidence table's own", b.KeyOfTable)
	}
	// No object goes by age: it is kept as long as its item, which has no
	// expiry while the relationship lasts; replaced versions go after a
	// while.
	if b.ExpireDays != 0 || b.NoncurrentDays <= 0 {
		t.Errorf("objects expire after %d days (noncurrent %d), want never by age, replaced versions after a while", b.ExpireDays, b.NoncurrentDays)
	}
}

// TestWorkflowActions: only the web function (the operator console) may
// drive the decision workflow, with exactly what the console calls:
// StartExecution and SendTaskSuccess/SendTaskFailure on the state machine,
// DescribeExecution on its executions. A function is told the state
// machine's ARN exactly when it drives it, and an action the catalogue
// does not know stops the build of the stacks.
func TestWorkflowActions(t *testing.T) {
	want := map[string][]string{"web": {StatesStartExecution, StatesDescribeExecution, StatesSendTaskSuccess, StatesSendTaskFailure}}
	for _, f := range Functions() {
		if fmt.Sprint(f.Workflow) != fmt.Sprint(want[f.Name]) {
			t.Errorf("%s: workflow actions %v, want %v", f.Name, f.Workflow, want[f.Name])
		}
		if told := slices.Contains(f.EnvVarNames(), DecisionStateMachineVar); told != (len(f.Workflow) > 0) {
			t.Errorf("%s: told %s: %v, with workflow actions %v", f.Name, DecisionStateMachineVar, told, f.Workflow)
		}
	}
	settings := MustFunction("web")
	if got := settings.WorkflowActionsOn(OnStateMachine); fmt.Sprint(got) != fmt.Sprint([]string{StatesStartExecution, StatesSendTaskSuccess, StatesSendTaskFailure}) {
		t.Errorf("on the state machine: %v", got)
	}
	if got := settings.WorkflowActionsOn(OnExecutions); fmt.Sprint(got) != fmt.Sprint([]string{StatesDescribeExecution}) {
		t.Errorf("on the executions: %v", got)
	}
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		Function{Name: "x", Workflow: []string{"states:StopExecution"}}.WorkflowActionsOn(OnExecutions)
		return false
	}()
	if !panicked {
		t.Error("an unknown workflow action did not panic")
	}
}

// TestConsoleSettings: the console checks passkeys for the relying party
// the decision function checks the decisions' signatures for, from the
// same parameters.
func TestConsoleSettings(t *testing.T) {
	params := func(name string) map[string]string {
		out := map[string]string{}
		for _, s := range MustFunction(name).Settings {
			out[s.EnvVar] = s.Parameter
		}
		return out
	}
	web, decision := params("web"), params("decision")
	for _, v := range []string{"PASSKEY_RP_ID", "PASSKEY_ORIGINS"} {
		if web[v] == "" || web[v] != decision[v] {
			t.Errorf("%s: the web function's parameter %q, the decision function's %q", v, web[v], decision[v])
		}
	}
}

// TestBucketsAreDescribed: each bucket has exactly one customer-managed
// key (a table's or its own); versions that expire go a while after; under
// Object Lock, a version expires only after its lock ran out.
func TestBucketsAreDescribed(t *testing.T) {
	for _, b := range Buckets() {
		t.Run(b.ID, func(t *testing.T) {
			if b.LogicalID == "" || b.EnvVar == "" || b.Description == "" {
				t.Errorf("no logical id, variable or description: %+v", b)
			}
			tb, ok := schema.Lookup(b.KeyOfTable)
			if tableKey := ok && tb.CustomerKey; tableKey == b.OwnKey {
				t.Errorf("the key of table %q (customer-managed: %v) and a key of its own: %v; want exactly one", b.KeyOfTable, tableKey, b.OwnKey)
			}
			if b.ExpireDays > 0 && b.NoncurrentDays <= 0 {
				t.Errorf("expires after %d days, noncurrent versions never", b.ExpireDays)
			}
			if b.ObjectLockDays > 0 && b.ExpireDays > 0 && b.ExpireDays <= b.ObjectLockDays {
				t.Errorf("locked %d days and expiring after %d: it would expire under its lock", b.ObjectLockDays, b.ExpireDays)
			}
		})
	}
}

// The records bucket keeps what no one can rewrite: its own key, Object
// Lock in COMPLIANCE mode (RecordsDefaultLockDays for a version written
// with no date), no lock past the longest rule's, a current version
// expiring by its tag a day after the longest its years can be (every
// value RecordKeepYears gives has its rule, and none expires a version
// before its lock ends), replaced ones a day later. By an allow-list, as
// the audit tables: only audit-export and admin hold anything on it,
// exactly this; only admin places legal holds; and the S3 actions the
// catalogue can grant at all name no delete, bypass, lock or lifecycle
// change, nor a wildcard, so no grant can.
func TestRecordsBucket(t *testing.T) {
	b := MustBucket(BucketRecords)
	if !b.OwnKey || b.KeyOfTable != "" || b.ObjectLockDays != domain.RecordsDefaultLockDays || ObjectLockMode != "COMPLIANCE" ||
		b.ExpireDays != 0 || b.NoncurrentDays != domain.RecordsNoncurrentDays || b.MaxLockDays != domain.RecordsKeepDays(domain.RecordsMaxKeepYears) {
		t.Errorf("records bucket %+v (mode %s): want its own key, locked %d days by default in COMPLIANCE mode, no expiry by age alone",
			b, ObjectLockMode, domain.RecordsDefaultLockDays)
	}
	now := time.Date(2027, 2, 28, 23, 59, 59, 0, time.UTC)
	for y := 1; y <= domain.RecordsMaxKeepYears; y++ {
		e := b.ExpireByTag[y-1]
		until := now.AddDate(y, 0, 0)
		if e.Key != domain.RecordsKeepTag || e.Value != strconv.Itoa(y) || domain.RecordKeepYears(now, until) != y ||
			!now.AddDate(0, 0, e.Days).After(until) || e.Days > b.MaxLockDays {
			t.Errorf("rule %+v: want %s=%d expiring after a lock of %d years (to %s) ended", e, domain.RecordsKeepTag, y, y, until)
		}
	}
	if len(b.ExpireByTag) != domain.RecordsMaxKeepYears {
		t.Errorf("%d rules by tag, want one per year up to %d", len(b.ExpireByTag), domain.RecordsMaxKeepYears)
	}

	want := map[string][]string{
		"audit-export": {s3PutObject, s3PutObjectRetention, s3PutObjectTagging, s3GetObject, s3GetObjectVersion, s3ListBucket, s3ListBucketVersions},
		"admin": {s3PutObject, s3PutObjectRetention, s3PutObjectTagging, s3GetObject, s3GetObjectVersion, s3ListBucket, s3ListBucketVersions,
			s3PutObjectLegalHold},
	}
	for _, f := range Functions() {
		t.Run(f.Name, func(t *testing.T) {
			var got []string
			for _, g := range f.Objects {
				if g.Bucket == BucketRecords {
					got = append(got, g.Actions...)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want[f.Name]) {
				t.Errorf("may %v on the records bucket, want %v", got, want[f.Name])
			}
			if slices.Contains(got, s3PutObjectLegalHold) && f.Name != "admin" {
				t.Error("places legal holds: only admin may")
			}
		})
	}

	// The one delete the catalogue knows removes a current object (a
	// delete marker in a versioned bucket), never a version, and only
	// audit-export holds it, on the evidence bucket.
	forbidden := []string{"s3:DeleteObjectVersion", "s3:BypassGovernanceRetention",
		"s3:PutBucketObjectLockConfiguration", "s3:PutLifecycleConfiguration", "s3:PutBucketPolicy", "s3:DeleteBucket"}
	for a := range S3Actions() {
		for _, no := range forbidden {
			if strings.HasPrefix(strings.ToLower(a), strings.ToLower(no)) || strings.ContainsAny(a, "*?") {
				t.Errorf("S3Actions() holds %s: the catalogue could grant %s", a, no)
			}
		}
	}
	for _, f := range Functions() {
		for _, g := range f.Objects {
			if slices.Contains(g.Actions, s3DeleteObject) && (g.Bucket != BucketEvidence || f.Name != "audit-export") {
				t.Errorf("%s may delete objects of the %s bucket: only audit-export, of the evidence bucket", f.Name, g.Bucket)
			}
		}
	}
}

// TestObjectGrantActions: a grant's actions split into those on the
// objects and those on the bucket, each bringing the KMS action S3 takes
// as the caller (once); an action the catalogue does not know panics.
func TestObjectGrantActions(t *testing.T) {
	tests := []struct {
		name                 string
		actions              []string
		objects, bucket, key []string
		panics               bool
	}{
		{name: "put", actions: []string{s3PutObject}, objects: []string{s3PutObject}, key: []string{"kms:GenerateDataKey"}},
		{name: "reads", actions: []string{s3GetObject, s3GetObjectVersion}, objects: []string{s3GetObject, s3GetObjectVersion}, key: []string{"kms:Decrypt"}},
		{name: "listings", actions: []string{s3ListBucket, s3ListBucketVersions}, bucket: []string{s3ListBucket, s3ListBucketVersions}},
		{name: "legal hold", actions: []string{s3PutObjectLegalHold}, objects: []string{s3PutObjectLegalHold}},
		{name: "a dated, tagged put", actions: []string{s3PutObject, s3PutObjectRetention, s3PutObjectTagging},
			objects: []string{s3PutObject, s3PutObjectRetention, s3PutObjectTagging}, key: []string{"kms:GenerateDataKey"}},
		{name: "mixed", actions: []string{s3ListBucket, s3PutObject, s3GetObject}, objects: []string{s3PutObject, s3GetObject},
			bucket: []string{s3ListBucket}, key: []string{"kms:GenerateDataKey", "kms:Decrypt"}},
		{name: "delete", actions: []string{s3DeleteObject}, objects: []string{s3DeleteObject}},
		{name: "delete a version", actions: []string{"s3:DeleteObjectVersion"}, panics: true},
		{name: "wildcard", actions: []string{"s3:*"}, panics: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := ObjectGrant{Bucket: BucketRecords, Actions: tc.actions}
			for _, c := range []struct {
				what string
				of   func() []string
				want []string
			}{{"objects", g.ObjectActions, tc.objects}, {"bucket", g.BucketActions, tc.bucket}, {"key", g.KeyActions, tc.key}} {
				var got []string
				panicked := func() (p bool) {
					defer func() { p = recover() != nil }()
					got = c.of()
					return false
				}()
				if panicked != tc.panics {
					t.Errorf("%s: panicked %v, want %v", c.what, panicked, tc.panics)
				}
				if !tc.panics && fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("%s: %v, want %v", c.what, got, c.want)
				}
			}
		})
	}
}
