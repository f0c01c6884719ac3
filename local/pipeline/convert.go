package pipeline

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// StreamRecord turns a DynamoDB Streams record into the record of a
// DynamoDBEvent, as Lambda presents it: eventID, eventName, eventVersion,
// eventSource and awsRegion as the stream gives them, eventSourceARN the
// stream's ARN, and the change itself (keys, images, sequence number, size,
// view type, creation time).
func StreamRecord(streamARN string, r types.Record) (events.DynamoDBEventRecord, error) {
	out := events.DynamoDBEventRecord{
		AWSRegion:      aws.ToString(r.AwsRegion),
		EventID:        aws.ToString(r.EventID),
		EventName:      string(r.EventName),
		EventSource:    aws.ToString(r.EventSource),
		EventVersion:   aws.ToString(r.EventVersion),
		EventSourceArn: streamARN,
	}
	if r.UserIdentity != nil { // TTL deletions carry the DynamoDB service as principal
		out.UserIdentity = &events.DynamoDBUserIdentity{Type: aws.ToString(r.UserIdentity.Type), PrincipalID: aws.ToString(r.UserIdentity.PrincipalId)}
	}
	d := r.Dynamodb
	if d == nil {
		return out, fmt.Errorf("stream record %s has no change", out.EventID)
	}
	var err error
	out.Change = events.DynamoDBStreamRecord{
		SequenceNumber: aws.ToString(d.SequenceNumber),
		SizeBytes:      aws.ToInt64(d.SizeBytes),
		StreamViewType: string(d.StreamViewType),
	}
	if d.ApproximateCreationDateTime != nil {
		out.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
	}
	if out.Change.Keys, err = Image(d.Keys); err != nil {
		return out, fmt.Errorf("stream record %s keys: %w", out.EventID, err)
	}
	if out.Change.NewImage, err = Image(d.NewImage); err != nil {
		return out, fmt.Errorf("stream record %s new image: %w", out.EventID, err)
	}
	if out.Change.OldImage, err = Image(d.OldImage); err != nil {
		return out, fmt.Errorf("stream record %s old image: %w", out.EventID, err)
	}
	return out, nil
}

// Image converts an item of the Streams API to aws-lambda-go's form; nil
// stays nil, as an absent image is absent from Lambda's JSON.
func Image(item map[string]types.AttributeValue) (map[string]events.DynamoDBAttributeValue, error) {
	if item == nil {
		return nil, nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(item))
	for k, v := range item {
		av, err := Attribute(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// Attribute converts one attribute value, recursively for lists and maps.
func Attribute(v types.AttributeValue) (events.DynamoDBAttributeValue, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value), nil
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value), nil
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value), nil
	case *types.AttributeValueMemberNULL:
		return events.NewNullAttribute(), nil
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value), nil
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value), nil
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value), nil
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value), nil
	case *types.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, 0, len(v.Value))
		for i, x := range v.Value {
			av, err := Attribute(x)
			if err != nil {
				return events.DynamoDBAttributeValue{}, fmt.Errorf("[%d]: %w", i, err)
			}
			l = append(l, av)
		}
		return events.NewListAttribute(l), nil
	case *types.AttributeValueMemberM:
		m, err := Image(v.Value)
		if err != nil {
			return events.DynamoDBAttributeValue{}, err
		}
		if m == nil {
			m = map[string]events.DynamoDBAttributeValue{}
		}
		return events.NewMapAttribute(m), nil
	}
	return events.DynamoDBAttributeValue{}, fmt.Errorf("unsupported attribute value %T", v)
}
