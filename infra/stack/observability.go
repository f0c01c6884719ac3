package stack

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
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
	prefix := StackName(props.Stage)
	period := awscdk.Duration_Minutes(jsii.Number(5))
	o := &Observability{Construct: constructs.NewConstruct(scope, id)}

	o.Topic = awssns.NewTopic(o.Construct, jsii.String("AlarmTopic"), &awssns.TopicProps{
		DisplayName: jsii.String(AlarmTopicDisplayName(props.Stage)),
	})
	if props.AlarmEmail != "" {
		o.Topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(props.AlarmEmail), nil))
	}
	action := awscloudwatchactions.NewSnsAction(o.Topic)

	alarm := func(id, name, description string, metric awscloudwatch.IMetric, threshold float64, periods float64, op awscloudwatch.ComparisonOperator) awscloudwatch.Alarm {
		a := awscloudwatch.NewAlarm(o.Construct, jsii.String(id), &awscloudwatch.AlarmProps{
			AlarmName:          jsii.String(prefix + "-" + name),
			AlarmDescription:   jsii.String(description),
			Metric:             metric,
			Threshold:          jsii.Number(threshold),
			EvaluationPeriods:  jsii.Number(periods),
			ComparisonOperator: op,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		})
		a.AddAlarmAction(action)
		a.AddOkAction(action)
		o.Alarms = append(o.Alarms, a)
		return a
	}
	// The pipeline's alarms have fixed logical ids, template.yaml's.
	pipelineAlarm := func(pa PipelineAlarm, metric awscloudwatch.IMetric, threshold float64, op awscloudwatch.ComparisonOperator) {
		overrideID(alarm(pa.LogicalID, pa.Name, pa.Description, metric, threshold, 1, op), pa.LogicalID)
	}

	names := make([]string, 0, len(props.Functions))
	for name := range props.Functions {
		names = append(names, name)
	}
	sort.Strings(names)
	sum := func() *awscloudwatch.MetricOptions {
		return &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Sum")}
	}
	atLeast := awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD
	for _, name := range names {
		f := props.Functions[name]
		id := f.Spec.LogicalID
		if f.Spec.RefusesWithErrors {
			alarm(id+"Faults", name+"-faults", "Function "+name+" failed, not counting refused actions (≥ 1 in 5 minutes)",
				faults(o.Construct, prefix, f).Metric(sum()), 1, 1, atLeast)
		} else {
			alarm(id+"Errors", name+"-errors", "Function "+name+" failed (Errors ≥ 1 in 5 minutes)",
				f.Function.MetricErrors(sum()), 1, 1, atLeast)
		}
		alarm(id+"Throttles", name+"-throttles", "Function "+name+" was throttled (Throttles ≥ 1 in 5 minutes)",
			f.Function.MetricThrottles(sum()), 1, 1, atLeast)
	}
	if w := props.Workflow; w != nil {
		// Not ExecutionsFailed: a refused decision fails its execution by
		// design. Faults are DecisionFaultsMetric; an execution that is never
		// started is this.
		alarm("DecisionExecutionsThrottled", "decision-executions-throttled", "Decision executions were throttled (≥ 1 in 5 minutes)",
			w.StateMachine.Metric(jsii.String("ExecutionThrottled"), sum()), 1, 1, atLeast)
	}
	maximum := func() *awscloudwatch.MetricOptions {
		return &awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("Maximum")}
	}
	var queueDepth, queueAge, iteratorAge []awscloudwatch.IMetric
	var pipelineRows []*[]awscloudwatch.IWidget
	if props.Queues != nil {
		queue := func(q deploy.Queue) awssqs.Queue {
			made, ok := props.Queues.Queues[q.ID]
			if !ok {
				panic("infra: observability: no queue " + q.ID)
			}
			return made
		}
		for _, q := range FailureQueues() {
			pipelineAlarm(QueueMessagesAlarm(q), queue(q).MetricApproximateNumberOfMessagesVisible(maximum()), 1, atLeast)
		}
		for _, q := range ConsumedQueues() {
			pipelineAlarm(QueueAgeAlarm(q), queue(q).MetricApproximateAgeOfOldestMessage(maximum()), QueueOldestMessageAgeSeconds, atLeast)
		}
		if _, ok := props.Functions[WebhookDeliveryFunction]; ok {
			pipelineAlarm(WebhookDeliveriesFailedAlarm(), deliveryMetric(emf.DeliveriesFailed, "Sum", period), 1, atLeast)
		}

		for _, q := range deploy.Queues() {
			queueDepth = append(queueDepth, labelledMetric(queue(q).MetricApproximateNumberOfMessagesVisible(maximum()), q.ID+" visible"))
			queueAge = append(queueAge, labelledMetric(queue(q).MetricApproximateAgeOfOldestMessage(maximum()), q.ID))
		}
		for _, q := range ConsumedQueues() {
			queueDepth = append(queueDepth, labelledMetric(queue(q).MetricApproximateNumberOfMessagesNotVisible(maximum()), q.ID+" in flight"))
		}
		for _, name := range names {
			if f := props.Functions[name]; len(f.Spec.Streams) > 0 {
				iteratorAge = append(iteratorAge, labelledMetric(f.Function.Metric(jsii.String("IteratorAge"), maximum()), name))
			}
		}
	}

	stage := props.Api.Stage
	alarm("Api5xx", "api-5xx", "The API answered 5XX (≥ 5 in 5 minutes)",
		stage.MetricServerError(sum()), API5xxThreshold, 1, atLeast)
	alarm("ApiLatencyP99", "api-latency-p99", "The API's p99 latency was over 10 s for 15 minutes",
		stage.MetricLatency(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p99")}),
		APILatencyP99Millis, APILatencyPeriods, awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD)

	graph := func(title string, metrics ...awscloudwatch.IMetric) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(title), Left: &metrics, Width: jsii.Number(12), Height: jsii.Number(6),
		})
	}
	labelled := labelledMetric
	var invocations, errors, durations []awscloudwatch.IMetric
	for _, name := range names {
		fn := props.Functions[name].Function
		invocations = append(invocations, labelled(fn.MetricInvocations(sum()), name))
		errors = append(errors, labelled(fn.MetricErrors(sum()), name))
		durations = append(durations, labelled(fn.MetricDuration(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p99")}), name+" p99"))
	}
	if props.Queues != nil {
		pipelineRows = append(pipelineRows,
			&[]awscloudwatch.IWidget{
				graph("Webhook deliveries",
					labelled(deliveryMetric(emf.DeliveriesDelivered, "Sum", period), "delivered"),
					labelled(deliveryMetric(emf.DeliveriesFailed, "Sum", period), "failed")),
				graph("Webhook delivery duration",
					labelled(deliveryMetric(emf.DeliveryDuration, "p50", period), "p50"),
					labelled(deliveryMetric(emf.DeliveryDuration, "p95", period), "p95")),
			},
			&[]awscloudwatch.IWidget{
				graph("Queue depth", queueDepth...),
				graph("Queue oldest message age (seconds)", queueAge...),
			},
		)
		if len(iteratorAge) > 0 {
			pipelineRows = append(pipelineRows, &[]awscloudwatch.IWidget{graph("Stream iterator age (ms)", iteratorAge...)})
		}
	}
	alarms := make([]interfacesawscloudwatch.IAlarmRef, len(o.Alarms))
	for i, a := range o.Alarms {
		alarms[i] = a
	}
	rows := []*[]awscloudwatch.IWidget{
		&[]awscloudwatch.IWidget{
			graph("API requests", labelled(stage.MetricCount(sum()), "requests")),
			graph("API 4XX", labelled(stage.MetricClientError(sum()), "4XX")),
		},
		&[]awscloudwatch.IWidget{
			graph("API 5XX", labelled(stage.MetricServerError(sum()), "5XX")),
			graph("API latency",
				labelled(stage.MetricLatency(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p50")}), "p50"),
				labelled(stage.MetricLatency(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p99")}), "p99")),
		},
		&[]awscloudwatch.IWidget{
			graph("Function invocations", invocations...),
			graph("Function errors", errors...),
		},
		&[]awscloudwatch.IWidget{
			graph("Function duration (p99)", durations...),
			awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
				Title: jsii.String("Alarms"), Alarms: &alarms, Width: jsii.Number(12), Height: jsii.Number(6),
			}),
		},
	}
	rows = append(rows, pipelineRows...)
	o.Dashboard = awscloudwatch.NewDashboard(o.Construct, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(prefix),
		Widgets:       &rows,
	})
	return o
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
