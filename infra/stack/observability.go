package stack

import (
	"fmt"
	"sort"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Alarm thresholds, over five-minute periods.
const (
	// API5xxThreshold: this many 5XX answers in five minutes.
	API5xxThreshold = 5
	// APILatencyP99Millis: p99 latency above this for APILatencyPeriods
	// periods in a row (creates wait for providers up to 8 s).
	APILatencyP99Millis = 10000
	APILatencyPeriods   = 3
)

// ObservabilityProps configures alarms and the dashboard.
type ObservabilityProps struct {
	Stage     string
	Functions map[string]*Function
	Api       *Api
	// Workflow, when set, adds the decision workflow's alarms.
	Workflow *DecisionWorkflow
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

// DecisionFaultsMetric counts the decision function's faults (namespace
// evs-<stage>): its ERROR log lines and its timeouts. Its Lambda Errors
// also count every refused action (IllegalTransition, Conflict, …), which
// the function returns as errors by design, so they are not alarmed on.
const DecisionFaultsMetric = "DecisionFaults"

// NewObservability creates an SNS topic every alarm notifies (in alarm and
// back to OK), with an e-mail subscription when AlarmEmail is set; alarms on
// each function's Errors (the decision function's DecisionFaultsMetric
// instead) and Throttles, on the API stage's 5XXError and p99 Latency and,
// with a Workflow, on the state machine's throttled executions; and a
// dashboard with the API's requests, 4XX, 5XX and latency and the
// functions' invocations, errors and duration.
func NewObservability(scope constructs.Construct, id *string, props *ObservabilityProps) *Observability {
	if props == nil || props.Api == nil || props.Stage == "" {
		panic("infra: ObservabilityProps needs Stage and Api")
	}
	prefix := StackName(props.Stage)
	period := awscdk.Duration_Minutes(jsii.Number(5))
	o := &Observability{Construct: constructs.NewConstruct(scope, id)}

	o.Topic = awssns.NewTopic(o.Construct, jsii.String("AlarmTopic"), &awssns.TopicProps{
		DisplayName: jsii.String("EVS " + props.Stage + " alarms"),
	})
	if props.AlarmEmail != "" {
		o.Topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(props.AlarmEmail), nil))
	}
	action := awscloudwatchactions.NewSnsAction(o.Topic)

	alarm := func(id, name, description string, metric awscloudwatch.IMetric, threshold float64, periods float64, op awscloudwatch.ComparisonOperator) {
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
		if name == DecisionFunction {
			alarm(id+"Faults", name+"-faults", "Function "+name+" failed, not counting refused actions (≥ 1 in 5 minutes)",
				decisionFaults(o.Construct, prefix, f).Metric(sum()), 1, 1, atLeast)
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
	labelled := func(m awscloudwatch.Metric, label string) awscloudwatch.IMetric {
		return m.With(&awscloudwatch.MetricOptions{Label: jsii.String(label)})
	}
	var invocations, errors, durations []awscloudwatch.IMetric
	for _, name := range names {
		fn := props.Functions[name].Function
		invocations = append(invocations, labelled(fn.MetricInvocations(sum()), name))
		errors = append(errors, labelled(fn.MetricErrors(sum()), name))
		durations = append(durations, labelled(fn.MetricDuration(&awscloudwatch.MetricOptions{Period: period, Statistic: jsii.String("p99")}), name+" p99"))
	}
	alarms := make([]interfacesawscloudwatch.IAlarmRef, len(o.Alarms))
	for i, a := range o.Alarms {
		alarms[i] = a
	}
	o.Dashboard = awscloudwatch.NewDashboard(o.Construct, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(prefix),
		Widgets: &[]*[]awscloudwatch.IWidget{
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
		},
	})
	return o
}

// decisionFaults publishes DecisionFaultsMetric from the function's log
// group: lines the handler logs at ERROR (every fault it returns; refusals
// are INFO) and the runtime's timeout line.
func decisionFaults(scope constructs.Construct, namespace string, f *Function) awslogs.MetricFilter {
	var first awslogs.MetricFilter
	for i, pattern := range []awslogs.IFilterPattern{
		awslogs.FilterPattern_StringValue(jsii.String("$.level"), jsii.String("="), jsii.String("ERROR")),
		awslogs.FilterPattern_AllTerms(jsii.String("Task timed out")),
	} {
		mf := awslogs.NewMetricFilter(scope, jsii.String(fmt.Sprintf("%sFaults%d", f.Spec.LogicalID, i+1)), &awslogs.MetricFilterProps{
			LogGroup:        f.LogGroup,
			FilterPattern:   pattern,
			MetricNamespace: jsii.String(namespace),
			MetricName:      jsii.String(DecisionFaultsMetric),
			MetricValue:     jsii.String("1"),
		})
		if first == nil {
			first = mf
		}
	}
	return first
}
