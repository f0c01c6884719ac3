package stack_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/deploy"
)

// method is an AWS::ApiGateway::Method as the tests see it.
type method struct {
	id, path, httpMethod string
	auth, authorizer     string
	function             string
}

// methods reconstructs every method's full path from the resources'
// PathPart/ParentId chain up to the API's root resource.
func methods(t *testing.T, tmpl obj) map[string]method {
	t.Helper()
	restID, _ := only(t, tmpl, "AWS::ApiGateway::RestApi")
	rootRef := "getatt:" + restID + ".RootResourceId"
	res := resources(tmpl, "AWS::ApiGateway::Resource")
	var pathOf func(parent string, depth int) string
	pathOf = func(r string, depth int) string {
		if r == rootRef {
			return ""
		}
		id, ok := strings.CutPrefix(r, "ref:")
		if !ok || depth > 20 {
			t.Fatalf("resource reference %s leads nowhere", r)
		}
		p := props(res[id])
		if p == nil || ref(p["RestApiId"]) != "ref:"+restID {
			t.Fatalf("resource %s is not a resource of the API", id)
		}
		return pathOf(ref(p["ParentId"]), depth+1) + "/" + p["PathPart"].(string)
	}
	fnByArn := map[string]string{}
	for _, f := range deploy.Functions() {
		fnByArn[f.LogicalID] = f.Name
	}

	out := map[string]method{}
	for id, r := range resources(tmpl, "AWS::ApiGateway::Method") {
		p := props(r)
		if ref(p["RestApiId"]) != "ref:"+restID {
			t.Errorf("method %s is not on the API", id)
		}
		m := method{id: id, path: pathOf(ref(p["ResourceId"]), 0), httpMethod: p["HttpMethod"].(string)}
		if m.path == "" {
			m.path = "/"
		}
		m.auth, _ = p["AuthorizationType"].(string)
		if a := p["AuthorizerId"]; a != nil {
			m.authorizer = ref(a)
		}
		in := p["Integration"].(obj)
		if in["Type"] != "AWS_PROXY" || in["IntegrationHttpMethod"] != "POST" {
			t.Errorf("%s %s: integration %v %v, want a Lambda proxy (AWS_PROXY, POST)", m.httpMethod, m.path, in["Type"], in["IntegrationHttpMethod"])
		}
		uri := ref(in["Uri"])
		var targets []string
		for _, target := range refsIn(in["Uri"]) {
			if name, ok := fnByArn[target]; ok {
				targets = append(targets, name)
			}
		}
		if len(targets) != 1 || !strings.Contains(uri, ":lambda:path/2015-03-31/functions/arn:") || !strings.HasSuffix(uri, "/invocations") {
			t.Errorf("%s %s: integration URI %s names functions %v, want one function's invocations", m.httpMethod, m.path, uri, targets)
		} else {
			m.function = targets[0]
		}
		key := m.httpMethod + " " + m.path
		if _, dup := out[key]; dup {
			t.Errorf("two methods %s", key)
		}
		out[key] = m
	}
	return out
}

// Every route of deploy.Routes() reaches its function, behind the authorizer
// unless public; each resource also has an ANY method to the function of its
// first route, with that route's authorization; nothing else has a method.
func TestRoutes(t *testing.T) {
	tmpl := dev(t).JSON
	authorizerID, _ := only(t, tmpl, "AWS::ApiGateway::Authorizer")
	got := methods(t, tmpl)

	type want struct {
		function string
		public   bool
	}
	wants := map[string]want{}
	for _, r := range deploy.Routes() {
		wants[r.Method+" "+r.Path] = want{r.Function, r.Public}
		if _, ok := wants["ANY "+r.Path]; !ok {
			wants["ANY "+r.Path] = want{r.Function, r.Public}
		}
	}
	if !equal(keys(got), keys(wants)) {
		t.Errorf("methods: %s", diff(keys(got), keys(wants)))
	}
	for key, w := range wants {
		t.Run(key, func(t *testing.T) {
			m, ok := got[key]
			if !ok {
				t.Skip("missing, reported above")
			}
			if m.function != w.function {
				t.Errorf("reaches %s, want %s", m.function, w.function)
			}
			if w.public {
				if m.auth != "NONE" || m.authorizer != "" {
					t.Errorf("authorization %s %s, want NONE (public)", m.auth, m.authorizer)
				}
			} else if m.auth != "CUSTOM" || m.authorizer != "ref:"+authorizerID {
				t.Errorf("authorization %s %s, want CUSTOM with %s", m.auth, m.authorizer, authorizerID)
			}
		})
	}

	// API Gateway may invoke each function it routes to, from this API only.
	restID, _ := only(t, tmpl, "AWS::ApiGateway::RestApi")
	invokable := map[string]bool{}
	for id, perm := range resources(tmpl, "AWS::Lambda::Permission") {
		p := props(perm)
		if p["Principal"] == "events.amazonaws.com" {
			continue // the periodic-review schedule's, TestPeriodicReviewsSchedule
		}
		if p["Principal"] != "apigateway.amazonaws.com" || p["Action"] != "lambda:InvokeFunction" {
			t.Errorf("permission %s: %v %v", id, p["Principal"], p["Action"])
		}
		src := ref(p["SourceArn"])
		if !strings.Contains(src, "ref:"+restID) {
			t.Errorf("permission %s: source %s is not this API", id, src)
		}
		invokable[ref(p["FunctionName"])] = true
	}
	for _, r := range deploy.Routes() {
		f, _ := deploy.Lookup(r.Function)
		if !invokable["arn:"+f.LogicalID] {
			t.Errorf("API Gateway may not invoke %s", r.Function)
		}
	}
	auth, _ := deploy.Lookup(stack.AuthorizerFunction)
	if !invokable["arn:"+auth.LogicalID] {
		t.Error("API Gateway may not invoke the authorizer")
	}
}

// The REQUEST authorizer: the authorizer function, the Authorization header,
// cached deploy.AuthorizerCacheTTL.
func TestAuthorizer(t *testing.T) {
	tmpl := dev(t).JSON
	_, a := only(t, tmpl, "AWS::ApiGateway::Authorizer")
	p := props(a)
	restID, _ := only(t, tmpl, "AWS::ApiGateway::RestApi")
	if p["Type"] != "REQUEST" || ref(p["RestApiId"]) != "ref:"+restID {
		t.Errorf("Type %v on %v", p["Type"], p["RestApiId"])
	}
	if p["IdentitySource"] != "method.request.header.Authorization" {
		t.Errorf("IdentitySource = %v", p["IdentitySource"])
	}
	if p["AuthorizerResultTtlInSeconds"] != deploy.AuthorizerCacheTTL.Seconds() {
		t.Errorf("AuthorizerResultTtlInSeconds = %v, want %v", p["AuthorizerResultTtlInSeconds"], deploy.AuthorizerCacheTTL.Seconds())
	}
	f, _ := deploy.Lookup(stack.AuthorizerFunction)
	if uri := ref(p["AuthorizerUri"]); !strings.Contains(uri, "functions/arn:"+f.LogicalID+"/invocations") {
		t.Errorf("AuthorizerUri = %s, want the authorizer function", uri)
	}
}

// Every deploy.GatewayResponses() entry: its status (none for the DEFAULT_
// ones, which keep API Gateway's), the exact JSON body, the Content-Type.
func TestGatewayResponses(t *testing.T) {
	tmpl := dev(t).JSON
	byType := map[string]obj{}
	for id, r := range resources(tmpl, "AWS::ApiGateway::GatewayResponse") {
		p := props(r)
		typ := p["ResponseType"].(string)
		if _, dup := byType[typ]; dup {
			t.Errorf("two gateway responses %s (%s)", typ, id)
		}
		byType[typ] = p
	}
	if len(byType) != len(deploy.GatewayResponses()) {
		t.Errorf("%d gateway responses, want %d", len(byType), len(deploy.GatewayResponses()))
	}
	for _, g := range deploy.GatewayResponses() {
		t.Run(g.Type, func(t *testing.T) {
			p, ok := byType[g.Type]
			if !ok {
				t.Fatal("missing")
			}
			wantStatus := any(nil)
			if g.Status != 0 {
				wantStatus = strconv.Itoa(g.Status)
			}
			if p["StatusCode"] != wantStatus {
				t.Errorf("StatusCode = %v, want %v", p["StatusCode"], wantStatus)
			}
			body, _ := p["ResponseTemplates"].(obj)["application/json"].(string)
			if want := fmt.Sprintf(`{"error":{"code":%q,"message":%q}}`, g.Code, g.Message); body != want {
				t.Errorf("body = %s, want %s", body, want)
			}
			var parsed api.ErrorBody
			if err := json.Unmarshal([]byte(body), &parsed); err != nil || parsed.Error.Code != g.Code || parsed.Error.Message != g.Message {
				t.Errorf("body %s does not parse to the code and message (%v)", body, err)
			}
			if h := p["ResponseParameters"].(obj)["gatewayresponse.header.Content-Type"]; h != "'application/json'" {
				t.Errorf("Content-Type = %v", h)
			}
		})
	}
}

// The stage: named after the stage, throttled, traced, with metrics and
// JSON access logs of the agreed fields.
func TestStage(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		_, st := only(t, s.JSON, "AWS::ApiGateway::Stage")
		p := props(st)
		if p["StageName"] != s.Props.Stage {
			t.Errorf("StageName = %v", p["StageName"])
		}
		if p["TracingEnabled"] != true {
			t.Error("tracing is off")
		}
		rate, burst := s.Props.ThrottleRate, s.Props.ThrottleBurst
		if rate == 0 {
			rate, burst = stack.DefaultThrottleRate, stack.DefaultThrottleBurst
		}
		var all obj
		for _, m := range asList(p["MethodSettings"]) {
			if m := m.(obj); m["HttpMethod"] == "*" && m["ResourcePath"] == "/*" {
				all = m
			}
		}
		if all == nil || all["ThrottlingRateLimit"] != rate || all["ThrottlingBurstLimit"] != burst || all["MetricsEnabled"] != true || all["DataTraceEnabled"] != false {
			t.Errorf("stage-wide method settings = %v, want rate %v, burst %v, metrics, no data trace", all, rate, burst)
		}

		als, _ := p["AccessLogSetting"].(obj)
		if als == nil || ref(als["DestinationArn"]) != "arn:ApiAccessLogGroup" {
			t.Fatalf("AccessLogSetting = %v", als)
		}
		var format map[string]string
		if err := json.Unmarshal([]byte(als["Format"].(string)), &format); err != nil {
			t.Fatalf("access log format %v is not JSON: %v", als["Format"], err)
		}
		want := map[string]string{
			"requestId":          "$context.requestId",
			"ip":                 "$context.identity.sourceIp",
			"httpMethod":         "$context.httpMethod",
			"resourcePath":       "$context.resourcePath",
			"status":             "$context.status",
			"responseLength":     "$context.responseLength",
			"requestTime":        "$context.requestTime",
			"integrationLatency": "$context.integrationLatency",
			"authorizerError":    "$context.authorizer.error",
		}
		if len(format) != len(want) {
			t.Errorf("access log fields %v, want %v", keys(format), keys(want))
		}
		for k, v := range want {
			if format[k] != v {
				t.Errorf("access log %s = %q, want %q", k, format[k], v)
			}
		}
		if days := props(resource(t, s.JSON, "ApiAccessLogGroup", "AWS::Logs::LogGroup"))["RetentionInDays"]; days != float64(30) {
			t.Errorf("access log retention = %v days", days)
		}
		// Access logs need the account's CloudWatch role for API Gateway.
		if _, acct := only(t, s.JSON, "AWS::ApiGateway::Account"); acct == nil {
			t.Error("no AWS::ApiGateway::Account")
		}
	})
}

func TestGatewayResponseBody(t *testing.T) {
	got := stack.GatewayResponseBody(deploy.GatewayResponse{Code: "unauthorized", Message: "Send Authorization: Bearer <key>."})
	if want := `{"error":{"code":"unauthorized","message":"Send Authorization: Bearer <key>."}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a body with $ was accepted")
		}
	}()
	stack.GatewayResponseBody(deploy.GatewayResponse{Type: "X", Code: "x", Message: "costs $5"})
}
