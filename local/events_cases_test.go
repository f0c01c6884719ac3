package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/auditexport"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/console"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/webpage"
)

// sampleEvent is one event file and what its function answers.
type sampleEvent struct {
	file string
	// API functions: the status, and more checks of the response.
	status int
	check  func(t *testing.T, r events.APIGatewayProxyResponse)
	// The authorizer: checks of its answer.
	authz func(t *testing.T, r events.APIGatewayCustomAuthorizerResponse)
	// Other functions (decision, periodic-reviews, admin): checks of the
	// handler's JSON answer, with the store to look behind it.
	result func(t *testing.T, out []byte, st *store.Store)
	// A refused event: the named failure the function answers instead.
	refused *sampleRefusal
}

// sampleRefusal is a named failure as Lambda reports it to the caller of
// the Invoke API: errorType and errorMessage.
type sampleRefusal struct {
	errorType, message string
}

// check compares a refusal with the one wanted.
func (want sampleRefusal) check(t *testing.T, errorType, message string) {
	t.Helper()
	if errorType != want.errorType || message != want.message {
		t.Errorf("refused with %s %q, want %s %q", errorType, message, want.errorType, want.message)
	}
}

// checkErr checks an in-process handler's error: the named failure the
// runtime would report (a messages.InvokeResponse_Error).
func (want sampleRefusal) checkErr(t *testing.T, err error) {
	t.Helper()
	var ie messages.InvokeResponse_Error
	if !errors.As(err, &ie) {
		t.Fatalf("answer %v, want the refusal %s %q", err, want.errorType, want.message)
	}
	want.check(t, ie.Type, ie.Message)
}

// sampleEvents lists every event file, in the order the replay runs them:
// reads first (the settings area's refusal of an unknown sign-in link among
// them), then the create (entity 2), then the webhook, then operator
// decisions on review 1 (entity 1) up to its approval, a periodic review of
// entity 1 (review 3) opened and rejected, review 2 cancelled, the
// scheduled periodic-review run, the approval's webhook queued and
// delivered, and last the admin function's reads of what all that left.
func sampleEvents() []sampleEvent {
	return []sampleEvent{
		{file: "authorizer.json", authz: func(t *testing.T, r events.APIGatewayCustomAuthorizerResponse) {
			st := r.PolicyDocument.Statement
			if len(st) != 1 || st[0].Effect != "Allow" || !slices.Equal(st[0].Resource, []string{sampleAPIArn + "/*"}) {
				t.Errorf("policy = %+v, want Allow on %s/*", r.PolicyDocument, sampleAPIArn)
			}
			if r.PrincipalID != sampleKey[:10] {
				t.Errorf("principalId = %q", r.PrincipalID)
			}
			want := sampleAuthorizerContext()
			for k, v := range want {
				if r.Context[k] != v {
					t.Errorf("context %s = %v, want %v", k, r.Context[k], v)
				}
			}
		}},
		{file: "list-entities.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			if got := proxyHeader(r, "X-Total-Count"); got != "1" {
				t.Errorf("X-Total-Count = %q, want 1", got)
			}
			m := proxyJSON(t, r)
			ents, _ := m["entities"].([]any)
			if len(ents) != 1 || ents[0].(map[string]any)["id"] != float64(sid(1)) {
				t.Errorf("entities = %v, want entity 1", m["entities"])
			}
			if meta, _ := m["meta"].(map[string]any); meta["page"] != float64(1) || meta["per_page"] != float64(25) || meta["total_count"] != float64(1) {
				t.Errorf("meta = %v", m["meta"])
			}
		}},
		{file: "get-entity.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			m := proxyJSON(t, r)
			if m["id"] != float64(sid(1)) || m["legal_name"] != "Al Waha Supplies" {
				t.Errorf("entity = %v %v, want 1 Al Waha Supplies", m["id"], m["legal_name"])
			}
			wantIDs(t, "checks", m["checks"], sid(1))
			wantIDs(t, "reviews", m["reviews"], sid(1))
		}},
		{file: "get-entity-markdown.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "text/markdown")
			if !strings.HasPrefix(r.Body, "# ") || !strings.Contains(r.Body, "Al Waha Supplies") {
				t.Errorf("markdown = %.200q", r.Body)
			}
		}},
		{file: "get-review.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			er, _ := proxyJSON(t, r)["entity_review"].(map[string]any)
			ent, _ := er["entity"].(map[string]any)
			if er["id"] != float64(sid(1)) || ent["id"] != float64(sid(1)) || er["checks_count"] != float64(1) {
				t.Errorf("entity_review = %v", er)
			}
		}},
		{file: "api-description.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, api.DescriptionContentType)
			if r.IsBase64Encoded || r.Body != string(api.OpenAPIDocument()) {
				t.Errorf("body (%d bytes, base64 %v) is not shared/api/openapi.yaml (%d bytes)", len(r.Body), r.IsBase64Encoded, len(api.OpenAPIDocument()))
			}
		}},
		{file: "web.json", status: http.StatusNotFound, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			// Continue on the console's enrolment page with a well-formed
			// link no one minted: the console's own page, with its security
			// headers; the page's value is spent and no session starts.
			wantContentType(t, r, "text/html")
			for name, want := range map[string]string{
				"Content-Security-Policy": webpage.CSP,
				"X-Frame-Options":         "DENY",
				"Referrer-Policy":         "no-referrer",
				"X-Content-Type-Options":  "nosniff",
			} {
				if got := proxyHeader(r, name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			for _, line := range r.MultiValueHeaders["Set-Cookie"] {
				if c, err := http.ParseSetCookie(line); err != nil || c.Name != console.EnrolCookie || c.MaxAge >= 0 {
					t.Errorf("Set-Cookie %q: an unknown link signs no one in", line)
				}
			}
			if !strings.Contains(r.Body, "Enrolment link not valid") || strings.Contains(r.Body, sampleUnknownLink) {
				t.Errorf("page = %.300q, want the unknown link's page, without the link's token", r.Body)
			}
		}},
		{file: "create-entity.json", status: http.StatusCreated, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			if got, want := proxyHeader(r, "Location"), fmt.Sprint("/api/v1/entities/", sid(2)); got != want {
				t.Errorf("Location = %q, want %s", got, want)
			}
			m := proxyJSON(t, r)
			if m["id"] != float64(sid(2)) || m["registration_number"] != "7001234560" ||
				m["registration_status"] != string(domain.RegistrationValid) || m["sanctions_status"] != string(domain.SanctionsClear) {
				t.Errorf("created = %v %v %v %v", m["id"], m["registration_number"], m["registration_status"], m["sanctions_status"])
			}
			// Check ids 2 and 3: 1 is entity 1's screening.
			wantIDs(t, "checks", m["checks"], sid(3), sid(2))
			wantIDs(t, "reviews", m["reviews"], sid(2))
		}},
		{file: "provider-webhook.json", status: http.StatusOK, check: func(t *testing.T, r events.APIGatewayProxyResponse) {
			wantContentType(t, r, "application/json")
			if s := proxyJSON(t, r)["status"]; s != "applied" {
				t.Errorf("status = %v, want applied", s)
			}
		}},
		decisionEvent("decision-assign.json", sid(1), func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.Status != "open" || r.AssignedUserID == nil || *r.AssignedUserID != 2 || aws.ToString(r.AssignedUserName) != "Omar Al-Qahtani" {
				t.Errorf("review = %s assigned to %v %v, want open and operator 2", r.Status, r.AssignedUserID, r.AssignedUserName)
			}
		}),
		decisionEvent("decision-start.json", sid(1), func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.Status != "in_progress" || r.StartedAt == nil {
				t.Errorf("review = %s started %v, want in_progress", r.Status, r.StartedAt)
			}
		}),
		decisionEvent("decision-adjudicate-match.json", sid(1), func(t *testing.T, _ decisions.ReviewOut, e domain.Entity) {
			if e.SanctionsStatus != domain.SanctionsClear || !slices.Equal(e.DismissedMatches, []string{"NK-sample-hit"}) {
				t.Errorf("entity sanctions %s, dismissed %v: want clear and the sample hit dismissed", e.SanctionsStatus, e.DismissedMatches)
			}
		}),
		decisionEvent("decision-assess-risk.json", sid(1), func(t *testing.T, _ decisions.ReviewOut, e domain.Entity) {
			if e.Risk == nil || e.Risk.Level != domain.RiskMedium || e.Risk.AssessedAt.IsZero() {
				t.Errorf("entity risk = %+v, want medium with its time", e.Risk)
			}
		}),
		decisionEvent("decision-update-profile.json", sid(1), func(t *testing.T, _ decisions.ReviewOut, e domain.Entity) {
			if aws.ToString(e.WebsiteURL) != "https://alwaha.example.sa" || aws.ToString(e.ActivitySummary) != "Wholesale of building materials" {
				t.Errorf("entity website %v, summary %v", e.WebsiteURL, e.ActivitySummary)
			}
		}),
		decisionEvent("decision-record-party.json", sid(1), func(t *testing.T, _ decisions.ReviewOut, e domain.Entity) {
			if len(e.Parties) != 1 || e.Parties[0].Name != "Huda Saleh Al-Shehri" || e.Parties[0].Source != domain.PartyDeclared || e.RelationshipsCount != 1 ||
				e.Ownership == nil || !e.Ownership.Determined {
				t.Errorf("entity parties %+v (count %d), ownership %+v: want the declared owner, counted, the owner determined", e.Parties, e.RelationshipsCount, e.Ownership)
			}
		}),
		decisionEvent("decision-queue-checks.json", sid(1), func(t *testing.T, r decisions.ReviewOut, e domain.Entity) {
			// The country's two intake checks ran again through the
			// simulator, and the party the merchant declared was screened.
			if r.ChecksQueuedAt == nil || r.ChecksCount != 4 || e.ChecksCount != 4 {
				t.Errorf("review checks %d queued %v, entity checks %d: want 4, a time and 4", r.ChecksCount, r.ChecksQueuedAt, e.ChecksCount)
			}
		}),
		decisionEvent("decision-escalate.json", sid(1), func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.Status != "escalated" || aws.ToString(r.Escalation) != domain.EscalationSupervisor {
				t.Errorf("review = %s / %v, want escalated to a supervisor", r.Status, r.Escalation)
			}
		}),
		decisionEvent("decision-escalate-to-aml.json", sid(1), func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.Status != "escalated" || aws.ToString(r.Escalation) != domain.EscalationAML {
				t.Errorf("review = %s / %v, want escalated to AML", r.Status, r.Escalation)
			}
		}),
		decisionEvent("decision-approve.json", sid(1), func(t *testing.T, r decisions.ReviewOut, e domain.Entity) {
			if r.Status != "completed" || aws.ToString(r.Outcome) != domain.OutcomeApproved || r.OutcomeReason == nil || e.Status != domain.EntityApproved {
				t.Errorf("review %s %v %v, entity %s: want completed approved with its reason, entity approved", r.Status, r.Outcome, r.OutcomeReason, e.Status)
			}
		}),
		decisionEvent("decision-open-periodic-review.json", sid(1), func(t *testing.T, r decisions.ReviewOut, e domain.Entity) {
			if r.ID != sid(3) || r.Purpose != string(domain.ReviewPeriodic) || r.Status != "open" || e.Status != domain.EntityUnderMonitoring {
				t.Errorf("review %d %s %s, entity %s: want periodic review 3 open, entity under monitoring", r.ID, r.Purpose, r.Status, e.Status)
			}
		}),
		decisionEvent("decision-start-periodic-review.json", sid(1), func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.ID != sid(3) || r.Status != "in_progress" {
				t.Errorf("review %d %s, want 3 in_progress", r.ID, r.Status)
			}
		}),
		decisionEvent("decision-reject.json", sid(1), func(t *testing.T, r decisions.ReviewOut, e domain.Entity) {
			if r.ID != sid(3) || aws.ToString(r.Outcome) != domain.OutcomeRejected || e.Status != domain.EntityRejected {
				t.Errorf("review %d %v, entity %s: want review 3 rejected, entity rejected", r.ID, r.Outcome, e.Status)
			}
		}),
		decisionEvent("decision-cancel.json", sid(2), func(t *testing.T, r decisions.ReviewOut, _ domain.Entity) {
			if r.ID != sid(2) || r.Status != "cancelled" {
				t.Errorf("review %d %s, want 2 cancelled", r.ID, r.Status)
			}
		}),
		{file: "periodic-reviews.json", result: func(t *testing.T, out []byte, _ *store.Store) {
			var res decisions.RunResult
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("run result %s: %v", out, err)
			}
			// Account 1 reviews yearly; entity 1 is rejected and entity 2
			// was never approved: nothing is due.
			if res.Accounts != 1 || res.Checked != 0 || res.Opened != 0 {
				t.Errorf("run = %+v, want 1 account, nothing due", res)
			}
			// The seed's reviews predate nothing, but the account's counts
			// were never set from its reviews: its queue is counted, once.
			if res.Recounted != 1 {
				t.Errorf("run = %+v, want the account's queue counted", res)
			}
		}},
		{file: "audit-export-evidence.json", result: func(t *testing.T, out []byte, _ *store.Store) {
			// A provider's answer from the evidence table's stream: locked.
			var r events.DynamoDBEventResponse
			if err := json.Unmarshal(out, &r); err != nil || len(r.BatchItemFailures) != 0 {
				t.Errorf("answer %s (%v), want no batch item failures", out, err)
			}
		}},
		{file: "audit-export.json", result: func(t *testing.T, out []byte, _ *store.Store) {
			// The daily run over the seed's and the samples' records: the
			// streams did not run here, so it locks every record itself.
			var res auditexport.DailyResult
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("run result %s: %v", out, err)
			}
			if res.Accounts != 1 || res.Manifests != 1 || res.CaughtUp == 0 || res.Heads == 0 {
				t.Errorf("run = %+v, want account 1's records locked and its manifest written", res)
			}
		}},
		{file: "review-events.json", result: func(t *testing.T, out []byte, _ *store.Store) {
			var r events.DynamoDBEventResponse
			if err := json.Unmarshal(out, &r); err != nil || len(r.BatchItemFailures) != 0 {
				t.Errorf("answer %s (%v), want no batch item failures", out, err)
			}
		}},
		{file: "webhook-delivery.json", result: func(t *testing.T, out []byte, st *store.Store) {
			var r events.SQSEventResponse
			if err := json.Unmarshal(out, &r); err != nil || len(r.BatchItemFailures) != 0 {
				t.Errorf("answer %s (%v), want no batch item failures", out, err)
			}
			d, err := st.Delivery(context.Background(), 1, sampleDelivery)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != domain.DeliveryDelivered || d.ResponseStatus != http.StatusNoContent {
				t.Errorf("delivery %s: %s %d %s, want delivered 204", d.ID, d.Status, d.ResponseStatus, d.Error)
			}
		}},
		adminEvent("admin-account.json", func(t *testing.T, r struct {
			Account admin.AccountView `json:"account"`
		}, _ string) {
			a := r.Account
			if a.ID != 1 || a.Name != "Sample Events" || a.ReviewIntervalDays != 365 || a.FourEyes == nil || len(a.FourEyes) != 0 || a.CreatedAt == "" {
				t.Errorf("account = %+v, want 1 Sample Events, yearly reviews, no four eyes", a)
			}
			if len(a.Countries) != 1 || a.Countries[0].Code != "SA" || a.Countries[0].CountryID != 682 || !a.Countries[0].Active {
				t.Errorf("countries = %+v, want SA (682) active", a.Countries)
			}
		}),
		adminEvent("admin-key.json", func(t *testing.T, r struct {
			Keys []admin.KeyView `json:"api_keys"`
		}, raw string) {
			if len(r.Keys) != 1 {
				t.Fatalf("api_keys = %+v, want the sample key alone", r.Keys)
			}
			k := r.Keys[0]
			if k.ID != auth.KeyID(auth.HashKey(sampleKey)) || k.AccountID != 1 || k.Prefix != sampleKey[:10] || !k.Active || k.RevokedAt != nil ||
				!slices.Equal(sorted(k.Permissions), sorted(samplePermissions)) {
				t.Errorf("key = %+v, want the sample key, active, with its permissions", k)
			}
			// Listed by id and prefix, never in clear or by its hash.
			if strings.Contains(raw, sampleKey) || strings.Contains(raw, auth.HashKey(sampleKey)) {
				t.Errorf("the listing reveals the key or its hash: %s", raw)
			}
		}),
		adminEvent("admin-operator.json", func(t *testing.T, r struct {
			Operators []admin.OperatorView `json:"operators"`
		}, _ string) {
			names := map[int64]string{}
			for _, o := range r.Operators {
				names[o.ID] = o.Name
				if o.AccountID != 1 || !o.Active || len(o.Permissions) == 0 {
					t.Errorf("operator %+v, want account 1's, active, with permissions", o)
				}
			}
			if len(r.Operators) != 2 || names[1] != "Sara Al-Harbi" || names[2] != "Omar Al-Qahtani" {
				t.Errorf("operators = %v, want 1 Sara Al-Harbi and 2 Omar Al-Qahtani", names)
			}
		}),
		{file: "admin-portal.json", result: func(t *testing.T, out []byte, st *store.Store) {
			var l admin.PortalLinkView
			dec := json.NewDecoder(bytes.NewReader(out))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&l); err != nil {
				t.Fatalf("answer %s: %v", out, err)
			}
			u, err := url.Parse(l.URL)
			if err != nil {
				t.Fatal(err)
			}
			token := u.Query().Get(portal.LinkParam)
			if !strings.HasPrefix(l.URL, sampleSettingsURL+portal.LinkPath+"?") || !strings.HasPrefix(token, portal.LinkPrefix) {
				t.Errorf("url = %s, want %s%s?token=%s…", l.URL, sampleSettingsURL, portal.LinkPath, portal.LinkPrefix)
			}
			if at, err := domain.ParseTime(l.ExpiresAt); err != nil || time.Until(at) > portal.LinkTTL || time.Until(at) < portal.LinkTTL-time.Minute {
				t.Errorf("expires_at = %s, want 15 minutes from now", l.ExpiresAt)
			}
			// The settings area signs operator 1 in with it, once.
			p := &portal.Service{Store: st, Clock: domain.SystemClock}
			if _, s, err := p.Redeem(context.Background(), token); err != nil || s.AccountID != 1 || s.Operator.ID != 1 {
				t.Errorf("redeem: %+v, %v; want operator 1 of account 1", s, err)
			}
		}},
		adminEvent("admin-endpoint.json", func(t *testing.T, r struct {
			Endpoints []admin.EndpointView `json:"endpoints"`
		}, raw string) {
			if len(r.Endpoints) != 1 {
				t.Fatalf("endpoints = %+v, want endpoint 1 alone", r.Endpoints)
			}
			ep := r.Endpoints[0]
			if ep.ID != 1 || ep.AccountID != 1 || !ep.Active || !slices.Equal(ep.Events, []domain.EventType{domain.EventApproved}) ||
				!strings.HasPrefix(ep.URL, "http://127.0.0.1:") || ep.PreviousSecretExpiresAt != nil {
				t.Errorf("endpoint = %+v, want 1, active, approvals to the local receiver", ep)
			}
			if strings.Contains(raw, sampleEndpointSecret) || strings.Contains(raw, `"secret"`) {
				t.Errorf("the listing reveals the endpoint's secret: %s", raw)
			}
		}),
		adminEvent("admin-delivery.json", func(t *testing.T, r struct {
			Deliveries []admin.DeliveryView `json:"deliveries"`
		}, _ string) {
			// The one delivery the pipeline made, which webhook-delivery posted.
			if len(r.Deliveries) != 1 {
				t.Fatalf("deliveries = %+v, want %s alone", r.Deliveries, sampleDelivery)
			}
			d := r.Deliveries[0]
			if d.ID != sampleDelivery || d.Status != string(domain.DeliveryDelivered) || d.ResponseStatus != http.StatusNoContent ||
				d.EndpointID != 1 || d.EventType != string(domain.EventApproved) || d.ReviewID != sid(1) || d.Attempt != 1 {
				t.Errorf("delivery = %+v, want %s delivered (204) to endpoint 1 for review 1's approval", d, sampleDelivery)
			}
		}),
		adminEvent("admin-audit.json", func(t *testing.T, r struct {
			Audit []admin.AuditView `json:"audit"`
		}, _ string) {
			byID := map[string]admin.AuditView{}
			for i, a := range r.Audit {
				byID[a.ActionID] = a
				if a.AccountID != 1 {
					t.Errorf("record %s is account %d's", a.ActionID, a.AccountID)
				}
				if i > 0 && a.At > r.Audit[i-1].At {
					t.Errorf("record %s (%s) after %s (%s): want newest first", a.ActionID, a.At, r.Audit[i-1].ActionID, r.Audit[i-1].At)
				}
			}
			// The account's opening, the sample endpoint, an operator's decision.
			var opened bool
			for _, a := range r.Audit {
				opened = opened || (a.Action == domain.ActionAccountCreate && a.Actor == "make local")
			}
			if !opened || byID["sample-endpoint"].Action != domain.ActionEndpointCreate ||
				byID["sample-decision-approve"].Action != domain.ActionApprove || byID["sample-decision-approve"].OperatorID != 1 {
				t.Errorf("audit = %+v, want the account's opening, the sample endpoint and the approval by operator 1", r.Audit)
			}
		}),
		adminEvent("admin-audit-verify.json", func(t *testing.T, r admin.AuditChainView, _ string) {
			// The account's own chain (its opening, the sample endpoint, …)
			// holds, and agrees with the copies audit-export's daily run
			// locked in the records bucket.
			if !r.Intact || r.Broken != nil || r.Records < 2 || r.Head.Seq != int64(r.Records) || len(r.Head.Hash) != 64 {
				t.Errorf("audit.verify = %+v, want an intact chain of the account's records", r)
			}
			if l := r.Locked; l == nil || !l.Checked || l.Locked == 0 || len(l.Findings) != 0 || l.LockedThrough > r.Head.Seq {
				t.Errorf("locked = %+v, want the daily run's copies of the chain, agreeing", l)
			}
		}),
		adminEvent("admin-legal-hold.json", func(t *testing.T, r struct {
			Hold admin.LegalHoldView `json:"legal_hold"`
		}, _ string) {
			// Entity 1's items are held (none had an expiry yet: the relationship lasts), and its locked
			// copies (the daily run locked its chain) an S3 legal hold.
			if h := r.Hold; !h.Held || h.EntityID != sid(1) || h.Items == 0 || h.Objects == 0 {
				t.Errorf("legal hold = %+v, want entity 1 held, its items and locked copies reached", h)
			}
		}),
		{file: "admin-refused.json", refused: &sampleRefusal{"NotFound", "Account 99 not found."}},
	}
}
