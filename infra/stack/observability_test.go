package stack_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	emf "github.com/evs-kyb/evs/shared/metrics"
)

// Alarms on every function's Errors (its faults instead when its Lambda
// errors include refusals) and Throttles and on the stage's 5XX and p99
// latency, all notifying the topic.
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
		case "AWS/SQS":
			key += " " + dims["QueueName"]
		case emf.Namespace:
			if len(dims) != 0 {
				t.Errorf("%s: dimensions %v; webhook-delivery writes its metrics without", id, dims)
			}
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
	}
	for _, f := range deploy.Functions() {
		if f.RefusesWithErrors { // its Errors count refusals
			want = append(want, "evs-dev "+stack.FaultsMetric(f)+" Sum")
		} else {
			want = append(want, "AWS/Lambda Errors Sum ref:"+f.LogicalID)
		}
		want = append(want, "AWS/Lambda Throttles Sum ref:"+f.LogicalID)
	}
	if !found["evs-dev "+stack.DecisionFaultsMetric+" Sum"] {
		t.Errorf("no alarm on %s", stack.DecisionFaultsMetric)
	}
	// The delivery pipeline's.
	want = append(want,
		"AWS/SQS ApproximateNumberOfMessagesVisible Maximum getatt:ReviewEventsFailureQueue.QueueName",
		"AWS/SQS ApproximateNumberOfMessagesVisible Maximum getatt:DeliveriesDeadLetterQueue.QueueName",
		"AWS/SQS ApproximateAgeOfOldestMessage Maximum getatt:DeliveriesQueue.QueueName",
		"EVS WebhookDeliveriesFailed Sum",
	)
	if !equal(keys(found), want) {
		t.Errorf("alarms: %s", diff(keys(found), want))
	}
}

// The delivery pipeline's alarms, under the logical ids template.yaml
// uses: any message in the stream's failure queue or in the deliveries'
// dead-letter queue, the deliveries queue's oldest message at 15 minutes,
// any failed delivery; each over one five-minute period, missing data not
// breaching (an idle queue or a quiet day reports nothing).
func TestPipelineAlarms(t *testing.T) {
	tmpl := dev(t).JSON
	topic := alarmTopic(t, tmpl)
	type alarm struct {
		name, namespace, metric, stat, queue, op string
		threshold                                float64
	}
	atLeast := "GreaterThanOrEqualToThreshold"
	want := map[string]alarm{
		"ReviewEventsFailureQueueMessages":  {"evs-dev-review-events-failures-messages", "AWS/SQS", "ApproximateNumberOfMessagesVisible", "Maximum", "ReviewEventsFailureQueue", atLeast, 1},
		"DeliveriesDeadLetterQueueMessages": {"evs-dev-deliveries-dlq-messages", "AWS/SQS", "ApproximateNumberOfMessagesVisible", "Maximum", "DeliveriesDeadLetterQueue", atLeast, 1},
		"DeliveriesQueueOldestMessageAge":   {"evs-dev-deliveries-oldest-message-age", "AWS/SQS", "ApproximateAgeOfOldestMessage", "Maximum", "DeliveriesQueue", atLeast, stack.QueueOldestMessageAgeSeconds},
		"WebhookDeliveriesFailed":           {"evs-dev-webhook-deliveries-failed", "EVS", "WebhookDeliveriesFailed", "Sum", "", atLeast, 1},
	}
	if stack.QueueOldestMessageAgeSeconds != 900 {
		t.Errorf("QueueOldestMessageAgeSeconds = %d", stack.QueueOldestMessageAgeSeconds)
	}
	if emf.Namespace != "EVS" || emf.DeliveriesFailed != "WebhookDeliveriesFailed" {
		t.Errorf("metrics: namespace %s, failed %s", emf.Namespace, emf.DeliveriesFailed)
	}
	for id, w := range want {
		p := props(resource(t, tmpl, id, "AWS::CloudWatch::Alarm"))
		var dims []string
		for _, d := range asList(p["Dimensions"]) {
			dims = append(dims, d.(obj)["Name"].(string)+"="+ref(d.(obj)["Value"]))
		}
		wantDims := []string(nil)
		if w.queue != "" {
			wantDims = []string{"QueueName=getatt:" + w.queue + ".QueueName"}
		}
		if p["AlarmName"] != w.name || p["Namespace"] != w.namespace || p["MetricName"] != w.metric || p["Statistic"] != w.stat ||
			p["ExtendedStatistic"] != nil || !equal(dims, wantDims) {
			t.Errorf("%s: %v %v %v %v %v, want %+v", id, p["AlarmName"], p["Namespace"], p["MetricName"], p["Statistic"], dims, w)
		}
		if p["Period"] != float64(300) || p["EvaluationPeriods"] != float64(1) || p["DatapointsToAlarm"] != nil ||
			p["Threshold"] != w.threshold || p["ComparisonOperator"] != w.op || p["TreatMissingData"] != "notBreaching" {
			t.Errorf("%s: period %v × %v, %v %v, missing %v", id, p["Period"], p["EvaluationPeriods"], p["ComparisonOperator"], p["Threshold"], p["TreatMissingData"])
		}
		if a, ok := strs(p["AlarmActions"]), strs(p["OKActions"]); len(a) != 1 || a[0] != "ref:"+topic || len(ok) != 1 || ok[0] != "ref:"+topic {
			t.Errorf("%s: actions %v, OK actions %v", id, a, ok)
		}
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
		// The delivery pipeline.
		`"title":"Webhook deliveries"`, `"title":"Webhook delivery duration"`, `"title":"Queue depth"`,
		`"title":"Queue oldest message age (seconds)"`, `"title":"Stream iterator age (ms)"`,
		`["EVS","WebhookDeliveriesDelivered",{"label":"delivered","stat":"Sum"}]`,
		`["EVS","WebhookDeliveriesFailed",{"label":"failed","stat":"Sum"}]`,
		`["EVS","WebhookDeliveryDuration",{"label":"p50","stat":"p50"}]`,
		`["EVS","WebhookDeliveryDuration",{"label":"p95","stat":"p95"}]`,
		`["AWS/SQS","ApproximateNumberOfMessagesNotVisible","QueueName","getatt:DeliveriesQueue.QueueName",{"label":"deliveries in flight","stat":"Maximum"}]`,
		`["AWS/Lambda","IteratorAge","FunctionName","ref:ReviewEventsFunction",{"label":"review-events","stat":"Maximum"}]`,
	} {
		if !strings.Contains(body, s) {
			t.Errorf("dashboard lacks %s", s)
		}
	}
	for _, q := range deploy.Queues() {
		for _, m := range []string{"ApproximateNumberOfMessagesVisible", "ApproximateAgeOfOldestMessage"} {
			if !strings.Contains(body, `"AWS/SQS","`+m+`","QueueName","getatt:`+q.LogicalID+`.QueueName"`) {
				t.Errorf("dashboard lacks %s of %s", m, q.ID)
			}
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

// The functions whose Lambda errors include refusals by design, each with
// the metric that counts its faults: decision's keeps the name it was
// deployed with.
func TestRefusesWithErrors(t *testing.T) {
	cases := []struct {
		name, metric string
		refuses      bool
	}{
		{name: stack.DecisionFunction, metric: stack.DecisionFaultsMetric, refuses: true},
		{name: stack.AdminFunction, metric: "AdminFaults", refuses: true},
		{name: stack.WebhookDeliveryFunction, metric: "WebhookDeliveryFaults"},
		{name: "create-entity", metric: "CreateEntityFaults"},
	}
	if stack.DecisionFaultsMetric != "DecisionFaults" {
		t.Errorf("DecisionFaultsMetric = %s", stack.DecisionFaultsMetric)
	}
	var want []string
	for _, c := range cases {
		f, ok := deploy.Lookup(c.name)
		if !ok {
			t.Errorf("the catalogue has no function %s", c.name)
			continue
		}
		if f.RefusesWithErrors != c.refuses {
			t.Errorf("%s: RefusesWithErrors %v, want %v", c.name, f.RefusesWithErrors, c.refuses)
		}
		if got := stack.FaultsMetric(f); got != c.metric {
			t.Errorf("FaultsMetric(%s) = %s, want %s", c.name, got, c.metric)
		}
		if c.refuses {
			want = append(want, c.name)
		}
	}
	var got []string
	for _, f := range deploy.Functions() {
		if f.RefusesWithErrors {
			got = append(got, f.Name)
		}
	}
	if !equal(got, want) {
		t.Errorf("functions that refuse with errors: %s", diff(got, want))
	}
}

// Each function whose Lambda errors include refusals has its faults metric,
// counting its ERROR lines and its timeouts, never the INFO lines of
// refusals; and its alarm is on that metric, not on its Errors. Every
// metric filter is one of theirs.
func TestFaultsMetrics(t *testing.T) {
	both(t, func(t *testing.T, s *stacktest.Synthesized) {
		tmpl := s.JSON
		namespace := stack.StackName(s.Props.Stage)
		topic := alarmTopic(t, tmpl)
		patterns := map[string][]string{}
		for id, mf := range resources(tmpl, "AWS::Logs::MetricFilter") {
			p := props(mf)
			mt := asList(p["MetricTransformations"])
			logGroup := strings.TrimPrefix(ref(p["LogGroupName"]), "ref:")
			if len(mt) != 1 {
				t.Errorf("metric filter %s: transformations %v", id, mt)
				continue
			}
			m := mt[0].(obj)
			patterns[logGroup] = append(patterns[logGroup], m["MetricName"].(string)+" "+p["FilterPattern"].(string))
			if m["MetricNamespace"] != namespace || m["MetricValue"] != "1" {
				t.Errorf("metric filter %s publishes %v", id, m)
			}
		}
		var flagged []string
		for _, f := range deploy.Functions() {
			if !f.RefusesWithErrors {
				continue
			}
			flagged = append(flagged, f.LogicalID+"LogGroup")
			metric := stack.FaultsMetric(f)
			t.Run(f.Name, func(t *testing.T) {
				want := []string{metric + ` { $.level = "ERROR" }`, metric + ` "Task timed out"`}
				if got := patterns[f.LogicalID+"LogGroup"]; !equal(got, want) {
					t.Errorf("filters on its log group: %s", diff(got, want))
				}
				var alarms []string
				for id, a := range resources(tmpl, "AWS::CloudWatch::Alarm") {
					p := props(a)
					onFunction := false
					for _, d := range asList(p["Dimensions"]) {
						if d := d.(obj); d["Name"] == "FunctionName" && ref(d["Value"]) == "ref:"+f.LogicalID {
							onFunction = true
						}
					}
					if onFunction && p["MetricName"] == "Errors" {
						t.Errorf("alarm %s is on its Errors, which count refusals", id)
					}
					if p["MetricName"] != metric {
						continue
					}
					alarms = append(alarms, id)
					if p["AlarmName"] != namespace+"-"+f.Name+"-faults" || p["Namespace"] != namespace || p["Statistic"] != "Sum" || p["Dimensions"] != nil {
						t.Errorf("%s: %v %v %v %v", id, p["AlarmName"], p["Namespace"], p["Statistic"], p["Dimensions"])
					}
					if p["Period"] != float64(300) || p["EvaluationPeriods"] != float64(1) || p["Threshold"] != float64(1) ||
						p["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" || p["TreatMissingData"] != "notBreaching" {
						t.Errorf("%s: period %v × %v, %v %v, missing %v", id, p["Period"], p["EvaluationPeriods"], p["ComparisonOperator"], p["Threshold"], p["TreatMissingData"])
					}
					if a, ok := strs(p["AlarmActions"]), strs(p["OKActions"]); len(a) != 1 || a[0] != "ref:"+topic || len(ok) != 1 || ok[0] != "ref:"+topic {
						t.Errorf("%s: actions %v, OK actions %v", id, a, ok)
					}
				}
				if len(alarms) != 1 {
					t.Errorf("alarms on %s: %v, want 1", metric, alarms)
				}
			})
		}
		if got := keys(patterns); !equal(got, flagged) {
			t.Errorf("metric filters on the log groups %s", diff(got, flagged))
		}
	})
}

// The decision function's faults metric counts its ERROR lines and its
// timeouts, never the INFO lines of refused actions.
func TestDecisionFaultsMetric(t *testing.T) {
	var patterns []string
	for id, mf := range resources(dev(t).JSON, "AWS::Logs::MetricFilter") {
		p := props(mf)
		mt := asList(p["MetricTransformations"])
		if ref(p["LogGroupName"]) != "ref:DecisionFunctionLogGroup" || len(mt) != 1 {
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
