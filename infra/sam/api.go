package sam

import (
	"fmt"
	"strconv"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
)

// Logical ids of what only this template names so.
const (
	restAPIID      = "RestApi"
	accessLogsID   = "ApiAccessLogs"
	alarmTopicID   = "AlarmTopic"
	authorizerName = "ApiKeyAuthorizer"
)

// The stage's settings as the hand-written template had them. They differ
// from the CDK stack's (stack.DefaultThrottleRate and Burst, 100 and 200;
// access logs a month, with stack.AccessLogFields): kept so that generating
// the template changed no deployment of it.
const (
	ThrottleRate           = 50
	ThrottleBurst          = 100
	AccessLogRetentionDays = 90
	AccessLogFormat        = `{"request_id":"$context.requestId","extended_request_id":"$context.extendedRequestId","ip":"$context.identity.sourceIp","time":"$context.requestTime","method":"$context.httpMethod","resource":"$context.resourcePath","path":"$context.path","status":"$context.status","length":"$context.responseLength","latency_ms":"$context.responseLatency","integration_latency_ms":"$context.integrationLatency","error_type":"$context.error.responseType","account_id":"$context.authorizer.account_id","key_prefix":"$context.authorizer.key_prefix","authorizer_error":"$context.authorizer.error"}`
)

const apiNote = `--------------------------------------------------------------------- API
One REST API, its stage the Stage parameter; every route of deploy.Routes()
is an Api event of its function. OpenApiVersion 3.0.1 keeps SAM from adding
its extra stage named "Stage". Writing access logs needs the account's API
Gateway CloudWatch role (AWS::ApiGateway::Account), set once per account and
region, not here.`

// api: the REST API with the REQUEST authorizer (cached
// deploy.AuthorizerCacheTTL: a revoked key stops working within it), the
// gateway responses of deploy.GatewayResponses() (the functions' error body;
// DEFAULT_4XX and DEFAULT_5XX have no status, so they keep the one they
// stand for), throttling, metrics and access logs.
func api() ([]Pair, error) {
	authorizer, err := deploy.FunctionByName(stack.AuthorizerFunction)
	if err != nil {
		return nil, fmt.Errorf("sam: the API: %w", err)
	}
	var responses []Pair
	for _, g := range deploy.GatewayResponses() {
		body, err := stack.CheckedGatewayResponseBody(g)
		if err != nil {
			return nil, fmt.Errorf("sam: %w", err)
		}
		var r []Pair
		if g.Status != 0 {
			r = append(r, KV("StatusCode", Quoted(strconv.Itoa(g.Status))))
		}
		responses = append(responses, KV(g.Type, Map(append(r, KV("ResponseTemplates", Map(KV("application/json", body))))...)))
	}
	return []Pair{
		resource(restAPIID, "AWS::Serverless::Api", Map(
			KV("Name", Sub(stack.StackName(stage))),
			KV("StageName", Ref("Stage")),
			KV("OpenApiVersion", Quoted("3.0.1")),
			KV("EndpointConfiguration", Flow(KV("Type", "REGIONAL"))),
			KV("TracingEnabled", true),
			KV("Auth", Map(
				KV("DefaultAuthorizer", authorizerName),
				KV("Authorizers", Map(KV(authorizerName, Map(
					KV("FunctionPayloadType", "REQUEST"),
					KV("FunctionArn", GetAtt(authorizer.LogicalID, "Arn")),
					KV("Identity", Map(
						KV("Headers", []string{"Authorization"}),
						KV("ReauthorizeEvery", int(deploy.AuthorizerCacheTTL.Seconds())),
					)),
				)))),
			)),
			KV("GatewayResponses", Map(responses...)),
			KV("MethodSettings", List(Map(
				KV("ResourcePath", "/*"),
				KV("HttpMethod", "*"),
				KV("ThrottlingRateLimit", ThrottleRate),
				KV("ThrottlingBurstLimit", ThrottleBurst),
				KV("MetricsEnabled", true),
			))),
			KV("AccessLogSetting", Map(
				KV("DestinationArn", GetAtt(accessLogsID, "Arn")),
				KV("Format", AccessLogFormat),
			)),
		)).Note(apiNote),
		resource(accessLogsID, "AWS::Logs::LogGroup", Map(
			KV("LogGroupName", Sub("/aws/apigateway/"+stack.StackName(stage)+"/access")),
			KV("RetentionInDays", AccessLogRetentionDays),
		)),
	}, nil
}
