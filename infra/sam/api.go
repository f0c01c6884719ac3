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
	alarmTopicID   = "AlarmTopic"
	authorizerName = "ApiKeyAuthorizer"
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
		r = append(r,
			KV("ResponseParameters", Map(KV("Headers", Map(KV("Content-Type", stack.GatewayResponseContentType))))),
			KV("ResponseTemplates", Map(KV("application/json", body))),
		)
		responses = append(responses, KV(g.Type, Map(r...)))
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
				KV("ThrottlingRateLimit", stack.DefaultThrottleRate),
				KV("ThrottlingBurstLimit", stack.DefaultThrottleBurst),
				KV("MetricsEnabled", true),
				KV("LoggingLevel", "ERROR"),
				KV("DataTraceEnabled", false),
			))),
			KV("AccessLogSetting", Map(
				KV("DestinationArn", GetAtt(stack.AccessLogGroupID, "Arn")),
				KV("Format", stack.AccessLogFormat()),
			)),
		)).Note(apiNote),
		resource(stack.AccessLogGroupID, "AWS::Logs::LogGroup", Map(
			KV("LogGroupName", Sub("/aws/apigateway/"+stack.StackName(stage)+"/access")),
			KV("RetentionInDays", stack.LogRetentionDays),
		), retained()...),
	}, nil
}
