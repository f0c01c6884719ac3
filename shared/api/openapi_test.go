package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// openAPIModel parses the embedded description.
func openAPIModel(t *testing.T) *v3.Document {
	t.Helper()
	doc, err := libopenapi.NewDocument(OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	return &m.Model
}

// The description's paths and methods are exactly the route table's, with
// a Markdown path beside every get-one, and each operation names its
// route's permission and security.
func TestOpenAPIPathsAreTheRoutes(t *testing.T) {
	m := openAPIModel(t)
	if !strings.HasPrefix(m.Version, "3.1.") {
		t.Errorf("openapi: %q, want 3.1.x", m.Version)
	}
	want := map[string]deploy.Route{}
	for _, r := range deploy.Routes() {
		if r.Browser {
			continue // web pages for people, not the JSON API
		}
		want[r.Method+" "+r.Path] = r
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/{id}") {
			want[r.Method+" "+r.Path+".md"] = r
		}
	}
	got := map[string]*v3.Operation{}
	for path, item := range m.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			got[strings.ToUpper(method)+" "+path] = op
		}
	}
	for k := range want {
		if got[k] == nil {
			t.Errorf("the route %s is not in openapi.yaml", k)
		}
	}
	for k, op := range got {
		r, ok := want[k]
		if !ok {
			t.Errorf("openapi.yaml has %s, which no route serves", k)
			continue
		}
		var perms []string
		if n, ok := op.Extensions.Get("x-permissions"); ok {
			if err := n.Decode(&perms); err != nil {
				t.Errorf("%s: x-permissions: %v", k, err)
			}
		} else {
			t.Errorf("%s has no x-permissions", k)
		}
		wantPerms := []string{}
		if r.Permission != "" {
			wantPerms = []string{r.Permission}
		}
		if !slices.Equal(perms, wantPerms) {
			t.Errorf("%s: x-permissions %v, the route needs %v", k, perms, wantPerms)
		}
		public := op.Security != nil && len(op.Security) == 0
		if public != r.Public {
			t.Errorf("%s: security [] is %v, the route is public: %v", k, public, r.Public)
		}
	}
}

// Every enum of the description is the domain's list, in its order, and
// the review events it describes are the domain's event kinds.
func TestOpenAPIEnumsAreTheDomains(t *testing.T) {
	m := openAPIModel(t)
	strs := func(vs ...string) []string { return vs }
	cases := []struct {
		schema string
		want   []string
	}{
		{"EntityStatus", names(domain.EntityStatuses())},
		{"RegistrationStatus", names(domain.RegistrationStatuses())},
		{"SanctionsStatus", names(domain.SanctionsStatuses())},
		{"RiskLevel", names(domain.RiskLevels())},
		{"CheckType", names(domain.CheckTypes())},
		{"CheckStatus", names(domain.CheckStatuses())},
		{"ReviewPurpose", names(domain.ReviewPurposes())},
		{"ReviewStatus", names(domain.ReviewStatuses())},
		{"EventType", names(domain.EventTypes())},
		{"TriggeringReason", strs(domain.TriggerIntake, domain.TriggerOperatorRequested, domain.TriggerPeriodicReview, domain.TriggerProviderUpdate)},
		{"ReviewOutcome", strs(domain.OutcomeApproved, domain.OutcomeRejected)},
	}
	for _, c := range cases {
		if got := enumOf(t, schemaNamed(t, m, c.schema)); !slices.Equal(got, c.want) {
			t.Errorf("%s: openapi.yaml has %v, the domain %v", c.schema, got, c.want)
		}
	}
	var hooks []string
	for name := range m.Webhooks.KeysFromOldest() {
		hooks = append(hooks, name)
	}
	// The subscribable kinds, then the test event nobody subscribes to.
	if want := append(names(domain.EventTypes()), string(domain.EventPing)); !slices.Equal(hooks, want) {
		t.Errorf("webhooks: openapi.yaml has %v, the event kinds are %v", hooks, want)
	}
}

// The webhooks' bodies are the bytes package delivery signs: the same keys,
// in the same order, every one required.
func TestOpenAPIEventBodiesAreTheWireFormat(t *testing.T) {
	m := openAPIModel(t)
	review, err := delivery.EncodeBody(domain.Event{EventType: domain.EventApproved, EntityReviewID: 2, EntityID: 1, AccountID: 1, OccurredAt: "2026-11-23T16:20:11.402Z"})
	if err != nil {
		t.Fatal(err)
	}
	ping, err := delivery.EncodePing(1, 3, "2026-11-23T16:25:40.118Z")
	if err != nil {
		t.Fatal(err)
	}
	for schema, body := range map[string][]byte{"ReviewEvent": review, "PingEvent": ping} {
		s := schemaNamed(t, m, schema)
		var props []string
		for name := range s.Properties.KeysFromOldest() {
			props = append(props, name)
		}
		keys := jsonKeys(t, body)
		if !slices.Equal(props, keys) || !slices.Equal(s.Required, keys) {
			t.Errorf("%s: properties %v, required %v; the body's keys are %v", schema, props, s.Required, keys)
		}
	}
}

// jsonKeys are the keys of a JSON object, in order.
func jsonKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s is not an object: %v", b, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// The error codes the description lists are exactly those a route or the
// gateway can answer in an {"error": …} body.
func TestOpenAPIErrorCodesAreTheStatusTable(t *testing.T) {
	m := openAPIModel(t)
	got := enumOf(t, schemaNamed(t, m, "ErrorCode"))
	var want []string
	for code := range statuses() {
		switch code {
		case domain.ECodeInvalid: // 422 has its own body, {"errors": …}
		case domain.ECodeIllegalTransition, domain.ECodeSecondApproverRequired, domain.ECodeStaleView, domain.ECodeSignatureRequired: // decisions', not the API's
		default:
			want = append(want, code)
		}
	}
	for _, g := range deploy.GatewayResponses() {
		want = append(want, g.Code)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("Error.code: openapi.yaml has %v, the status table and the gateway answer %v", got, want)
	}
}

// Every limit the description states is the one the validators apply.
func TestOpenAPILimitsAreTheValidators(t *testing.T) {
	m := openAPIModel(t)
	param := func(name string) *base.Schema { return m.Components.Parameters.GetOrZero(name).Schema.Schema() }
	entityField := func(name string) *base.Schema {
		return schemaNamed(t, m, "CreateEntityRequest").Properties.GetOrZero("entity").Schema().Properties.GetOrZero(name).Schema()
	}
	cases := []struct {
		what string
		got  *int64
		want int
	}{
		{"country_code maxLength", param("CountryCode").MaxLength, MaxCountryCodeParam},
		{"updated_since maxLength", param("UpdatedSince").MaxLength, MaxTimestampParam},
		{"Idempotency-Key maxLength", param("IdempotencyKey").MaxLength, MaxIdempotencyKeyBytes},
		{"create registration_number maxLength", entityField("registration_number").MaxLength, domain.MaxRegistrationNumber},
		{"create legal_name maxLength", entityField("legal_name").MaxLength, maxLegalNameLength},
		{"entities maxItems", schemaNamed(t, m, "EntityList").Properties.GetOrZero("entities").Schema().MaxItems, MaxPerPage},
	}
	for _, c := range cases {
		if c.got == nil || *c.got != int64(c.want) {
			t.Errorf("%s: openapi.yaml says %v, the code %d", c.what, deref(c.got), c.want)
		}
	}
	numbers := []struct {
		what string
		got  *float64
		want int64
	}{
		{"ID maximum", schemaNamed(t, m, "ID").Maximum, MaxID},
		{"Meta.per_page maximum", schemaNamed(t, m, "Meta").Properties.GetOrZero("per_page").Schema().Maximum, MaxPerPage},
	}
	for _, c := range numbers {
		if c.got == nil || int64(*c.got) != c.want {
			t.Errorf("%s: openapi.yaml says %v, the code %d", c.what, deref(c.got), c.want)
		}
	}
	// Limits that are fallbacks, not refusals, are said in words, never
	// declared as a bound a client would take for a refusal; a limit
	// counted after normalisation is no bound on what is sent.
	for _, c := range []struct {
		name, says string
		bound      bool
	}{
		{"PerPage", fmt.Sprintf("a number over %d as %d", MaxPerPage, MaxPerPage), param("PerPage").Maximum != nil || param("PerPage").Minimum != nil},
		{"Page", "is read as 1", param("Page").Minimum != nil},
		{"Cursor", fmt.Sprintf("over %d bytes) is ignored", MaxCursorParam), param("Cursor").MaxLength != nil},
		{"RegistrationNumber", fmt.Sprintf("at most %d bytes once normalised", domain.MaxRegistrationNumber), param("RegistrationNumber").MaxLength != nil},
	} {
		p := m.Components.Parameters.GetOrZero(c.name)
		if c.bound || !strings.Contains(strings.Join(strings.Fields(p.Description), " "), c.says) {
			t.Errorf("%s: openapi.yaml must say %q in words and declare no bound (it declares one: %v)", c.name, c.says, c.bound)
		}
	}
	if d := param("PerPage").Default; d == nil || d.Value != "50" || DefaultPerPage != 50 {
		t.Errorf("per_page default: openapi.yaml says %v, the code %d", d, DefaultPerPage)
	}
}

func schemaNamed(t *testing.T, m *v3.Document, name string) *base.Schema {
	t.Helper()
	p, ok := m.Components.Schemas.Get(name)
	if !ok {
		t.Fatalf("openapi.yaml has no schema %s", name)
	}
	return p.Schema()
}

func enumOf(t *testing.T, s *base.Schema) []string {
	t.Helper()
	var out []string
	for _, n := range s.Enum {
		out = append(out, n.Value)
	}
	return out
}

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
