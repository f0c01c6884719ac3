package stack_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

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
// PathPart/ParentId chain up to the API's root resource; every method and
// resource must be the API's, every integration a Lambda proxy.
func methods(t *testing.T, tmpl assertions.Template) map[string]method {
	t.Helper()
	restID := onlyID(t, tmpl, "AWS::ApiGateway::RestApi")
	onAPI := m{"RestApiId": refOf(restID)}
	rootRef := "getatt:" + restID + ".RootResourceId"
	res := find(t, tmpl, "AWS::ApiGateway::Resource", onAPI)
	if all := find(t, tmpl, "AWS::ApiGateway::Resource", nil); len(all) != len(res) {
		t.Errorf("%d resources, %d of them the API's", len(all), len(res))
	}
	var pathOf func(parent string, depth int) string
	pathOf = func(r string, depth int) string {
		if r == rootRef {
			return ""
		}
		id, ok := strings.CutPrefix(r, "ref:")
		if !ok || depth > 20 || res[id] == nil {
			t.Fatalf("resource reference %s leads nowhere", r)
		}
		p := res[id]["Properties"].(m)
		return pathOf(ref(p["ParentId"]), depth+1) + "/" + p["PathPart"].(string)
	}
	fnByArn := map[string]string{}
	for _, f := range deploy.Functions() {
		fnByArn[f.LogicalID] = f.Name
	}

	proxy := like(m{"Integration": like(m{"Type": "AWS_PROXY", "IntegrationHttpMethod": "POST",
		"Uri": like(m{"Fn::Join": arrayWith("", arrayWith(":lambda:path/2015-03-31/functions/", "/invocations"))})})})
	out := map[string]method{}
	if n, onIt := len(find(t, tmpl, "AWS::ApiGateway::Method", nil)), len(find(t, tmpl, "AWS::ApiGateway::Method", onAPI)); n != onIt {
		t.Errorf("%d methods, %d of them on the API", n, onIt)
	}
	for id, r := range find(t, tmpl, "AWS::ApiGateway::Method", onAPI) {
		p := r["Properties"].(m)
		m := method{id: id, path: pathOf(ref(p["ResourceId"]), 0), httpMethod: p["HttpMethod"].(string)}
		if m.path == "" {
			m.path = "/"
		}
		matches(t, m.httpMethod+" "+m.path+" is a Lambda proxy", p, proxy)
		m.auth, _ = p["AuthorizationType"].(string)
		if a := p["AuthorizerId"]; a != nil {
			m.authorizer = ref(a)
		}
		var targets []string
		for _, target := range refsIn(p["Integration"]) {
			if name, ok := fnByArn[target]; ok {
				targets = append(targets, name)
			}
		}
		if len(targets) != 1 {
			t.Errorf("%s %s: integration names functions %v, want one", m.httpMethod, m.path, targets)
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
	tmpl := dev(t).Template
	authorizerID := onlyID(t, tmpl, "AWS::ApiGateway::Authorizer")
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

	// API Gateway may invoke each method's function for exactly that method
	// and path on this API's stage (one permission per method, ANY as *,
	// every {param} and {proxy+} as *), and the authorizer from its
	// authorizer; nothing else may invoke a function from API Gateway.
	restID := onlyID(t, tmpl, "AWS::ApiGateway::RestApi")
	stageID := onlyID(t, tmpl, "AWS::ApiGateway::Stage")
	arnOnAPI := "arn:ref:AWS::Partition:execute-api:ref:AWS::Region:ref:AWS::AccountId:ref:" + restID
	fromAPI := like(m{"Principal": "apigateway.amazonaws.com", "Action": "lambda:InvokeFunction",
		"SourceArn": like(m{"Fn::Join": arrayWith("", arrayWith(refOf(restID)))})})
	var granted []string // "<function arn> <source arn>"
	for id, perm := range find(t, tmpl, "AWS::Lambda::Permission", nil) {
		p := perm["Properties"].(m)
		if p["Principal"] == "events.amazonaws.com" {
			continue // the daily schedules', TestDailySchedules
		}
		matches(t, "permission "+id, p, fromAPI)
		granted = append(granted, ref(p["FunctionName"])+" "+ref(p["SourceArn"]))
	}
	var wantGranted []string
	for key, w := range wants {
		method, path, _ := strings.Cut(key, " ")
		if method == "ANY" {
			method = "*"
		}
		f, _ := deploy.Lookup(w.function)
		wantGranted = append(wantGranted, "arn:"+f.LogicalID+" "+arnOnAPI+"/ref:"+stageID+"/"+method+executeAPIPath(path))
	}
	auth, _ := deploy.Lookup(stack.AuthorizerFunction)
	wantGranted = append(wantGranted, "arn:"+auth.LogicalID+" "+arnOnAPI+"/authorizers/ref:"+authorizerID)
	if !equal(granted, wantGranted) {
		t.Errorf("invoke permissions: %s", diff(granted, wantGranted))
	}
}

// executeAPIPath is a resource path as an execute-api ARN names it: each
// {param} and greedy {proxy+} segment a *.
func executeAPIPath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

// The REQUEST authorizer: the authorizer function, the Authorization header,
// cached deploy.AuthorizerCacheTTL.
func TestAuthorizer(t *testing.T) {
	tmpl := dev(t).Template
	f, _ := deploy.Lookup(stack.AuthorizerFunction)
	hasProps(t, tmpl, onlyID(t, tmpl, "AWS::ApiGateway::Authorizer"), "AWS::ApiGateway::Authorizer", m{
		"Type":                         "REQUEST",
		"RestApiId":                    refOf(onlyID(t, tmpl, "AWS::ApiGateway::RestApi")),
		"IdentitySource":               "method.request.header.Authorization",
		"AuthorizerResultTtlInSeconds": deploy.AuthorizerCacheTTL.Seconds(),
		"AuthorizerUri":                like(m{"Fn::Join": arrayWith("", arrayWith(":lambda:path/2015-03-31/functions/", arnOf(f.LogicalID), "/invocations"))}),
	})
}

// Every deploy.GatewayResponses() entry, once: its status (none for the
// DEFAULT_ ones, which keep API Gateway's), the exact JSON body, the
// Content-Type.
func TestGatewayResponses(t *testing.T) {
	tmpl := dev(t).Template
	countIs(t, tmpl, "AWS::ApiGateway::GatewayResponse", len(deploy.GatewayResponses()))
	for _, g := range deploy.GatewayResponses() {
		t.Run(g.Type, func(t *testing.T) {
			body := fmt.Sprintf(`{"error":{"code":%q,"message":%q}}`, g.Code, g.Message)
			var parsed api.ErrorBody
			if err := json.Unmarshal([]byte(body), &parsed); err != nil || parsed.Error.Code != g.Code || parsed.Error.Message != g.Message {
				t.Errorf("body %s does not parse to the code and message (%v)", body, err)
			}
			status := any(absent())
			if g.Status != 0 {
				status = strconv.Itoa(g.Status)
			}
			found := find(t, tmpl, "AWS::ApiGateway::GatewayResponse", m{
				"ResponseType":       g.Type,
				"StatusCode":         status,
				"ResponseTemplates":  exactly(m{"application/json": body}),
				"ResponseParameters": like(m{"gatewayresponse.header.Content-Type": "'application/json'"}),
			})
			if len(found) != 1 {
				t.Errorf("%d gateway responses %s with its status, body and Content-Type, want 1", len(found), g.Type)
			}
		})
	}
}

// The stage: named after the stage, throttled, traced, with metrics and
// JSON access logs of the agreed fields, kept a month.
func TestStage(t *testing.T) {
	format := m{
		"requestId":          "$context.requestId",
		"ip":                 "$context.identity.sourceIp",
		"httpMethod":         "$context.httpMethod",
		"resourcePath":       "$context.resourcePath",
		"status":             "$context.status",
		"responseLength":     "$context.responseLength",
		"requestTime":        "$context.requestTime",
		"integrationLatency": "$context.integrationLatency",
		"authorizerError":    "$context.authorizer.error",
		"extendedRequestId":  "$context.extendedRequestId",
		"path":               "$context.path",
		"responseLatency":    "$context.responseLatency",
		"errorType":          "$context.error.responseType",
		"accountId":          "$context.authorizer.account_id",
		"keyPrefix":          "$context.authorizer.key_prefix",
	}
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		rate, burst := s.Props.ThrottleRate, s.Props.ThrottleBurst
		if rate == 0 {
			rate, burst = stack.DefaultThrottleRate, stack.DefaultThrottleBurst
		}
		hasProps(t, s.Template, onlyID(t, s.Template, "AWS::ApiGateway::Stage"), "AWS::ApiGateway::Stage", m{
			"StageName":      s.Props.Stage,
			"TracingEnabled": true,
			"MethodSettings": arrayWith(like(m{
				"HttpMethod": "*", "ResourcePath": "/*",
				"ThrottlingRateLimit": rate, "ThrottlingBurstLimit": burst,
				"MetricsEnabled": true, "DataTraceEnabled": false,
			})),
			"AccessLogSetting": like(m{"DestinationArn": arnOf("ApiAccessLogGroup"), "Format": jsonOf(exactly(format))}),
		})
		hasProps(t, s.Template, "ApiAccessLogGroup", "AWS::Logs::LogGroup", m{"RetentionInDays": 30})
		// Access logs need the account's CloudWatch role for API Gateway.
		countIs(t, s.Template, "AWS::ApiGateway::Account", 1)
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
