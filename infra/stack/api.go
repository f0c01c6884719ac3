package stack

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/deploy"
)

// Stage throttling when the props give none.
const (
	DefaultThrottleRate  = 100 // requests per second, steady
	DefaultThrottleBurst = 200
)

// AccessLogGroupID is the logical id of the stage's access log group.
const AccessLogGroupID = "ApiAccessLogGroup"

// GatewayResponseContentType is the Content-Type header (a quoted literal,
// as API Gateway wants it) of every gateway response: their bodies are JSON.
const GatewayResponseContentType = "'application/json'"

// AuthorizerFunction is the deploy.Function that authorizes API requests.
const AuthorizerFunction = "authorizer"

// ApiProps configures the REST API.
type ApiProps struct {
	// Stage is the API Gateway stage name.
	Stage string
	// Functions maps function names to functions (Functions.Functions); it
	// must hold the authorizer and every function of deploy.Routes().
	Functions map[string]*Function
	// ThrottleRate and ThrottleBurst limit the stage; zero takes the defaults.
	ThrottleRate  float64
	ThrottleBurst float64
	// Retain keeps the access logs when the stack is deleted (every stage but an ephemeral one).
	Retain bool
}

// Api is the REST API in front of the functions.
type Api struct {
	constructs.Construct
	RestApi    awsapigateway.RestApi
	Stage      awsapigateway.Stage
	Authorizer awsapigateway.RequestAuthorizer
	AccessLogs awslogs.LogGroup
	// PublicMethods are the methods without the authorizer (Public
	// routes, and the ANY method beside them), which nag.go names.
	PublicMethods []awsapigateway.Method
}

// NewApi creates the REST API: one stage named after props.Stage with
// throttling, JSON access logs, X-Ray tracing and metrics; the REQUEST
// authorizer on the Authorization header, cached deploy.AuthorizerCacheTTL;
// every route of deploy.Routes() as a Lambda proxy integration of its function,
// behind the authorizer unless the route is Public; on every resource an ANY
// method to the function of the resource's first route, so a wrong method
// gets that function's JSON 405; and deploy.GatewayResponses() as JSON bodies.
func NewApi(scope constructs.Construct, id *string, props *ApiProps) *Api {
	if props == nil || props.Stage == "" {
		panic("infra: ApiProps.Stage is required")
	}
	a := &Api{Construct: constructs.NewConstruct(scope, id)}
	a.AccessLogs = a.newAccessLogs(props.Retain)
	a.RestApi = a.newRestApi(props)
	a.Stage = a.RestApi.DeploymentStage()
	a.Authorizer = awsapigateway.NewRequestAuthorizer(a.Construct, jsii.String("Authorizer"), &awsapigateway.RequestAuthorizerProps{
		AuthorizerName:  jsii.String(StackName(props.Stage) + "-api-key"),
		Handler:         apiFunction(props, AuthorizerFunction).Function,
		IdentitySources: &[]*string{awsapigateway.IdentitySource_Header(jsii.String("Authorization"))},
		ResultsCacheTtl: awscdk.Duration_Seconds(jsii.Number(deploy.AuthorizerCacheTTL.Seconds())),
	})
	a.addRoutes(props)
	a.addGatewayResponses()
	return a
}

// apiFunction is the function name of props.Functions, which the API needs.
func apiFunction(props *ApiProps, name string) *Function {
	f, ok := props.Functions[name]
	if !ok {
		panic(fmt.Sprintf("infra: the API needs function %q, which is not in ApiProps.Functions", name))
	}
	return f
}

// newAccessLogs is the stage's access log group, logical id
// AccessLogGroupID.
func (a *Api) newAccessLogs(retain bool) awslogs.LogGroup {
	logs := awslogs.NewLogGroup(a.Construct, jsii.String("AccessLogs"), &awslogs.LogGroupProps{
		Retention:     logRetention(),
		RemovalPolicy: removal(retain),
	})
	logs.Node().DefaultChild().(awslogs.CfnLogGroup).OverrideLogicalId(jsii.String(AccessLogGroupID))
	return logs
}

// newRestApi is the API with its one stage: throttling (the props' or the
// defaults), access logs to a.AccessLogs, tracing and metrics.
func (a *Api) newRestApi(props *ApiProps) awsapigateway.RestApi {
	rate, burst := props.ThrottleRate, props.ThrottleBurst
	if rate == 0 {
		rate = DefaultThrottleRate
	}
	if burst == 0 {
		burst = DefaultThrottleBurst
	}
	return awsapigateway.NewRestApi(a.Construct, jsii.String("RestApi"), &awsapigateway.RestApiProps{
		RestApiName: jsii.String(StackName(props.Stage)),
		Description: jsii.String("Entity Verification Service API (" + props.Stage + ")"),
		// Access logs need the account's CloudWatch Logs role for API Gateway.
		CloudWatchRole: jsii.Bool(true),
		Deploy:         jsii.Bool(true),
		DeployOptions: &awsapigateway.StageOptions{
			StageName:            jsii.String(props.Stage),
			ThrottlingRateLimit:  jsii.Number(rate),
			ThrottlingBurstLimit: jsii.Number(burst),
			AccessLogDestination: awsapigateway.NewLogGroupLogDestination(a.AccessLogs),
			AccessLogFormat:      awsapigateway.AccessLogFormat_Custom(jsii.String(AccessLogFormat())),
			TracingEnabled:       jsii.Bool(true),
			MetricsEnabled:       jsii.Bool(true),
			// Execution logs of every method's errors (an authorizer's
			// failure, an integration's timeout), which the access log
			// does not explain; never the requests' data, which hold API
			// keys and entities.
			LoggingLevel:     awsapigateway.MethodLoggingLevel_ERROR,
			DataTraceEnabled: jsii.Bool(false),
		},
	})
}

// addRoutes adds every route as a Lambda proxy integration of its
// function, behind the authorizer unless it is Public, and on every
// resource an ANY method to the function of its first route (a wrong
// method gets that function's JSON 405).
func (a *Api) addRoutes(props *ApiProps) {
	options := func(r deploy.Route) *awsapigateway.MethodOptions {
		if r.Public {
			return &awsapigateway.MethodOptions{AuthorizationType: awsapigateway.AuthorizationType_NONE}
		}
		return &awsapigateway.MethodOptions{AuthorizationType: awsapigateway.AuthorizationType_CUSTOM, Authorizer: a.Authorizer}
	}
	integration := func(name string) awsapigateway.LambdaIntegration {
		return awsapigateway.NewLambdaIntegration(apiFunction(props, name).Function, &awsapigateway.LambdaIntegrationOptions{
			Proxy: jsii.Bool(true),
			// The console's test button needs no standing permission.
			AllowTestInvoke: jsii.Bool(false),
		})
	}
	for _, path := range ResourcePaths() {
		resource := a.RestApi.Root().ResourceForPath(jsii.String(path))
		routes := RoutesOn(path)
		add := func(method string, r deploy.Route) {
			m := resource.AddMethod(jsii.String(method), integration(r.Function), options(r))
			if r.Public {
				a.PublicMethods = append(a.PublicMethods, m)
			}
		}
		for _, r := range routes {
			add(r.Method, r)
		}
		add("ANY", routes[0])
	}
}

// addGatewayResponses answers deploy.GatewayResponses() with JSON bodies.
func (a *Api) addGatewayResponses() {
	for _, g := range deploy.GatewayResponses() {
		opts := &awsapigateway.GatewayResponseOptions{
			Type:            awsapigateway.ResponseType_Of(jsii.String(g.Type)),
			ResponseHeaders: &map[string]*string{"Content-Type": jsii.String(GatewayResponseContentType)},
			Templates:       &map[string]*string{"application/json": jsii.String(GatewayResponseBody(g))},
		}
		if g.Status != 0 {
			opts.StatusCode = jsii.String(strconv.Itoa(g.Status))
		}
		a.RestApi.AddGatewayResponse(jsii.String("GatewayResponse"+pascal(g.Type)), opts)
	}
}

// StageURL is the stage's URL without a trailing slash,
// https://<api id>.execute-api.<region>.<url suffix>/<stage>: RestApi.Url()
// less its "/", the same tokens (the stage a Ref to its resource).
func (a *Api) StageURL() *string {
	return awscdk.Fn_Join(jsii.String(""), &[]*string{
		jsii.String("https://"), a.RestApi.RestApiId(),
		jsii.String(".execute-api."), awscdk.Aws_REGION(),
		jsii.String("."), awscdk.Aws_URL_SUFFIX(),
		jsii.String("/"), a.Stage.StageName(),
	})
}

// ResourcePaths lists the paths of deploy.Routes(), each once, in route order.
func ResourcePaths() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range deploy.Routes() {
		if !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r.Path)
		}
	}
	return out
}

// RoutesOn lists the routes of a resource path, in route order.
func RoutesOn(path string) []deploy.Route {
	var out []deploy.Route
	for _, r := range deploy.Routes() {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// GatewayResponseBody is the exact application/json template of a gateway
// response: {"error":{"code":"…","message":"…"}}, the shape of the functions'
// errors (api.ErrorBody), without HTML escaping. It panics where
// CheckedGatewayResponseBody fails.
func GatewayResponseBody(g deploy.GatewayResponse) string {
	body, err := CheckedGatewayResponseBody(g)
	if err != nil {
		panic(err.Error())
	}
	return body
}

// CheckedGatewayResponseBody is GatewayResponseBody, or an error for a body
// with a '$' or '#', which API Gateway's template language would interpret.
func CheckedGatewayResponseBody(g deploy.GatewayResponse) (string, error) {
	body := g.Body()
	if strings.ContainsAny(body, "$#") {
		return "", fmt.Errorf("infra: gateway response %s: the body may not contain '$' or '#' (template language): %s", g.Type, body)
	}
	return body, nil
}

// AccessLogFields are the access log's JSON keys and their $context values.
func AccessLogFields() [][2]string {
	return [][2]string{
		{"requestId", *awsapigateway.AccessLogField_ContextRequestId()},
		{"ip", *awsapigateway.AccessLogField_ContextIdentitySourceIp()},
		{"httpMethod", *awsapigateway.AccessLogField_ContextHttpMethod()},
		{"resourcePath", *awsapigateway.AccessLogField_ContextResourcePath()},
		{"status", *awsapigateway.AccessLogField_ContextStatus()},
		{"responseLength", *awsapigateway.AccessLogField_ContextResponseLength()},
		{"requestTime", *awsapigateway.AccessLogField_ContextRequestTime()},
		{"integrationLatency", *awsapigateway.AccessLogField_ContextIntegrationLatency()},
		{"authorizerError", *awsapigateway.AccessLogField_ContextAuthorizerError()},
		// Which request, path, answer and caller: enough to follow one call
		// across the gateway, the function's logs and the account.
		{"extendedRequestId", *awsapigateway.AccessLogField_ContextExtendedRequestId()},
		{"path", *awsapigateway.AccessLogField_ContextPath()},
		{"responseLatency", *awsapigateway.AccessLogField_ContextResponseLatency()},
		{"errorType", *awsapigateway.AccessLogField_ContextErrorResponseType()},
		{"accountId", *awsapigateway.AccessLogField_ContextAuthorizer(jsii.String(auth.AuthorizerAccountID))},
		{"keyPrefix", *awsapigateway.AccessLogField_ContextAuthorizer(jsii.String(auth.AuthorizerKeyPrefix))},
	}
}

// AccessLogFormat is the stage's access log line: one JSON object of
// AccessLogFields, every value quoted so an empty one still parses.
func AccessLogFormat() string {
	var parts []string
	for _, f := range AccessLogFields() {
		parts = append(parts, strconv.Quote(f[0])+":"+strconv.Quote(f[1]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// pascal turns "MISSING_AUTHENTICATION_TOKEN" into "MissingAuthenticationToken".
func pascal(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(s), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}
