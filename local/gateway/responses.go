package gateway

import (
	"encoding/base64"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/deploy"
)

func (g *Gateway) gatewayResponse(w http.ResponseWriter, typ string, status int) int {
	gr := deploy.GatewayResponseOf(typ)
	if gr.Status != 0 {
		status = gr.Status
	}
	body := []byte(gr.Body())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", typ)
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
	return status
}

func writeProxyResponse(w http.ResponseWriter, resp events.APIGatewayProxyResponse) int {
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		w.Header().Del(k)
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if b, err := base64.StdEncoding.DecodeString(resp.Body); err == nil {
			body = b
		}
	}
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusBadGateway
	}
	w.WriteHeader(status)
	w.Write(body)
	return status
}
