package iamguard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/iamguard"
	"github.com/evs-kyb/evs/shared/schema"
)

// role is a function with a grant of each shape the catalogue uses.
func role() *iamguard.Role {
	f := deploy.Function{
		Name: "example",
		Grants: []deploy.Grant{
			{Table: schema.Reviews, Actions: []string{"dynamodb:GetItem", "dynamodb:Query"}, Indexes: true},
			{Table: schema.Entities, Actions: []string{"dynamodb:Query"}},
			{Table: schema.Checks, Actions: []string{"dynamodb:UpdateItem"}, Attributes: schema.RetentionAttributes(schema.Checks)},
			{Table: schema.Audit, Actions: []string{"dynamodb:PutItem"}},
		},
		Objects:  []deploy.ObjectGrant{{Bucket: deploy.BucketEvidence, Actions: []string{"s3:GetObject"}}},
		SendsTo:  []string{deploy.QueueDeliveries},
		Workflow: []string{deploy.StatesStartExecution},
	}
	names := schema.Names{}
	for _, id := range f.TableIDs() {
		names[id] = "t-" + id
	}
	return iamguard.New(f, names, "us-east-1")
}

func TestDynamoDBIsDecidedAsIAMDecides(t *testing.T) {
	checksKey := map[string]types.AttributeValue{}
	for _, a := range schema.RetentionAttributes(schema.Checks)[:2] {
		checksKey[a] = &types.AttributeValueMemberS{Value: "1"}
	}
	cases := []struct {
		name    string
		in      any
		refused string // the action and resource named, or "" when allowed
	}{
		{"a granted read", &dynamodb.GetItemInput{TableName: aws.String("t-reviews")}, ""},
		{"an index of a grant with indexes", &dynamodb.QueryInput{TableName: aws.String("t-reviews"), IndexName: aws.String("by_entity")}, ""},
		{"an index of a grant without", &dynamodb.QueryInput{TableName: aws.String("t-entities"), IndexName: aws.String("by_x")},
			"dynamodb:Query on resource: arn:aws:dynamodb:us-east-1:000000000000:table/t-entities/index/by_x"},
		{"an action not granted", &dynamodb.PutItemInput{TableName: aws.String("t-reviews")}, "dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/t-reviews"},
		{"a table the role does not name", &dynamodb.GetItemInput{TableName: aws.String("t-accounts")}, "dynamodb:GetItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/t-accounts"},
		{"a table the environment does not name", &dynamodb.GetItemInput{TableName: aws.String(schema.UnnamedTable(schema.Accounts))}, "names no accounts table"},
		{"the attributes a condition allows", &dynamodb.UpdateItemInput{TableName: aws.String("t-checks"), Key: checksKey,
			ExpressionAttributeNames: map[string]string{"#e": schema.ExpiresAt}, ReturnValues: types.ReturnValueNone}, ""},
		{"an attribute a condition refuses", &dynamodb.UpdateItemInput{TableName: aws.String("t-checks"), Key: checksKey,
			ExpressionAttributeNames: map[string]string{"#s": "status"}}, `dynamodb:Attributes condition does not allow the attribute "status"`},
		{"return values a condition refuses", &dynamodb.UpdateItemInput{TableName: aws.String("t-checks"), Key: checksKey,
			ExpressionAttributeNames: map[string]string{"#e": schema.ExpiresAt}, ReturnValues: types.ReturnValueAllNew}, "dynamodb:ReturnValues condition does not allow ALL_NEW"},
		{"each item of a transaction by its own action", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("t-audit")}},
			{Put: &types.Put{TableName: aws.String("t-reviews")}},
		}}, "dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/t-reviews"},
		{"a condition check is an action of its own", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String("t-reviews")}},
		}}, "dynamodb:ConditionCheckItem"},
		{"a batch per table", &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"t-reviews": {}}}, "dynamodb:BatchGetItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/t-reviews"},
		{"an operation on no table", &dynamodb.ListTablesInput{}, "dynamodb:ListTables"},
	}
	r := role()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			for _, q := range iamguard.Requests(opName(c.in), c.in) {
				if err = r.DynamoDB(q); err != nil {
					break
				}
			}
			if c.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != "AccessDeniedException" {
				t.Fatalf("want AccessDeniedException, got %v", err)
			}
			if !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "the example function's grants") {
				t.Fatalf("the refusal %q does not name %q and the function", err, c.refused)
			}
		})
	}
}

func TestObjectsQueuesAndWorkflowByTheirGrants(t *testing.T) {
	r := role()
	cases := []struct {
		name    string
		err     error
		refused string
	}{
		{"a granted read", r.Object("s3:GetObject", deploy.BucketEvidence, "k"), ""},
		{"a put not granted", r.Object("s3:PutObject", deploy.BucketEvidence, "k"), "s3:PutObject on resource: arn:aws:s3:::evidence/k"},
		{"another bucket", r.Object("s3:GetObject", deploy.BucketRecords, "k"), "s3:GetObject on resource: arn:aws:s3:::records/k"},
		{"a listing is on the bucket", r.Object("s3:ListBucket", deploy.BucketRecords, "k"), "s3:ListBucket on resource: arn:aws:s3:::records because"},
		{"a queue sent to", r.Queue("sqs:SendMessage", deploy.QueueDeliveries), ""},
		{"another queue", r.Queue("sqs:SendMessage", deploy.QueueReviewEventsFailures), "sqs:SendMessage"},
		{"a workflow action granted", r.Workflow(deploy.StatesStartExecution, "sm"), ""},
		{"one not granted", r.Workflow(deploy.StatesSendTaskSuccess, "sm"), "states:SendTaskSuccess on resource: sm"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.refused == "" {
				if c.err != nil {
					t.Fatalf("refused: %v", c.err)
				}
				return
			}
			if c.err == nil || !strings.Contains(c.err.Error(), c.refused) {
				t.Fatalf("want a refusal naming %q, got %v", c.refused, c.err)
			}
			if _, ok := iamguard.AsDenied(c.err); !ok {
				t.Fatalf("%v is not a Denied", c.err)
			}
		})
	}
}

func opName(in any) string {
	if _, ok := in.(*dynamodb.ListTablesInput); ok {
		return "ListTables"
	}
	return ""
}
