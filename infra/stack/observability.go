package stack

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
	emf "github.com/evs-kyb/evs/shared/metrics"
)

// Alarm thresholds, over five-minute periods.
const (
	// API5xxThreshold: this many 5XX answers in five minutes.
	API5xxThreshold = 5
	// APILatencyP99Millis: p99 latency above this for APILatencyPeriods
	// periods in a row (creates wait for providers up to 8 s).
	APILatencyP99Millis = 10000
	APILatencyPeriods   = 3
	// QueueOldestMessageAgeSeconds: the oldest message of a queue a
	// function consumes has waited this long. Messages are normally taken
	// within seconds; one whose batch failed waits the visibility timeout
	// (six times the consumer's timeout, 6 minutes for the deliveries) before
	// its next receive, so 15 minutes means repeated failures or a consumer
	// that does not keep up.
	QueueOldestMessageAgeSeconds = 900
)

// WebhookDeliveryFunction is the function of shared/deploy that writes the
// emf.DeliveriesDelivered, emf.DeliveriesFailed and emf.DeliveryDuration
// metrics.
const WebhookDeliveryFunction = "webhook-delivery"

// PipelineAlarm names an alarm of the review-events → deliveries →
// webhook-delivery pipeline: its logical id (the same in template.yaml) and
// its name after "evs-<stage>-".
type PipelineAlarm struct {
	LogicalID   string
	Name        string
	Description string
}

// WebhookDeliveriesFailedAlarm is the pipeline's alarm whose id does not
// follow from a queue's.
func WebhookDeliveriesFailedAlarm() PipelineAlarm {
	return PipelineAlarm{LogicalID: "WebhookDeliveriesFailed", Name: "webhook-deliveries-failed",
		Description: "Webhook deliveries failed: a subscriber answered other than 2xx or could not be reached (≥ 1 in 5 minutes)"}
}

// QueueMessagesAlarm is the alarm on any message in a queue that holds
// failures (a dead-letter queue, a stream's on-failure queue).
func QueueMessagesAlarm(q deploy.Queue) PipelineAlarm {
	return PipelineAlarm{LogicalID: q.LogicalID + "Messages", Name: dashed(q.ID) + "-messages",
		Description: "Messages wait in the failure queue " + q.ID + " (≥ 1): see the README on inspecting and redriving it"}
}

// QueueAgeAlarm is the alarm on the age of the oldest message of a queue a
// function consumes.
func QueueAgeAlarm(q deploy.Queue) PipelineAlarm {
	return PipelineAlarm{LogicalID: q.LogicalID + "OldestMessageAge", Name: dashed(q.ID) + "-oldest-message-age",
		Description: fmt.Sprintf("The oldest message of queue %s has waited %d minutes or more", q.ID, QueueOldestMessageAgeSeconds/60)}
}

// AlarmTopicDisplayName is the alarm topic's display name in a stage.
func AlarmTopicDisplayName(stage string) string { return "EVS " + stage + " alarms" }

func dashed(id string) string { return strings.ReplaceAll(id, "_", "-") }

// FailureQueues are the queues that hold only failures, in catalogue
// order: every queue that is another's dead-letter queue and every
// stream's on-failure queue.
func FailureQueues() []deploy.Queue {
	failure := map[string]bool{}
	for _, q := range deploy.Queues() {
		if q.DeadLetter != "" {
			failure[q.DeadLetter] = true
		}
	}
	for _, f := range deploy.Functions() {
		for _, id := range OnFailureQueues(f) {
			failure[id] = true
		}
	}
	var out []deploy.Queue
	for _, q := range deploy.Queues() {
		if failure[q.ID] {
			out = append(out, q)
		}
	}
	return out
}

// ConsumedQueues are the queues some function consumes, in catalogue order.
func ConsumedQueues() []deploy.Queue {
	consumed := map[string]bool{}
	for _, f := range deploy.Functions() {
		if f.Queue != nil {
			consumed[f.Queue.Queue] = true
		}
	}
	var out []deploy.Queue
	for _, q := range deploy.Queues() {
		if consumed[q.ID] {
			out = append(out, q)
		}
	}
	return out
}

// ObservabilityProps configures alarms and the dashboard.
type ObservabilityProps struct {
	Stage     string
	Functions map[string]*Function
	Api       *Api
	// Workflow, when set, adds the decision workflow's alarms.
	Workflow *DecisionWorkflow
	// Queues, when set, adds the delivery pipeline's alarms and widgets.
	Queues *Queues
	// AlarmEmail, when set, is subscribed to the alarm topic.
	AlarmEmail string
}

// Observability holds the alarm topic, the alarms and the dashboard.
type Observability struct {
	constructs.Construct
	Topic     awssns.Topic
	Alarms    []awscloudwatch.Alarm
	Dashboard awscloudwatch.Dashboard
}

// DecisionFaultsMetric is the decision function's FaultsMetric. Its Lambda
// Errors also count every refused action (IllegalTransition, Conflict, …),
// which the function returns as errors by design, so they are not alarmed
// on.
const DecisionFaultsMetric = "DecisionFaults"

// FaultsMetric names the metric (namespace evs-<stage>) that counts the
// faults of a function whose Lambda errors include refusals
// (deploy.Function.RefusesWithErrors): its ERROR log lines and its
// timeouts. It is the function's name in camel case followed by "Faults":
// "DecisionFaults" for decision, "AdminFaults" for admin.
func FaultsMetric(f deploy.Function) string {
	var b strings.Builder
	for _, word := range strings.Split(f.Name, "-") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String() + "Faults"
}

// NewObservability creates an SNS topic every alarm notifies (in alarm and
// back to OK), with an e-mail subscription when AlarmEmail is set; alarms on
// each function's Errors (its FaultsMetric instead when its Lambda errors
// include refusals, deploy.Function.RefusesWithErrors: decision, admin) and
// Throttles, on the API stage's 5XXError and p99 Latency and,
// with a Workflow, on the state machine's throttled executions; with
// Queues, the delivery pipeline's: any message in a failure queue
// (FailureQueues), the oldest message of a consumed queue
// (QueueOldestMessageAgeSeconds) and any failed webhook delivery
// (emf.DeliveriesFailed); and a dashboard with the API's requests, 4XX, 5XX
// and latency, the functions' invocations, errors and duration and, with
// Queues, the deliveries delivered and failed, the delivery duration, the
// queues' depth and oldest message, and the streams' iterator age.
func NewObservability(scope constructs.Construct, id *string, props *ObservabilityProps) *Observability {
	if props == nil || props.Api == nil || props.Stage == "" {
		panic("infra: ObservabilityProps needs Stage and Api")
	}
	o := &Observability{Construct: constructs.NewConstruct(scope, id)}
	o.Topic = newAlarmTopic(o.Construct, props)
	a := &alarmMaker{
		o:      o,
		prefix: StackName(props.Stage),
		period: awscdk.Duration_Minutes(jsii.Number(5)),
		action: awscloudwatchactions.NewSnsAction(o.Topic),
	}
	names := sortedFunctionNames(props.Functions)
	a.functionAlarms(props.Functions, names)
	if w := props.Workflow; w != nil {
		a.workflowAlarm(w)
	}
	if props.Queues != nil {
		a.pipelineAlarms(props)
	}
	a.apiAlarms(props.Api.Stage)
	o.Dashboard = a.dashboard(props, names)
	return o
}

// newAlarmTopic is the topic every alarm notifies, with AlarmEmail
// subscribed when it is set.
func newAlarmTopic(scope constructs.Construct, props *ObservabilityProps) awssns.Topic {
	topic := awssns.NewTopic(scope, jsii.String("AlarmTopic"), &awssns.TopicProps{
		DisplayName: jsii.String(AlarmTopicDisplayName(props.Stage)),
		// A policy denying every request not made over TLS.
		EnforceSSL: jsii.Bool(true),
	})
	if props.AlarmEmail != "" {
		topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(props.AlarmEmail), nil))
	}
	return topic
}

// sortedFunctionNames are the functions' names in order, so alarms and
// widgets come out the same on every synthesis.
func sortedFunctionNames(functions map[string]*Function) []string {
	names := make([]string, 0, len(functions))
	for name := range functions {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// alarmMaker makes the alarms (and then the dashboard) of one
// Observability: every alarm is named <prefix>-<name>, notifies action in
// alarm and back to OK, and is kept in o.Alarms for the dashboard.
type alarmMaker struct {
	o      *Observability
	prefix string
	period awscdk.Duration
	action awscloudwatchactions.SnsAction
}

const atLeast = awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD

func (a *alarmMaker) stat(statistic string) *awscloudwatch.MetricOptions {
	return &awscloudwatch.MetricOptions{Period: a.period, Statistic: jsii.String(statistic)}
}

func (a *alarmMaker) sum() *awscloudwatch.MetricOptions     { return a.stat("Sum") }
func (a *alarmMaker) maximum() *awscloudwatch.MetricOptions { return a.stat("Maximum") }

func (a *alarmMaker) alarm(id, name, description string, metric awscloudwatch.IMetric, threshold float64, periods float64, op awscloudwatch.ComparisonOperator) awscloudwatch.Alarm {
	alarm := awscloudwatch.NewAlarm(a.o.Construct, jsii.String(id), &awscloudwatch.AlarmProps{
		AlarmName:          jsii.String(a.prefix + "-" + name),
		AlarmDescription:   jsii.String(description),
		Metric:             metric,
		Threshold:          jsii.Number(threshold),
		EvaluationPeriods:  jsii.Number(periods),
		ComparisonOperator: op,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	alarm.AddAlarmAction(a.action)
	alarm.AddOkAction(a.action)
	a.o.Alarms = append(a.o.Alarms, alarm)
	return alarm
}

// pipelineAlarm: the pipeline's alarms have fixed logical ids,
// template.yaml's.
func (a *alarmMaker) pipelineAlarm(pa PipelineAlarm, metric awscloudwatch.IMetric, threshold float64) {
	overrideID(a.alarm(pa.LogicalID, pa.Name, pa.Description, metric, threshold, 1, atLeast), pa.LogicalID)
}

// functionAlarms alarm on each function's Errors (its FaultsMetric when its
// Lambda errors include refusals) and Throttles.
func (a *alarmMaker) functionAlarms(functions map[string]*Function, names []string) {
	for _, name := range names {
		f := functions[name]
		id := f.Spec.LogicalID
		if f.Spec.RefusesWithErrors {
			a.alarm(id+"Faults", name+"-faults", "Function "+name+" failed, not counting refused actions (≥ 1 in 5 minutes)",
				faults(a.o.Construct, a.prefix, f).Metric(a.sum()), 1, 1, atLeast)
		} else {
			a.alarm(id+"Errors", name+"-errors", "Function "+name+" failed (Errors ≥ 1 in 5 minutes)",
				f.Function.MetricErrors(a.sum()), 1, 1, atLeast)
		}
		a.alarm(id+"Throttles", name+"-throttles", "Function "+name+" was throttled (Throttles ≥ 1 in 5 minutes)",
			f.Function.MetricThrottles(a.sum()), 1, 1, atLeast)
	}
}

func (a *alarmMaker) workflowAlarm(w *DecisionWorkflow) {
	// Not ExecutionsFailed: a refused decision fails its execution by
	// design. Faults are DecisionFaultsMetric; an execution that is never
	// started is this.
	a.alarm("DecisionExecutionsThrottled", "decision-executions-throttled", "Decision executions were throttled (≥ 1 in 5 minutes)",
		w.StateMachine.Metric(jsii.String("ExecutionThrottled"), a.sum()), 1, 1, atLeast)
}

// pipelineQueue is the made queue of q; props.Queues must be set.
func pipelineQueue(props *ObservabilityProps, q deploy.Queue) awssqs.Queue {
	made, ok := props.Queues.Queues[q.ID]
	if !ok {
		panic("infra: observability: no queue " + q.ID)
	}
	return made
}

// pipelineAlarms alarm on any message in a failure queue, the oldest
// message of a consumed queue and any failed webhook delivery.
func (a *alarmMaker) pipelineAlarms(props *ObservabilityProps) {
	for _, q := range FailureQueues() {
		a.pipelineAlarm(QueueMessagesAlarm(q), pipelineQueue(props, q).MetricApproximateNumberOfMessagesVisible(a.maximum()), 1)
	}
	for _, q := range ConsumedQueues() {
		a.pipelineAlarm(QueueAgeAlarm(q), pipelineQueue(props, q).MetricApproximateAgeOfOldestMessage(a.maximum()), QueueOldestMessageAgeSeconds)
	}
	if _, ok := props.Functions[WebhookDeliveryFunction]; ok {
		a.pipelineAlarm(WebhookDeliveriesFailedAlarm(), deliveryMetric(emf.DeliveriesFailed, "Sum", a.period), 1)
	}
}

func (a *alarmMaker) apiAlarms(stage awsapigateway.Stage) {
	a.alarm("Api5xx", "api-5xx", "The API answered 5XX (≥ 5 in 5 minutes)",
		stage.MetricServerError(a.sum()), API5xxThreshold, 1, atLeast)
	a.alarm("ApiLatencyP99", "api-latency-p99", "The API's p99 latency was over 10 s for 15 minutes",
		stage.MetricLatency(a.stat("p99")),
		APILatencyP99Millis, APILatencyPeriods, awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD)
}

func graph(title string, metrics ...awscloudwatch.IMetric) awscloudwatch.IWidget {
	return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
		Title: jsii.String(title), Left: &metrics, Width: jsii.Number(12), Height: jsii.Number(6),
	})
}

// dashboard is made last: its alarm status widget shows every alarm.
func (a *alarmMaker) dashboard(props *ObservabilityProps, names []string) awscloudwatch.Dashboard {
	rows := append(a.serviceRows(props, names), a.pipelineRows(props, names)...)
	return awscloudwatch.NewDashboard(a.o.Construct, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(a.prefix),
		Widgets:       &rows,
	})
}

// serviceRows: the API's requests, 4XX, 5XX and latency, the functions'
// invocations, errors and duration, and the alarms.
func (a *alarmMaker) serviceRows(props *ObservabilityProps, names []string) []*[]awscloudwatch.IWidget {
	var invocations, errors, durations []awscloudwatch.IMetric
	for _, name := range names {
		fn := props.Functions[name].Function
		invocations = append(invocations, labelledMetric(fn.MetricInvocations(a.sum()), name))
		errors = append(errors, labelledMetric(fn.MetricErrors(a.sum()), name))
		durations = append(durations, labelledMetric(fn.MetricDuration(a.stat("p99")), name+" p99"))
	}
	alarms := make([]interfacesawscloudwatch.IAlarmRef, len(a.o.Alarms))
	for i, alarm := range a.o.Alarms {
		alarms[i] = alarm
	}
	stage := props.Api.Stage
	return []*[]awscloudwatch.IWidget{
		{
			graph("API requests", labelledMetric(stage.MetricCount(a.sum()), "requests")),
			graph("API 4XX", labelledMetric(stage.MetricClientError(a.sum()), "4XX")),
		},
		{
			graph("API 5XX", labelledMetric(stage.MetricServerError(a.sum()), "5XX")),
			graph("API latency",
				labelledMetric(stage.MetricLatency(a.stat("p50")), "p50"),
				labelledMetric(stage.MetricLatency(a.stat("p99")), "p99")),
		},
		{
			graph("Function invocations", invocations...),
			graph("Function errors", errors...),
		},
		{
			graph("Function duration (p99)", durations...),
			awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
				Title: jsii.String("Alarms"), Alarms: &alarms, Width: jsii.Number(12), Height: jsii.Number(6),
			}),
		},
	}
}

// pipelineRows, with Queues: the deliveries delivered and failed, the
// delivery duration, the queues' depth and oldest message, and the
// streams' iterator age.
func (a *alarmMaker) pipelineRows(props *ObservabilityProps, names []string) []*[]awscloudwatch.IWidget {
	if props.Queues == nil {
		return nil
	}
	var queueDepth, queueAge, iteratorAge []awscloudwatch.IMetric
	for _, q := range deploy.Queues() {
		queue := pipelineQueue(props, q)
		queueDepth = append(queueDepth, labelledMetric(queue.MetricApproximateNumberOfMessagesVisible(a.maximum()), q.ID+" visible"))
		queueAge = append(queueAge, labelledMetric(queue.MetricApproximateAgeOfOldestMessage(a.maximum()), q.ID))
	}
	for _, q := range ConsumedQueues() {
		queueDepth = append(queueDepth, labelledMetric(pipelineQueue(props, q).MetricApproximateNumberOfMessagesNotVisible(a.maximum()), q.ID+" in flight"))
	}
	for _, name := range names {
		if f := props.Functions[name]; len(f.Spec.Streams) > 0 {
			iteratorAge = append(iteratorAge, labelledMetric(f.Function.Metric(jsii.String("IteratorAge"), a.maximum()), name))
		}
	}
	rows := []*[]awscloudwatch.IWidget{
		{
			graph("Webhook deliveries",
				labelledMetric(deliveryMetric(emf.DeliveriesDelivered, "Sum", a.period), "delivered"),
				labelledMetric(deliveryMetric(emf.DeliveriesFailed, "Sum", a.period), "failed")),
			graph("Webhook delivery duration",
				labelledMetric(deliveryMetric(emf.DeliveryDuration, "p50", a.period), "p50"),
				labelledMetric(deliveryMetric(emf.DeliveryDuration, "p95", a.period), "p95")),
		},
		{
			graph("Queue depth", queueDepth...),
			graph("Queue oldest message age (seconds)", queueAge...),
		},
	}
	if len(iteratorAge) > 0 {
		rows = append(rows, &[]awscloudwatch.IWidget{graph("Stream iterator age (ms)", iteratorAge...)})
	}
	return rows
}

func labelledMetric(m awscloudwatch.Metric, label string) awscloudwatch.IMetric {
	return m.With(&awscloudwatch.MetricOptions{Label: jsii.String(label)})
}

// deliveryMetric is one of webhook-delivery's metrics (namespace
// emf.Namespace, no dimensions: the function writes them so).
func deliveryMetric(name, statistic string, period awscdk.Duration) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:  jsii.String(emf.Namespace),
		MetricName: jsii.String(name),
		Statistic:  jsii.String(statistic),
		Period:     period,
	})
}

// faults publishes the function's FaultsMetric from its log group: lines
// the handler logs at ERROR (every fault it returns; refusals are INFO) and
// the runtime's timeout line: one filter each, construct ids
// <LogicalID>Faults1 and <LogicalID>Faults2.
func faults(scope constructs.Construct, namespace string, f *Function) awslogs.MetricFilter {
	var first awslogs.MetricFilter
	for i, pattern := range []awslogs.IFilterPattern{
		awslogs.FilterPattern_StringValue(jsii.String("$.level"), jsii.String("="), jsii.String("ERROR")),
		awslogs.FilterPattern_AllTerms(jsii.String("Task timed out")),
	} {
		mf := awslogs.NewMetricFilter(scope, jsii.String(fmt.Sprintf("%sFaults%d", f.Spec.LogicalID, i+1)), &awslogs.MetricFilterProps{
			LogGroup:        f.LogGroup,
			FilterPattern:   pattern,
			MetricNamespace: jsii.String(namespace),
			MetricName:      jsii.String(FaultsMetric(f.Spec)),
			MetricValue:     jsii.String("1"),
		})
		if first == nil {
			first = mf
		}
	}
	return first
}
