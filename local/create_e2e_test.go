package main

// End-to-end tests of entity creation and the provider webhook: an HTTP
// client against the local gateway, the providers played by the simulator
// over real HTTP, DynamoDB Local underneath.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/api/apitest"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webhooks"
)

type createFixture struct {
	srv     *httptest.Server
	sim     *sim.Simulator
	simURL  string
	st      *store.Store
	account int64
	key     string // entity.view, entity.create, entity.review.view
	viewKey string // entity.view only
}

func newCreateFixture(t *testing.T, opts ...func(*dynamodb.Options)) *createFixture {
	t.Helper()
	ctx := context.Background()
	st := devstacktest.Store(t, opts...)
	e := &env{store: st, log: quietLogger()}
	acct := mustAccount(t, e, "Creator", "SA", "AE")
	// Short check timeouts, so that the simulator's "slow" outcome fails fast.
	for _, code := range []string{"SA", "AE"} {
		cfg, err := st.CountryConfig(ctx, acct, code)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cfg.IntakeChecks {
			cfg.IntakeChecks[i].TimeoutMS = 300
		}
		if err := st.PutCountryConfig(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
	s := &sim.Simulator{WathqAPIKey: localWathqKey, YenteAPIKey: localYenteKey, Screening: screeningEngine()}
	simSrv := httptest.NewServer(s)
	t.Cleanup(simSrv.Close)
	f := &createFixture{sim: s, simURL: simSrv.URL, st: st, account: acct}
	f.key = mustKey(t, e, acct, domain.PermEntityView, domain.PermEntityCreate, domain.PermReviewView)
	f.viewKey = mustKey(t, e, acct, domain.PermEntityView)
	f.srv = httptest.NewServer(newGateway(st, quietLogger(), simulatorProviders(simSrv.URL)))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *createFixture) post(t *testing.T, key, contentType string, body []byte, headers ...string) response {
	t.Helper()
	return send(t, "POST", f.srv.URL+"/api/v1/entities", key, body, append([]string{"Content-Type", contentType}, headers...)...)
}

// postBad is post for a request that breaks the description on purpose.
func (f *createFixture) postBad(t *testing.T, key, contentType string, body []byte, headers ...string) response {
	t.Helper()
	return sendBad(t, "POST", f.srv.URL+"/api/v1/entities", key, body, append([]string{"Content-Type", contentType}, headers...)...)
}

func (f *createFixture) create(t *testing.T, fields map[string]any, headers ...string) response {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"entity": fields})
	return f.post(t, f.key, "application/json", body, headers...)
}

func (f *createFixture) get(t *testing.T, path string) response {
	t.Helper()
	return send(t, "GET", f.srv.URL+path, f.key, nil)
}

func checksByType(t *testing.T, m map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, c := range m["checks"].([]any) {
		cm := c.(map[string]any)
		out[cm["check_type"].(string)] = cm
	}
	return out
}

// TestTheRegistersNameIsScreened: a create with the contract's own body
// (no legal_name) is screened under the register's name, by the real
// engine, and the check says which names it sent and which one matched;
// a number the register does not know is screened on the declared name
// alone, and the check says the set is partial.
func TestTheRegistersNameIsScreened(t *testing.T) {
	f := newCreateFixture(t)
	tests := []struct {
		name       string
		fields     map[string]any
		sanctions  string
		sent       []string // names_screened's names, in order
		partial    bool
		matchedOn  string // the top match's matched_name ("" for none)
		legalName  string
		sourceSeen string // a source among names_screened
	}{
		{"the documented body: the register's name is listed", map[string]any{"registration_number": "7000000101", "country_code": "SA"},
			"hit", []string{sim.RegisterName("7000000101")}, false, sim.RegisterName("7000000101"), sim.RegisterName("7000000101"), "register"},
		{"an invented name, a listed declared name beside it", map[string]any{"registration_number": "7000000100", "country_code": "SA", "legal_name": "Desert Falcon Trading LLC"},
			"needs_review", []string{sim.RegisterName("7000000100"), "Desert Falcon Trading LLC"}, false, "Desert Falcon Trading LLC", sim.RegisterName("7000000100"), "declared"},
		{"the register does not know the number", map[string]any{"registration_number": "7000000103", "country_code": "SA", "legal_name": "Quantum Blue Software Ltd"},
			"clear", []string{"Quantum Blue Software Ltd"}, true, "", "Quantum Blue Software Ltd", "declared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.create(t, tt.fields)
			if r.status != 201 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			m := r.json(t)
			if m["sanctions_status"] != tt.sanctions || m["legal_name"] != tt.legalName {
				t.Errorf("sanctions %v, legal_name %v; want %s, %s", m["sanctions_status"], m["legal_name"], tt.sanctions, tt.legalName)
			}
			res := checksByType(t, m)["organization_screening"]["result"].(map[string]any)
			var sent []string
			sources := map[string]bool{}
			for _, n := range res["names_screened"].([]any) {
				sent = append(sent, n.(map[string]any)["name"].(string))
				sources[n.(map[string]any)["source"].(string)] = true
			}
			if strings.Join(sent, "|") != strings.Join(tt.sent, "|") || !sources[tt.sourceSeen] {
				t.Errorf("names_screened = %v", res["names_screened"])
			}
			if q := res["query"].(map[string]any)["properties"].(map[string]any); fmt.Sprint(q["name"]) != fmt.Sprint(toAny(tt.sent)) {
				t.Errorf("query sent = %v", q)
			}
			if res["names_partial"] != tt.partial || tt.partial && !strings.Contains(fmt.Sprint(res["names_partial_reason"]), "found no register") {
				t.Errorf("names_partial = %v (%v)", res["names_partial"], res["names_partial_reason"])
			}
			ms, _ := res["matches"].([]any)
			if tt.matchedOn == "" && len(ms) > 0 || tt.matchedOn != "" && (len(ms) == 0 || ms[0].(map[string]any)["matched_name"] != tt.matchedOn) {
				t.Errorf("matches = %v, want the first matched on %q", ms, tt.matchedOn)
			}
			if len(m["names"].([]any)) != len(tt.sent) {
				t.Errorf("entity names = %v", m["names"])
			}
		})
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func TestCreateEntityOutcomes(t *testing.T) {
	f := newCreateFixture(t)
	tests := []struct {
		number, country             string
		wantReg, wantSanctions      string
		wantRegistry, wantScreening string // check statuses ("" when not run)
		wantScore                   any    // nil when unscored
		wantRegistryProvider        string
		wantLegalNameFromRegistry   bool
	}{
		{"7000000010", "sa", "valid_status", "clear", "completed", "completed", 70.0, "active", true},
		{"7000000011", "SA", "valid_status", "hit", "completed", "completed", 70.0, "active", true},
		{"7000000012", "sa", "valid_status", "needs_review", "completed", "completed", 70.0, "active", true},
		{"7000000013", "sa", "invalid_status", "clear", "completed", "completed", 30.0, "not_found", false},
		{"7000000014", "sa", "expired", "clear", "completed", "completed", 30.0, "expired", true},
		{"7000000015", "sa", "unknown", "not_run", "failed", "failed", nil, "timeout", false},
		{"7000000016", "sa", "unknown", "not_run", "failed", "failed", nil, "503", false},
		{"7000000017", "sa", "invalid_status", "clear", "completed", "completed", 30.0, "suspended", true},
		// No register in the UAE: the declared name is screened, and
		// decides (a listed party's name, the same number's digit aside).
		{"CN-0000021", "ae", "unknown", "hit", "", "completed", 30.0, "", false},
		{"CN-0000031", "ae", "unknown", "clear", "", "completed", 30.0, "", false},
	}
	declared := map[string]string{"CN-0000021": "Desert Falcon Trading LLC", "CN-0000031": "Quantum Blue Software Ltd"}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			name := cmp.Or(declared[tt.number], "Declared Name")
			r := f.create(t, map[string]any{"registration_number": tt.number, "country_code": tt.country, "legal_name": name})
			if r.status != 201 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			m := r.json(t)
			if m["registration_status"] != tt.wantReg || m["sanctions_status"] != tt.wantSanctions || m["status"] != "ready_for_review" {
				t.Errorf("registration %v, sanctions %v, status %v", m["registration_status"], m["sanctions_status"], m["status"])
			}
			if score, ok := m["current_score"]; tt.wantScore == nil && ok || tt.wantScore != nil && score != tt.wantScore {
				t.Errorf("current_score = %v (present %v), want %v", score, ok, tt.wantScore)
			}
			if m["risk_level"] != nil || m["risk_level_assessed"] != false {
				t.Errorf("a new entity is unassessed: %v %v", m["risk_level"], m["risk_level_assessed"])
			}
			if fromRegistry := m["legal_name"] != name; fromRegistry != tt.wantLegalNameFromRegistry {
				t.Errorf("legal_name = %v", m["legal_name"])
			}
			cs := checksByType(t, m)
			for typ, want := range map[string]string{"registry_lookup": tt.wantRegistry, "organization_screening": tt.wantScreening} {
				c, ok := cs[typ]
				if want == "" {
					if ok {
						t.Errorf("%s ran", typ)
					}
					continue
				}
				if !ok || c["status"] != want || c["triggering_reason"] != "intake" || c["checked_at"] == nil {
					t.Errorf("%s = %v", typ, c)
					continue
				}
				res := c["result"].(map[string]any)
				_, hasCount := res["matches_count"]
				if typ == "organization_screening" && hasCount != (want == "completed") {
					t.Errorf("screening result %v: matches_count present %v", res, hasCount)
				}
				if want == "failed" && res["error"] == nil {
					t.Errorf("failed %s says nothing of what went wrong: %v", typ, res)
				}
				for k := range res {
					if strings.Contains(strings.ToLower(k), "key") || strings.Contains(fmt.Sprint(res[k]), "local-") {
						t.Errorf("%s result leaks %s=%v", typ, k, res[k])
					}
				}
			}
			if tt.wantRegistryProvider != "" && cs["registry_lookup"]["provider_status"] != tt.wantRegistryProvider {
				t.Errorf("registry provider_status = %v", cs["registry_lookup"]["provider_status"])
			}
			reviews := m["reviews"].([]any)
			if len(reviews) != 1 || reviews[0].(map[string]any)["purpose"] != "initial" || reviews[0].(map[string]any)["status"] != "open" {
				t.Errorf("reviews = %v", reviews)
			}
			// The created entity reads back the same.
			loc := r.header.Get("Location")
			got := f.get(t, loc)
			if got.status != 200 || !bytes.Equal(bytes.TrimSpace(got.body), bytes.TrimSpace(r.body)) {
				t.Errorf("GET %s = %d %s\nwant %s", loc, got.status, got.body, r.body)
			}
		})
	}
}

func TestCreateEntityRefusals(t *testing.T) {
	f := newCreateFixture(t)
	if r := f.create(t, map[string]any{"registration_number": "7000000100", "country_code": "SA"}); r.status != 201 {
		t.Fatalf("setup: %d %s", r.status, r.body)
	}
	big := bytes.Repeat([]byte(" "), 1<<20+1)
	tests := []struct {
		name        string
		key         string
		contentType string
		body        string
		status      int
		field       string
		message     string
		code        string
		bad         bool // breaks the description on purpose
	}{
		{name: "no country", body: `{"entity":{"registration_number":"7000000101"}}`, status: 422, field: "country", message: `Country is required: send country_code, an ISO 3166-1 alpha-2 code such as "SA"`},
		{name: "unknown country code", body: `{"entity":{"registration_number":"7000000101","country_code":"XX"}}`, status: 422, field: "country", message: `Country "XX" is not a country the service knows`},
		{name: "unknown country id", body: `{"entity":{"registration_number":"7000000101","country_id":999}}`, status: 422, field: "country", message: `Country 999 is not a country the service knows`},
		{name: "country not configured", body: `{"entity":{"registration_number":"7000000101","country_code":"gb"}}`, status: 422, field: "country", message: "is not configured for this account"},
		{name: "code and id disagree", body: `{"entity":{"registration_number":"7000000101","country_code":"SA","country_id":784}}`, status: 422, field: "country", message: `country_code "SA" and country_id 784 name different countries`},
		{name: "Saudi number too short", body: `{"entity":{"registration_number":"700000010","country_code":"SA"}}`, status: 422, field: "registration_number", message: "must be a 10-digit Saudi unified number starting with 7"},
		{name: "Saudi number not starting with 7", body: `{"entity":{"registration_number":"1010123456","country_code":"SA"}}`, status: 422, field: "registration_number", message: "must be a 10-digit Saudi unified number starting with 7"},
		{name: "Saudi number with letters", body: `{"entity":{"registration_number":"70000A0101","country_id":682}}`, status: 422, field: "registration_number", message: "must be a 10-digit Saudi unified number starting with 7"},
		{name: "blank number", body: `{"entity":{"registration_number":" ","country_code":"SA"}}`, status: 422, field: "registration_number", message: "can't be blank"},
		{name: "number not a string", body: `{"entity":{"registration_number":7000000101,"country_code":"SA"}}`, status: 422, field: "registration_number", message: "must be a string", bad: true},
		{name: "taken", body: `{"entity":{"registration_number":"7000000100","country_code":"sa"}}`, status: 422, field: "registration_number", message: "has already been taken"},
		{name: "taken, by country id", body: `{"entity":{"registration_number":"7000000100","country_id":682}}`, status: 422, field: "registration_number", message: "has already been taken"},
		{name: "no entity", body: `{"registration_number":"7000000101"}`, status: 422, field: "entity", message: "is required", bad: true},
		{name: "entity not an object", body: `{"entity":"x"}`, status: 422, field: "entity", message: "must be an object", bad: true},
		{name: "malformed JSON", body: `{"entity":`, status: 400, code: "bad_request", bad: true},
		{name: "two documents", body: `{"entity":{}} {}`, status: 400, code: "bad_request", bad: true},
		{name: "not JSON by content type", contentType: "text/plain", body: `{"entity":{}}`, status: 415, code: "unsupported_media_type", bad: true},
		{name: "no content type", contentType: "-", body: `{"entity":{}}`, status: 415, code: "unsupported_media_type", bad: true},
		{name: "too large", body: `{"entity":{}}` + string(big), status: 413, code: "payload_too_large", bad: true},
		{name: "without entity.create", key: "view", body: `{"entity":{"registration_number":"7000000101","country_code":"SA"}}`, status: 403, code: "forbidden"},
	}
	before := f.sim.Calls("wathq") + f.sim.Calls("opensanctions")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, ct := f.key, "application/json; charset=utf-8"
			if tt.key == "view" {
				key = f.viewKey
			}
			if tt.contentType == "-" {
				ct = ""
			} else if tt.contentType != "" {
				ct = tt.contentType
			}
			post := f.post
			if tt.bad {
				post = f.postBad
			}
			r := post(t, key, ct, []byte(tt.body))
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.code != "" {
				if got := errorCode(t, r); got != tt.code {
					t.Errorf("code %q, want %q", got, tt.code)
				}
				return
			}
			var body struct {
				Errors map[string][]string `json:"errors"`
			}
			json.Unmarshal(r.body, &body)
			if msgs := body.Errors[tt.field]; len(msgs) != 1 || msgs[0] != tt.message {
				t.Errorf("errors = %v, want %s: [%q]", body.Errors, tt.field, tt.message)
			}
		})
	}
	if after := f.sim.Calls("wathq") + f.sim.Calls("opensanctions"); after != before {
		t.Errorf("refused requests called the providers %d times", after-before)
	}
	if total := f.get(t, "/api/v1/entities").header.Get("X-Total-Count"); total != "1" {
		t.Errorf("refused requests wrote entities: total %s", total)
	}
}

func TestIdempotencyKey(t *testing.T) {
	f := newCreateFixture(t)
	fields := map[string]any{"registration_number": "7000000300", "country_code": "SA"}
	first := f.create(t, fields, "Idempotency-Key", "order-300")
	if first.status != 201 {
		t.Fatalf("first: %d %s", first.status, first.body)
	}
	calls := f.sim.Calls("wathq") + f.sim.Calls("opensanctions")
	again := f.create(t, fields, "Idempotency-Key", "order-300")
	if again.status != 201 || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("Location") != first.header.Get("Location") {
		t.Errorf("replay = %d %s (%v)", again.status, again.body, again.header)
	}
	if f.sim.Calls("wathq")+f.sim.Calls("opensanctions") != calls {
		t.Error("the replay called the providers again")
	}
	other := f.create(t, map[string]any{"registration_number": "7000000301", "country_code": "SA"}, "Idempotency-Key", "order-300")
	var body struct {
		Errors map[string][]string `json:"errors"`
	}
	json.Unmarshal(other.body, &body)
	if other.status != 422 || len(body.Errors["idempotency_key"]) != 1 {
		t.Errorf("same key, other body = %d %s", other.status, other.body)
	}
	// A refusal is replayed too: the same request would be refused again.
	bad := map[string]any{"registration_number": "123", "country_code": "SA"}
	r1, r2 := f.create(t, bad, "Idempotency-Key", "bad-1"), f.create(t, bad, "Idempotency-Key", "bad-1")
	if r1.status != 422 || r2.status != 422 || r2.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("refusal replay = %d, %d", r1.status, r2.status)
	}

	// Concurrent requests with one key create one entity.
	const n = 5
	results := make(chan response, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- f.create(t, map[string]any{"registration_number": "7000000310", "country_code": "SA"}, "Idempotency-Key", "race-310")
		}()
	}
	wg.Wait()
	close(results)
	ids := map[string]bool{}
	for r := range results {
		switch r.status {
		case 201:
			ids[strconv.FormatFloat(r.json(t)["id"].(float64), 'f', 0, 64)] = true
		case 409:
			if r.header.Get("Retry-After") == "" || errorCode(t, r) != "conflict" {
				t.Errorf("409 without Retry-After or code: %s", r.body)
			}
		default:
			t.Errorf("concurrent same-key request: %d %s", r.status, r.body)
		}
	}
	if len(ids) > 1 {
		t.Errorf("one key created %d entities", len(ids))
	}
	list := f.get(t, "/api/v1/entities?registration_number=7000000310")
	if list.header.Get("X-Total-Count") != "1" {
		t.Errorf("entities with the raced number: %s", list.header.Get("X-Total-Count"))
	}
}

// webhookPost signs and posts a screening event the way the provider does.
func (f *createFixture) webhookPost(t *testing.T, secret webhooks.Secret, id string, event any, at time.Time) sim.Delivery {
	t.Helper()
	d, err := sim.Send(context.Background(), checkedClient(t), f.srv.URL+"/webhooks/opensanctions", secret, id, event, at)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestProviderWebhook(t *testing.T) {
	f := newCreateFixture(t)
	r := f.create(t, map[string]any{"registration_number": "7000000400", "country_code": "SA", "legal_name": "Al Waha Trading"})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	m := r.json(t)
	entityPath := r.header.Get("Location")
	screening := checksByType(t, m)["organization_screening"]
	checkID := int64(screening["id"].(float64))
	ref := fmt.Sprintf("evs-%d-%d", f.account, checkID)
	secrets, _ := webhooks.ParseSecrets(localWebhookSecret())
	now := time.Now()

	d := f.webhookPost(t, secrets[0], "", sim.NewScreeningEvent(ref, sim.Hit, "Al Waha Trading", now), now)
	if d.Status != 200 || !strings.Contains(d.Body, `"applied"`) {
		t.Fatalf("webhook: %d %s", d.Status, d.Body)
	}
	after := f.get(t, entityPath).json(t)
	if after["sanctions_status"] != "hit" || after["updated_at"] == m["updated_at"] {
		t.Errorf("entity after the webhook: sanctions %v, updated_at %v", after["sanctions_status"], after["updated_at"])
	}
	// The screening completed at the create: the later answer is a check of
	// its own (newest first), the first left as it was, evidence and all.
	var later, first map[string]any
	for _, c := range after["checks"].([]any) {
		cm := c.(map[string]any)
		switch {
		case cm["check_type"] != "organization_screening":
		case later == nil:
			later = cm
		case int64(cm["id"].(float64)) == checkID:
			first = cm
		}
	}
	if later == nil || first == nil || later["triggering_reason"] != "provider_update" {
		t.Fatalf("screening checks after the webhook: later %v, first %v", later, first)
	}
	res := later["result"].(map[string]any)
	if res["matched"] != true || res["matches_count"] != 1.0 || res["status"] != "hit" || res["changes"] == nil {
		t.Errorf("the later answer's check: %v", res)
	}
	if !reflect.DeepEqual(first, screening) {
		t.Errorf("the first screening changed:\n%v\nwas\n%v", first, screening)
	}

	// The same webhook-id again: 200, and nothing changes.
	replay := f.webhookPost(t, secrets[0], d.ID, sim.NewScreeningEvent(ref, sim.Clear, "", now), now)
	if replay.Status != 200 || !strings.Contains(replay.Body, `"duplicate"`) {
		t.Errorf("replay: %d %s", replay.Status, replay.Body)
	}
	if again := f.get(t, entityPath).json(t); again["sanctions_status"] != "hit" || again["updated_at"] != after["updated_at"] {
		t.Errorf("the replay changed the entity: %v %v", again["sanctions_status"], again["updated_at"])
	}

	other, _ := webhooks.ParseSecret("whsec_" + base64.StdEncoding.EncodeToString([]byte("not-the-secret")))
	tests := []struct {
		name   string
		secret webhooks.Secret
		event  any
		at     time.Time
		status int
	}{
		{"wrong secret", other, sim.NewScreeningEvent(ref, sim.Clear, "", now), now, 401},
		{"timestamp too old", secrets[0], sim.NewScreeningEvent(ref, sim.Clear, "", now), now.Add(-6 * time.Minute), 401},
		{"unknown reference", secrets[0], sim.NewScreeningEvent("evs-999-999", sim.Clear, "", now), now, 404},
		{"malformed reference", secrets[0], sim.NewScreeningEvent("nope", sim.Clear, "", now), now, 404},
		{"another account's reference", secrets[0], sim.NewScreeningEvent(fmt.Sprintf("evs-%d-%d", f.account+1, checkID), sim.Clear, "", now), now, 404},
		{"unknown event type", secrets[0], map[string]any{"type": "screening.archived", "data": map[string]any{}}, now, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := f.webhookPost(t, tt.secret, "", tt.event, tt.at); d.Status != tt.status {
				t.Errorf("status %d, want %d: %s", d.Status, tt.status, d.Body)
			}
		})
	}
	if final := f.get(t, entityPath).json(t); final["sanctions_status"] != "hit" {
		t.Errorf("a refused webhook changed the entity: %v", final["sanctions_status"])
	}

	// Unknown provider: 404. Tampered body: 401.
	req, _ := http.NewRequest("POST", f.srv.URL+"/webhooks/acme", strings.NewReader("{}"))
	if resp, err := checkedClient(t).Do(apitest.Hostile(req)); err != nil || resp.StatusCode != 404 {
		t.Errorf("unknown provider: %v %v", resp.StatusCode, err)
	}
}

func TestProviderWebhookFailsClosedWithoutSecret(t *testing.T) {
	st := devstacktest.Store(t)
	p := simulatorProviders("http://127.0.0.1:9")
	p.webhookSecrets = nil // nothing configured
	srv := httptest.NewServer(newGateway(st, quietLogger(), p))
	defer srv.Close()
	secret, _ := webhooks.ParseSecret(localWebhookSecret())
	now := time.Now()
	d, err := sim.Send(context.Background(), nil, srv.URL+"/webhooks/opensanctions", secret, "", sim.NewScreeningEvent("evs-1-1", sim.Hit, "", now), now)
	if err != nil || d.Status != 401 {
		t.Errorf("without a secret: %d %s %v", d.Status, d.Body, err)
	}
}
