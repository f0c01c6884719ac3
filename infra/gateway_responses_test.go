package main

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/evs-kyb/evs/shared/deploy"
)

// TestSAMGatewayResponsesMatchCatalogue holds template.yaml's gateway
// responses to deploy.GatewayResponses(), as TestGatewayResponses in
// infra/stack does for the CDK stack: the same types, statuses (none for the
// DEFAULT_ ones) and exact JSON bodies, so API Gateway's own answers (401,
// 404, 413, 504, …) have the functions' error shape whichever tool deploys.
func TestSAMGatewayResponsesMatchCatalogue(t *testing.T) {
	apis := resourcesOfType(loadSAM(t), "AWS::Serverless::Api")
	if len(apis) != 1 {
		t.Fatalf("%d AWS::Serverless::Api resources, want 1", len(apis))
	}
	var got map[string]any
	for _, props := range apis {
		got, _ = props["GatewayResponses"].(map[string]any)
	}
	want := deploy.GatewayResponses()
	if len(got) != len(want) {
		t.Errorf("%d gateway responses in template.yaml, want %d", len(got), len(want))
	}
	for _, g := range want {
		r, ok := got[g.Type].(map[string]any)
		if !ok {
			t.Errorf("template.yaml has no gateway response %s", g.Type)
			continue
		}
		wantStatus := any(nil)
		if g.Status != 0 {
			wantStatus = strconv.Itoa(g.Status)
		}
		if r["StatusCode"] != wantStatus {
			t.Errorf("%s: StatusCode %v, want %v", g.Type, r["StatusCode"], wantStatus)
		}
		templates, _ := r["ResponseTemplates"].(map[string]any)
		if body := fmt.Sprint(templates["application/json"]); body != g.Body() {
			t.Errorf("%s: body %s, want %s", g.Type, body, g.Body())
		}
	}
}
