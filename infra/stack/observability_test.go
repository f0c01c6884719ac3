package stack_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/infra/stack/stacktest"
	"github.com/evs-kyb/evs/shared/deploy"
	emf "github.com/evs-kyb/evs/shared/metrics"
)

// notifies: an alarm tells the topic when it fires and when it clears, and
// a quiet metric (an idle queue, a quiet day) is no alarm.
func notifies(topic string) m {
	return m{"AlarmActions": arrayOf(refOf(topic)), "OKActions": arrayOf(refOf(topic)), "TreatMissingData": "notBreaching"}
}

// Alarms on every function's Errors (its faults instead when its Lambda
// errors include refusals) and Throttles and on the stage's 5XX and p99
// latency, all notifying the topic.
func TestAlarms(t *testing.T) {
	tmpl := dev(t).Template
	topicID := alarmTopic(t, tmpl)
	stageID := onlyID(t, tmpl, "AWS::ApiGateway::Stage")

	found := map[string]bool{}
	for id, a := range find(t, tmpl, "AWS::CloudWatch::Alarm", nil) {
		p := a["Properties"].(m)
		matches(t, id, p, like(notifies(topicID)))
		dims := map[string]string{}
		for _, d := range asList(p["Dimensions"]) {
			d := d.(m)
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
	}
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
	// The delivery pipeline's, and any stream batch audit-export gave up on.
	want = append(want,
		"AWS/SQS ApproximateNumberOfMessagesVisible Maximum getatt:ReviewEventsFailureQueue.QueueName",
		"AWS/SQS ApproximateNumberOfMessagesVisible Maximum getatt:AuditExportFailureQueue.QueueName",
		"AWS/SQS ApproximateNumberOfMessagesVisible Maximum getatt:DeliveriesDeadLetterQueue.QueueName",
		"AWS/SQS ApproximateAgeOfOldestMessage Maximum getatt:DeliveriesQueue.QueueName",
		"EVS WebhookDeliveriesFailed Sum",
	)
	if !equal(keys(found), want) {
		t.Errorf("alarms: %s", diff(keys(found), want))
	}
}

// onePeriod is an alarm over one five-minute period: at least threshold.
func onePeriod(threshold any) m {
	return m{"Period": 300, "EvaluationPeriods": 1, "DatapointsToAlarm": absent(), "Threshold": threshold, "ComparisonOperator": "GreaterThanOrEqualToThreshold"}
}

// with is props with more.
func with(props m, more ...m) m {
	out := m{}
	for _, p := range append([]m{props}, more...) {
		for k, v := range p {
			out[k] = v
		}
	}
	return out
}

// The delivery pipeline's alarms, under the logical ids template.yaml
// uses: any message in the stream's failure queue or in the deliveries'
// dead-letter queue, the deliveries queue's oldest message at 15 minutes,
// any failed delivery; each over one five-minute period, missing data not
// breaching (an idle queue or a quiet day reports nothing).
func TestPipelineAlarms(t *testing.T) {
	tmpl := dev(t).Template
	topic := alarmTopic(t, tmpl)
	if stack.QueueOldestMessageAgeSeconds != 900 {
		t.Errorf("QueueOldestMessageAgeSeconds = %d", stack.QueueOldestMessageAgeSeconds)
	}
	if emf.Namespace != "EVS" || emf.DeliveriesFailed != "WebhookDeliveriesFailed" {
		t.Errorf("metrics: namespace %s, failed %s", emf.Namespace, emf.DeliveriesFailed)
	}
	onQueue := func(id string) assertions.Matcher {
		return arrayOf(exactly(m{"Name": "QueueName", "Value": getAtt(id, "QueueName")}))
	}
	cases := []struct {
		id        string
		props     m
		threshold any
	}{
		{"ReviewEventsFailureQueueMessages", m{"AlarmName": "evs-dev-review-events-failures-messages", "Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible", "Statistic": "Maximum", "Dimensions": onQueue("ReviewEventsFailureQueue")}, 1},
		{"AuditExportFailureQueueMessages", m{"AlarmName": "evs-dev-audit-export-failures-messages", "Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible", "Statistic": "Maximum", "Dimensions": onQueue("AuditExportFailureQueue")}, 1},
		{"DeliveriesDeadLetterQueueMessages", m{"AlarmName": "evs-dev-deliveries-dlq-messages", "Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible", "Statistic": "Maximum", "Dimensions": onQueue("DeliveriesDeadLetterQueue")}, 1},
		{"DeliveriesQueueOldestMessageAge", m{"AlarmName": "evs-dev-deliveries-oldest-message-age", "Namespace": "AWS/SQS", "MetricName": "ApproximateAgeOfOldestMessage", "Statistic": "Maximum", "Dimensions": onQueue("DeliveriesQueue")}, stack.QueueOldestMessageAgeSeconds},
		{"WebhookDeliveriesFailed", m{"AlarmName": "evs-dev-webhook-deliveries-failed", "Namespace": "EVS", "MetricName": "WebhookDeliveriesFailed", "Statistic": "Sum", "Dimensions": absent()}, 1},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			hasProps(t, tmpl, c.id, "AWS::CloudWatch::Alarm", with(c.props, m{"ExtendedStatistic": absent()}, onePeriod(c.threshold), notifies(topic)))
		})
	}
}

// The dashboard shows the API (count, 4XX, 5XX, latency) and every function
// (invocations, errors, duration).
func TestDashboard(t *testing.T) {
	tmpl := dev(t).Template
	id := onlyID(t, tmpl, "AWS::CloudWatch::Dashboard")
	hasProps(t, tmpl, id, "AWS::CloudWatch::Dashboard", m{"DashboardName": "evs-dev"})
	body := ref(find(t, tmpl, "AWS::CloudWatch::Dashboard", nil)[id]["Properties"].(m)["DashboardBody"])
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
		`["AWS/Lambda","IteratorAge","FunctionName","ref:AuditExportFunction",{"label":"audit-export","stat":"Maximum"}]`,
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
	countIs(t, dev(t).Template, "AWS::SNS::Subscription", 0)
	tmpl := prod(t).Template
	countIs(t, tmpl, "AWS::SNS::Subscription", 1)
	if subs := find(t, tmpl, "AWS::SNS::Subscription", m{"Protocol": "email", "Endpoint": prod(t).Props.AlarmEmail, "TopicArn": refOf(alarmTopic(t, tmpl))}); len(subs) != 1 {
		t.Error("the subscription is not the alarm e-mail's to the alarm topic")
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
		tmpl := s.Template
		namespace := stack.StackName(s.Props.Stage)
		topic := alarmTopic(t, tmpl)
		var filtered, flagged []string
		for _, mf := range find(t, tmpl, "AWS::Logs::MetricFilter", nil) {
			filtered = append(filtered, strings.TrimPrefix(ref(mf["Properties"].(m)["LogGroupName"]), "ref:"))
		}
		for _, f := range deploy.Functions() {
			if !f.RefusesWithErrors {
				continue
			}
			flagged = append(flagged, f.LogicalID+"LogGroup", f.LogicalID+"LogGroup")
			metric := stack.FaultsMetric(f)
			t.Run(f.Name, func(t *testing.T) {
				want := []string{`{ $.level = "ERROR" }`, `"Task timed out"`}
				if got := filterPatterns(t, tmpl, f.LogicalID+"LogGroup", namespace, metric); !equal(got, want) {
					t.Errorf("filters on its log group: %s", diff(got, want))
				}
				onErrors := find(t, tmpl, "AWS::CloudWatch::Alarm", m{"MetricName": "Errors", "Dimensions": arrayWith(like(m{"Name": "FunctionName", "Value": refOf(f.LogicalID)}))})
				for id := range onErrors {
					t.Errorf("alarm %s is on its Errors, which count refusals", id)
				}
				alarms := find(t, tmpl, "AWS::CloudWatch::Alarm", m{"MetricName": metric})
				if len(alarms) != 1 {
					t.Errorf("alarms on %s: %v, want 1", metric, keys(alarms))
				}
				for id := range alarms {
					hasProps(t, tmpl, id, "AWS::CloudWatch::Alarm", with(m{
						"AlarmName": namespace + "-" + f.Name + "-faults", "Namespace": namespace, "Statistic": "Sum", "Dimensions": absent(),
					}, onePeriod(1), notifies(topic)))
				}
			})
		}
		if !equal(filtered, flagged) {
			t.Errorf("metric filters on the log groups %s", diff(filtered, flagged))
		}
	})
}

// filterPatterns are the patterns of the metric filters on a log group,
// each of which must publish 1 to the metric in the namespace.
func filterPatterns(t *testing.T, tmpl assertions.Template, logGroup, namespace, metric string) []string {
	t.Helper()
	var out []string
	for id, mf := range find(t, tmpl, "AWS::Logs::MetricFilter", m{"LogGroupName": refOf(logGroup)}) {
		p := mf["Properties"].(m)
		matches(t, "metric filter "+id, p, like(m{"MetricTransformations": arrayOf(like(m{"MetricNamespace": namespace, "MetricName": metric, "MetricValue": "1"}))}))
		out = append(out, p["FilterPattern"].(string))
	}
	return out
}

// The decision function's faults metric counts its ERROR lines and its
// timeouts, never the INFO lines of refused actions.
func TestDecisionFaultsMetric(t *testing.T) {
	patterns := filterPatterns(t, dev(t).Template, "DecisionFunctionLogGroup", "evs-dev", stack.DecisionFaultsMetric)
	if want := []string{`{ $.level = "ERROR" }`, `"Task timed out"`}; !equal(patterns, want) {
		t.Errorf("filter patterns: %s", diff(patterns, want))
	}
}

// alarmTopic is the one SNS topic besides the approvals topic.
func alarmTopic(t *testing.T, tmpl assertions.Template) string {
	t.Helper()
	var ids []string
	for id := range find(t, tmpl, "AWS::SNS::Topic", nil) {
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
		if s.Replica != nil {
			for _, m := range s.Replica.Messages {
				t.Error("replica: " + m)
			}
		}
	})
}

// The app reads its props from the CDK context only.
func TestPropsFromContext(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{
		"stage": "prod", "alarmEmail": "ops@example.com", "YenteThreshold": "0.8", "WathqBaseUrl": "https://wathq.example",
		"apiThrottleRate": "10", "apiThrottleBurst": 20, "RecordsReplicaRegion": "eu-central-1",
	}})
	p := stack.PropsFromContext(app.Node())
	if p.Stage != "prod" || p.AlarmEmail != "ops@example.com" || p.ThrottleRate != 10 || p.ThrottleBurst != 20 || p.RecordsReplicaRegion != "eu-central-1" {
		t.Errorf("props = %+v", p)
	}
	if len(p.Settings) != 2 || p.Settings["YenteThreshold"] != "0.8" || p.Settings["WathqBaseUrl"] != "https://wathq.example" {
		t.Errorf("settings = %v", p.Settings)
	}

	p = stack.PropsFromContext(awscdk.NewApp(nil).Node())
	if p.Stage != stack.DefaultStage || p.AlarmEmail != "" || len(p.Settings) != 0 || p.ThrottleRate != 0 || p.Ephemeral {
		t.Errorf("props without context = %+v", p)
	}
}

// Retention is a setting, not a name: every stage is retained unless the
// context says retain=false; anything else is refused.
func TestRetainFromContext(t *testing.T) {
	for _, tc := range []struct {
		ctx       map[string]any
		ephemeral bool
	}{
		{map[string]any{"stage": "production"}, false},
		{map[string]any{"stage": "sa-live"}, false},
		{map[string]any{"stage": "dev"}, false},
		{map[string]any{"stage": "dev", "retain": "true"}, false},
		{map[string]any{"stage": "pr-42", "retain": "false"}, true},
	} {
		if p := stack.PropsFromContext(awscdk.NewApp(&awscdk.AppProps{Context: &tc.ctx}).Node()); p.Ephemeral != tc.ephemeral {
			t.Errorf("%v: ephemeral %v, want %v", tc.ctx, p.Ephemeral, tc.ephemeral)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("retain=maybe was not refused")
		}
	}()
	stack.PropsFromContext(awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"retain": "maybe"}}).Node())
}
