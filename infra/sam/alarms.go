package sam

import (
	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
	emf "github.com/evs-kyb/evs/shared/metrics"
)

// alarmPeriodSeconds is every alarm's period, the CDK stack's five minutes.
const alarmPeriodSeconds = 300

const alarmsNote = `------------------------------------------------------------------ alarms
The delivery pipeline's alarms, as the CDK stack's (same logical ids and
names, infra/stack/observability.go), each notifying AlarmTopic in alarm and
back to OK; missing data is not breaching (idle queues, quiet days).
The functions' own alarms are the CDK stack's only: it alarms on Errors and
Throttles, or, for a function whose Lambda errors include refusals by design
(deploy.Function.RefusesWithErrors), on faults counted by metric filters on
its log group, which this template does not declare. So no alarm here is on
a function's Errors.`

// alarms: the alarm topic, then stack's pipeline alarms: any message in a
// failure queue, the oldest message of a consumed queue, any failed webhook
// delivery (webhook-delivery's own metric, no dimensions).
func alarms() ([]Pair, error) {
	out := []Pair{resource(alarmTopicID, "AWS::SNS::Topic", Map(
		KV("DisplayName", Sub(stack.AlarmTopicDisplayName(stage))),
	)).Note(alarmsNote), resource(alarmTopicID+"Policy", "AWS::SNS::TopicPolicy", Map(
		KV("Topics", FlowList(Ref(alarmTopicID))),
		KV("PolicyDocument", Map(
			KV("Version", "2012-10-17"),
			KV("Statement", List(Map(
				KV("Sid", "AllowPublishThroughSSLOnly"),
				KV("Effect", "Deny"),
				KV("Principal", "*"),
				KV("Action", "sns:Publish"),
				KV("Resource", Ref(alarmTopicID)),
				KV("Condition", Flow(KV("Bool", Flow(KV("aws:SecureTransport", "false"))))),
			))),
		)),
	)).Note("TLS only: every publication not made over TLS is denied, as the CDK stack's enforceSSL.")}
	queueAlarm := func(pa stack.PipelineAlarm, q deploy.Queue, metric string, threshold int) Pair {
		return alarm(pa, "AWS/SQS", metric, "Maximum", threshold,
			[]Pair{KV("Dimensions", List(Flow(KV("Name", "QueueName"), KV("Value", GetAtt(q.LogicalID, "QueueName")))))})
	}
	for _, q := range stack.FailureQueues() {
		out = append(out, queueAlarm(stack.QueueMessagesAlarm(q), q, "ApproximateNumberOfMessagesVisible", 1))
	}
	for _, q := range stack.ConsumedQueues() {
		out = append(out, queueAlarm(stack.QueueAgeAlarm(q), q, "ApproximateAgeOfOldestMessage", stack.QueueOldestMessageAgeSeconds))
	}
	if _, err := deploy.FunctionByName(stack.WebhookDeliveryFunction); err == nil {
		out = append(out, alarm(stack.WebhookDeliveriesFailedAlarm(), emf.Namespace, emf.DeliveriesFailed, "Sum", 1, nil))
	}
	return out, nil
}

// alarm is one pipeline alarm: at or over threshold in one period
// (alarmProps), with the resource's attributes given (a Condition).
func alarm(pa stack.PipelineAlarm, namespace, metric, statistic string, threshold int, dimensions []Pair, attrs ...Pair) Pair {
	return resource(pa.LogicalID, "AWS::CloudWatch::Alarm", alarmProps(pa, namespace, metric, statistic, threshold, dimensions), attrs...)
}

// alarmProps are an alarm's properties, as the CDK stack's alarms have
// them: named <stack>-<name>, notifying the alarm topic in alarm and back
// to OK, missing data not breaching.
func alarmProps(pa stack.PipelineAlarm, namespace, metric, statistic string, threshold int, dimensions []Pair) *yamlNode {
	props := []Pair{
		KV("AlarmName", Sub(stack.StackName(stage)+"-"+pa.Name)),
		KV("AlarmDescription", pa.Description),
		KV("Namespace", namespace),
		KV("MetricName", metric),
	}
	props = append(props, dimensions...)
	props = append(props,
		KV("Statistic", statistic),
		KV("Period", alarmPeriodSeconds),
		KV("EvaluationPeriods", 1),
		KV("Threshold", threshold),
		KV("ComparisonOperator", "GreaterThanOrEqualToThreshold"),
		KV("TreatMissingData", "notBreaching"),
		KV("AlarmActions", FlowList(Ref(alarmTopicID))),
		KV("OKActions", FlowList(Ref(alarmTopicID))),
	)
	return Map(props...)
}
