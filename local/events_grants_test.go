package main

// DynamoDB Local checks no IAM, so a function whose role lacks an action it
// takes works locally and fails in AWS. The replay of the sample events runs
// each function over a client of its own that records every action, on
// which table and whether through an index, as IAM evaluates it (a
// transaction's items one by one, a batch's per table); the replay then
// holds what each function did to the grants shared/deploy gives its role.

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// tableAction is one IAM action on one physical table (through an index or
// not).
type tableAction struct {
	action string
	table  string
	index  bool
}

// actionRecorder records the actions of one function's DynamoDB client.
type actionRecorder struct {
	mu   sync.Mutex
	seen map[tableAction]bool
}

func (r *actionRecorder) add(a ...tableAction) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[tableAction]bool{}
	}
	for _, x := range a {
		r.seen[x] = true
	}
}

// did tells whether the client took an action.
func (r *actionRecorder) did(a tableAction) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[a]
}

// option is the client option that records each request before it is sent.
func (r *actionRecorder) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("record-actions", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			r.add(actionsOf(in.Parameters)...)
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
	})
}

// actionsOf is what IAM authorises for a request: TransactWriteItems and
// TransactGetItems by each item's own action, batches per table.
func actionsOf(in any) []tableAction {
	one := func(action string, table *string) tableAction {
		return tableAction{action: "dynamodb:" + action, table: aws.ToString(table)}
	}
	switch v := in.(type) {
	case *dynamodb.GetItemInput:
		return []tableAction{one("GetItem", v.TableName)}
	case *dynamodb.PutItemInput:
		return []tableAction{one("PutItem", v.TableName)}
	case *dynamodb.UpdateItemInput:
		return []tableAction{one("UpdateItem", v.TableName)}
	case *dynamodb.DeleteItemInput:
		return []tableAction{one("DeleteItem", v.TableName)}
	case *dynamodb.QueryInput:
		a := one("Query", v.TableName)
		a.index = v.IndexName != nil
		return []tableAction{a}
	case *dynamodb.ScanInput:
		a := one("Scan", v.TableName)
		a.index = v.IndexName != nil
		return []tableAction{a}
	case *dynamodb.BatchGetItemInput:
		var out []tableAction
		for table := range v.RequestItems {
			out = append(out, one("BatchGetItem", &table))
		}
		return out
	case *dynamodb.BatchWriteItemInput:
		var out []tableAction
		for table := range v.RequestItems {
			out = append(out, one("BatchWriteItem", &table))
		}
		return out
	case *dynamodb.TransactWriteItemsInput:
		var out []tableAction
		for _, it := range v.TransactItems {
			switch {
			case it.Put != nil:
				out = append(out, one("PutItem", it.Put.TableName))
			case it.Update != nil:
				out = append(out, one("UpdateItem", it.Update.TableName))
			case it.Delete != nil:
				out = append(out, one("DeleteItem", it.Delete.TableName))
			case it.ConditionCheck != nil:
				out = append(out, one("ConditionCheckItem", it.ConditionCheck.TableName))
			}
		}
		return out
	case *dynamodb.TransactGetItemsInput:
		var out []tableAction
		for _, it := range v.TransactItems {
			out = append(out, one("GetItem", it.Get.TableName))
		}
		return out
	}
	return []tableAction{{action: fmt.Sprintf("unknown request %T", in)}}
}

// ungranted lists what a function did that its grants do not allow.
func ungranted(f deploy.Function, names schema.Names, did map[tableAction]bool) []string {
	idOf := map[string]string{}
	for id, name := range names {
		idOf[name] = id
	}
	allowed := map[tableAction]bool{}
	for _, g := range f.Grants {
		for _, a := range g.Actions {
			allowed[tableAction{action: a, table: g.Table}] = true
			if g.Indexes {
				allowed[tableAction{action: a, table: g.Table, index: true}] = true
			}
		}
	}
	var out []string
	for a := range did {
		logical := tableAction{action: a.action, table: idOf[a.table], index: a.index}
		if !allowed[logical] {
			on := logical.table
			if a.index {
				on += " (index)"
			}
			out = append(out, a.action+" on "+on)
		}
	}
	sort.Strings(out)
	return out
}

// checkGrants fails the test for every action a function took beyond its
// grants during the replay.
func checkGrants(t *testing.T, names schema.Names, recorders map[string]*actionRecorder) {
	t.Helper()
	for _, f := range deploy.Functions() {
		r := recorders[f.Name]
		r.mu.Lock()
		missing := ungranted(f, names, r.seen)
		r.mu.Unlock()
		for _, m := range missing {
			t.Errorf("%s took %s, which shared/deploy does not grant it (its role would refuse it in AWS)", f.Name, m)
		}
	}
}
