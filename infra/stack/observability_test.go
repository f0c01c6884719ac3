package stack_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
)

// Alarms on every function's Errors and Throttles and on the stage's 5XX
// and p99 latency, all notifying the topic.
func TestAlarms(t *testing.T) {
	tmpl := dev(t).JSON
	topicID := alarmTopic(t, tmpl)
	restID, _ := only(t, tmpl, "AWS::ApiGateway::RestApi")
	stageID, _ := only(t, tmpl, "AWS::ApiGateway::Stage")

	found := map[string]bool{}
	for id, a := range resources(tmpl, "AWS::CloudWatch::Alarm") {
		p := props(a)
		dims := map[string]string{}
		for _, d := range asList(p["Dimensions"]) {
			d := d.(obj)
			dims[d["Name"].(string)] = ref(d["Value"])
		}
		stat, _ := p["Statistic"].(string)
		if es, ok := p["ExtendedStatistic"].(string); ok {
			stat = es
		}
		key := p["Namespace"].(string) + " " + p["MetricName"].(string) + " " + stat
		switch p["Namespace"] {
		case "AWS/Lambda":
			key += " " + dims["FunctionName"]
		case "AWS/States":
			key += " " + dims["StateMachineArn"]
		case "AWS/ApiGateway":
			if dims["ApiName"] != "evs-dev" || !strings.HasPrefix(dims["Stage"], "ref:"+stageID) && dims["Stage"] != "dev" {
				t.Errorf("%s: dimensions %v", id, dims)
			}
		}
		found[key] = true
		if got := strs(p["AlarmActions"]); len(got) != 1 || got[0] != "ref:"+topicID {
			t.Errorf("%s: AlarmActions %v", id, got)
		}
		if got := strs(p["OKActions"]); len(got) != 1 || got[0] != "ref:"+topicID {
			t.Errorf("%s: OKActions %v", id, got)
		}
		if p["TreatMissingData"] != "notBreaching" {
			t.Errorf("%s: TreatMissingData %v", id, p["TreatMissingData"])
		}
	}
	_ = restID
	want := []string{"AWS/ApiGateway 5XXError Sum", "AWS/ApiGateway Latency p99",
		// Not ExecutionsFailed: refused decisions fail their executions.
		"AWS/States ExecutionThrottled Sum ref:" + stack.DecisionStateMachineID,
		"evs-dev " + stack.DecisionFaultsMetric + " Sum",
	}
	for _, f := range deploy.Functions() {
		if f.Name != stack.DecisionFunction { // its Errors count refusals
			want = append(want, "AWS/Lambda Errors Sum ref:"+f.LogicalID)
		}
		want = append(want, "AWS/Lambda Throttles Sum ref:"+f.LogicalID)
	}
	if !equal(keys(found), want) {
		t.Errorf("alarms: %s", diff(keys(found), want))
	}
}

// The dashboard shows the API (count, 4XX, 5XX, latency) and every function
// (invocations, errors, duration).
func TestDashboard(t *testing.T) {
	tmpl := dev(t).JSON
	_, d := only(t, tmpl, "AWS::CloudWatch::Dashboard")
	p := props(d)
	if p["DashboardName"] != "evs-dev" {
		t.Errorf("DashboardName = %v", p["DashboardName"])
	}
	body := ref(p["DashboardBody"])
	for _, s := range []string{
		`"AWS/ApiGateway","Count"`, `"AWS/ApiGateway","4XXError"`, `"AWS/ApiGateway","5XXError"`, `"AWS/ApiGateway","Latency"`,
		`"title":"API requests"`, `"title":"API 4XX"`, `"title":"API 5XX"`, `"title":"API latency"`,
		`"title":"Function invocations"`, `"title":"Function errors"`, `"title":"Function duration (p99)"`, `"title":"Alarms"`,
	} {
		if !strings.Contains(body, s) {
			t.Errorf("dashboard lacks %s", s)
		}
	}
	for _, f := range deploy.Functions() {
		for _, m := range []string{"Invocations", "Errors", "Duration"} {
			if !strings.Contains(body, `"AWS/Lambda","`+m+`","FunctionName","ref:`+f.LogicalID+`"`) {
				t.Errorf("dashboard lacks %s of %s", m, f.Name)
			}
		}
	}
}

// The alarm topic has an e-mail subscription only when alarmEmail is set.
func TestAlarmTopic(t *testing.T) {
	if subs := resources(dev(t).JSON, "AWS::SNS::Subscription"); len(subs) != 0 {
		t.Errorf("dev has subscriptions %v", keys(subs))
	}
	topicID := alarmTopic(t, prod(t).JSON)
	_, sub := only(t, prod(t).JSON, "AWS::SNS::Subscription")
	p := props(sub)
	if p["Protocol"] != "email" || p["Endpoint"] != prod(t).Props.AlarmEmail || ref(p["TopicArn"]) != "ref:"+topicID {
		t.Errorf("subscription = %v", p)
	}
}

// The decision function's faults metric counts its ERROR lines and its
// timeouts, never the INFO lines of refused actions.
func TestDecisionFaultsMetric(t *testing.T) {
	var patterns []string
	for id, mf := range resources(dev(t).JSON, "AWS::Logs::MetricFilter") {
		p := props(mf)
		mt := asList(p["MetricTransformations"])
		if ref(p["LogGroupName"]) != "ref:DecisionFunctionLogGroup" || len(mt) != 1 {
			t.Errorf("metric filter %s on %s", id, ref(p["LogGroupName"]))
			continue
		}
		m := mt[0].(obj)
		if m["MetricNamespace"] != "evs-dev" || m["MetricName"] != stack.DecisionFaultsMetric || m["MetricValue"] != "1" {
			t.Errorf("metric filter %s publishes %v", id, m)
		}
		patterns = append(patterns, p["FilterPattern"].(string))
	}
	if want := []string{`{ $.level = "ERROR" }`, `"Task timed out"`}; !equal(patterns, want) {
		t.Errorf("filter patterns: %s", diff(patterns, want))
	}
}

// alarmTopic is the one SNS topic besides the approvals topic.
func alarmTopic(t *testing.T, tmpl obj) string {
	t.Helper()
	var ids []string
	for id := range resources(tmpl, "AWS::SNS::Topic") {
		if id != stack.DecisionApprovalTopicID {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("alarm topics %v, want 1", ids)
	}
	return ids[0]
}

// CDK reports nothing about the stacks: no error, no warning.
func TestNoAnnotations(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		for _, m := range s.Messages {
			t.Error(m)
		}
	})
}

// The app reads its props from the CDK context only.
func TestPropsFromContext(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{
		"stage": "prod", "alarmEmail": "ops@example.com", "YenteThreshold": "0.8", "WathqBaseUrl": "https://wathq.example",
		"apiThrottleRate": "10", "apiThrottleBurst": 20,
	}})
	p := stack.PropsFromContext(app.Node())
	if p.Stage != "prod" || p.AlarmEmail != "ops@example.com" || p.ThrottleRate != 10 || p.ThrottleBurst != 20 {
		t.Errorf("props = %+v", p)
	}
	if len(p.Settings) != 2 || p.Settings["YenteThreshold"] != "0.8" || p.Settings["WathqBaseUrl"] != "https://wathq.example" {
		t.Errorf("settings = %v", p.Settings)
	}

	p = stack.PropsFromContext(awscdk.NewApp(nil).Node())
	if p.Stage != stack.DefaultStage || p.AlarmEmail != "" || len(p.Settings) != 0 || p.ThrottleRate != 0 {
		t.Errorf("props without context = %+v", p)
	}
}
