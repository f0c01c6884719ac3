package gateway

import (
	"encoding/base64"
	"net"
	"net/http"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/deploy"
)

func (g *Gateway) proxyEvent(r *http.Request, route deploy.Route, params map[string]string, body []byte, reqID string) events.APIGatewayProxyRequest {
	headers := map[string]string{}
	mvHeaders := map[string][]string{}
	for k, vs := range r.Header {
		headers[k] = vs[len(vs)-1]
		mvHeaders[k] = vs
	}
	sourceIP, _, _ := net.SplitHostPort(r.RemoteAddr)
	fwd := map[string]string{"X-Forwarded-Proto": "http", "X-Forwarded-For": sourceIP, "Host": r.Host}
	for k, v := range fwd {
		headers[k] = v
		mvHeaders[k] = []string{v}
	}
	var query map[string]string
	var mvQuery map[string][]string
	if q := r.URL.Query(); len(q) > 0 {
		query, mvQuery = map[string]string{}, map[string][]string{}
		for k, vs := range q {
			query[k] = vs[len(vs)-1]
			mvQuery[k] = vs
		}
	}
	ev := events.APIGatewayProxyRequest{
		Resource:                        route.Path,
		Path:                            r.URL.Path,
		HTTPMethod:                      r.Method,
		Headers:                         headers,
		MultiValueHeaders:               mvHeaders,
		QueryStringParameters:           query,
		MultiValueQueryStringParameters: mvQuery,
		PathParameters:                  params,
		RequestContext: events.APIGatewayProxyRequestContext{
			AccountID:    accountID,
			ResourceID:   route.Function,
			Stage:        stage,
			RequestID:    reqID,
			Identity:     events.APIGatewayRequestIdentity{SourceIP: sourceIP, UserAgent: r.UserAgent()},
			ResourcePath: route.Path,
			Path:         r.URL.Path,
			HTTPMethod:   r.Method,
			APIID:        apiID,
			DomainName:   r.Host,
			Protocol:     r.Proto,
		},
	}
	if utf8.Valid(body) {
		ev.Body = string(body)
	} else {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	return ev
}
