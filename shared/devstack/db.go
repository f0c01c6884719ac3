package devstack

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/store"
)

// DB returns a guregu/dynamo client for DynamoDB Local. Extra options (such as
// request-counting middleware) are applied to the SDK client.
func DB(opts ...func(*dynamodb.Options)) *dynamo.DB {
	endpoint := DynamoDBEndpoint()
	return dynamo.New(AWSConfig(), append([]func(*dynamodb.Options){store.ClientOptions, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}}, opts...)...)
}
