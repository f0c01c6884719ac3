package iamguard

import (
	"context"
	"fmt"
	"slices"
	"sort"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// Request is one authorization IAM makes for a DynamoDB call: a transaction
// or a batch makes one per item or per table.
type Request struct {
	Action string // dynamodb:PutItem…
	Table  string // physical name
	Index  string // the index a Query or Scan reads, or ""
	// Attributes are the top-level attributes the request names (its key
	// and every name of its expressions), for dynamodb:Attributes.
	Attributes  []string
	ReturnValue string
}

// Requests are the authorizations a DynamoDB call needs, as IAM evaluates
// them: TransactWriteItems and TransactGetItems by each item's own action,
// BatchGetItem and BatchWriteItem per table. An operation it does not know
// is one request on no table, which no grant allows.
func Requests(operation string, in any) []Request {
	one := func(action string, table *string, key map[string]types.AttributeValue, names map[string]string, rv string) Request {
		return Request{Action: "dynamodb:" + action, Table: deref(table), Attributes: attributesOf(key, names), ReturnValue: rv}
	}
	switch v := in.(type) {
	case *dynamodb.GetItemInput:
		return []Request{one("GetItem", v.TableName, v.Key, v.ExpressionAttributeNames, "")}
	case *dynamodb.PutItemInput:
		return []Request{one("PutItem", v.TableName, v.Item, v.ExpressionAttributeNames, string(v.ReturnValues))}
	case *dynamodb.UpdateItemInput:
		return []Request{one("UpdateItem", v.TableName, v.Key, v.ExpressionAttributeNames, string(v.ReturnValues))}
	case *dynamodb.DeleteItemInput:
		return []Request{one("DeleteItem", v.TableName, v.Key, v.ExpressionAttributeNames, string(v.ReturnValues))}
	case *dynamodb.QueryInput:
		r := one("Query", v.TableName, nil, v.ExpressionAttributeNames, "")
		r.Index = deref(v.IndexName)
		return []Request{r}
	case *dynamodb.ScanInput:
		r := one("Scan", v.TableName, nil, v.ExpressionAttributeNames, "")
		r.Index = deref(v.IndexName)
		return []Request{r}
	case *dynamodb.BatchGetItemInput:
		var out []Request
		for _, table := range sortedKeys(v.RequestItems) {
			t := table
			out = append(out, one("BatchGetItem", &t, nil, v.RequestItems[table].ExpressionAttributeNames, ""))
		}
		return out
	case *dynamodb.BatchWriteItemInput:
		var out []Request
		for _, table := range sortedKeys(v.RequestItems) {
			t := table
			out = append(out, one("BatchWriteItem", &t, nil, nil, ""))
		}
		return out
	case *dynamodb.TransactWriteItemsInput:
		var out []Request
		for _, it := range v.TransactItems {
			switch {
			case it.Put != nil:
				out = append(out, one("PutItem", it.Put.TableName, it.Put.Item, it.Put.ExpressionAttributeNames, ""))
			case it.Update != nil:
				out = append(out, one("UpdateItem", it.Update.TableName, it.Update.Key, it.Update.ExpressionAttributeNames, ""))
			case it.Delete != nil:
				out = append(out, one("DeleteItem", it.Delete.TableName, it.Delete.Key, it.Delete.ExpressionAttributeNames, ""))
			case it.ConditionCheck != nil:
				out = append(out, one("ConditionCheckItem", it.ConditionCheck.TableName, it.ConditionCheck.Key, it.ConditionCheck.ExpressionAttributeNames, ""))
			}
		}
		return out
	case *dynamodb.TransactGetItemsInput:
		var out []Request
		for _, it := range v.TransactItems {
			out = append(out, one("GetItem", it.Get.TableName, it.Get.Key, it.Get.ExpressionAttributeNames, ""))
		}
		return out
	}
	return []Request{{Action: "dynamodb:" + operation}}
}

// attributesOf: a put names its whole item; other requests their key, and
// each request the names its expressions use (guregu/dynamo writes every
// name as a placeholder).
func attributesOf(key map[string]types.AttributeValue, names map[string]string) []string {
	var out []string
	for k := range key {
		out = append(out, k)
	}
	for _, n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// DynamoDB allows or refuses one request: some grant of the role names its
// action on its table (on its indexes too, for a read of one), and that
// grant's conditions hold.
func (r *Role) DynamoDB(q Request) error {
	id, known := r.tableOf[q.Table]
	resource := fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", r.region, Account, q.Table)
	if q.Index != "" {
		resource += "/index/" + q.Index
	}
	if !known {
		d := r.denied("AccessDeniedException", q.Action, resource).(*Denied)
		if id, ok := schema.IsUnnamed(q.Table); ok {
			d.Why = "the function's environment names no " + id + " table: its catalogue entry grants it none"
		}
		return d
	}
	var why string
	for _, g := range r.dynamo[tableAction{q.Action, id}] {
		if q.Index != "" && !g.Indexes {
			continue
		}
		if w := conditionRefuses(g, q); w != "" {
			why = w
			continue
		}
		return nil
	}
	d := r.denied("AccessDeniedException", q.Action, resource).(*Denied)
	d.Why = why
	return d
}

// conditionRefuses says why a grant's conditions refuse q, or "".
func conditionRefuses(g deploy.Grant, q Request) string {
	if len(g.Attributes) == 0 {
		return ""
	}
	for _, a := range q.Attributes {
		if !slices.Contains(g.Attributes, a) {
			return fmt.Sprintf("the grant's dynamodb:Attributes condition does not allow the attribute %q", a)
		}
	}
	if q.ReturnValue != "" && !slices.Contains(deploy.ReturnValuesAllowed(), q.ReturnValue) {
		return fmt.Sprintf("the grant's dynamodb:ReturnValues condition does not allow %s", q.ReturnValue)
	}
	return ""
}

// DynamoDBOption is the client option that puts the role in front of every
// call of a DynamoDB client: refused calls are never sent.
func (r *Role) DynamoDBOption(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, r.dynamoDBMiddleware)
}

func (r *Role) dynamoDBMiddleware(s *middleware.Stack) error {
	return s.Initialize.Add(middleware.InitializeMiddlewareFunc("iamguard", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		for _, q := range Requests(awsmiddleware.GetOperationName(ctx), in.Parameters) {
			if err := r.DynamoDB(q); err != nil {
				return middleware.InitializeOutput{}, middleware.Metadata{}, err
			}
		}
		return next.HandleInitialize(ctx, in)
	}), middleware.Before)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
