// Package iamguard refuses, at the call, what a function's deployed role is
// not granted. Its rules are the function's catalogue entry
// (shared/deploy): the same grants the CDK stack and template.yaml turn into
// the role's IAM policy. A refusal is AWS's own answer (AccessDeniedException,
// or AccessDenied for S3), naming the action, the resource and the function,
// so a path that needs a grant its role lacks fails on this machine as it
// would in AWS: in make local, in every test that drives a handler and under
// the runtime emulator.
//
// What it evaluates: DynamoDB as IAM does (each item of a transaction and of
// a batch by its own action, a query of an index on the index, a grant's
// dynamodb:Attributes and dynamodb:ReturnValues conditions), S3 per bucket
// and action (with the key action S3 takes as the caller), SQS per queue,
// Step Functions per action, and Secrets Manager reads by the secrets the
// catalogue names. What it cannot: key policies, bucket and queue
// policies, SCPs and conditions beyond those named (infra/README.md says
// what still needs an account).
package iamguard

import (
	"fmt"
	"slices"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/schema"
)

// Role is one function's role, as its catalogue entry grants it.
type Role struct {
	function string
	// tableOf is a physical table name's schema id, for the tables the
	// role's store names (others are unknown: refused, named as they are).
	tableOf map[string]string
	// dynamo are the DynamoDB grants by action and table id.
	dynamo map[tableAction][]deploy.Grant
	// objects are the S3 actions by bucket id.
	objects map[string][]string
	// keyActions are the KMS actions on each bucket's key.
	keyActions map[string][]string
	queues     []string
	sfn        []string
	secrets    []string
	region     string
}

type tableAction struct{ action, table string }

// New is the role of function f, over the physical table names its store
// uses (its environment's). region only names resources in refusals.
func New(f deploy.Function, tables schema.Names, region string) *Role {
	r := &Role{
		function: f.Name, tableOf: map[string]string{}, dynamo: map[tableAction][]deploy.Grant{},
		objects: map[string][]string{}, keyActions: map[string][]string{}, queues: slices.Clone(f.SendsTo), sfn: slices.Clone(f.Workflow), region: region,
	}
	for id, name := range tables {
		r.tableOf[name] = id
	}
	for _, g := range f.Grants {
		for _, a := range g.Actions {
			k := tableAction{a, g.Table}
			r.dynamo[k] = append(r.dynamo[k], g)
		}
	}
	for _, g := range f.Objects {
		r.objects[g.Bucket] = append(r.objects[g.Bucket], g.Actions...)
		r.keyActions[g.Bucket] = append(r.keyActions[g.Bucket], g.KeyActions()...)
	}
	return r
}

// principal names the role in a refusal as AWS names an assumed role.
func (r *Role) principal() string {
	return fmt.Sprintf("arn:aws:sts::%s:assumed-role/evs-%s/%s", Account, r.function, r.function)
}

// Account is the account id refusals name (the local stack's).
const Account = "000000000000"

// Object allows or refuses an S3 action on an object of the bucket
// (deploy bucket id), or on the bucket itself for a listing, and the action
// S3 takes with the bucket's key as the caller (kms:GenerateDataKey for a
// put, kms:Decrypt for a read), which the catalogue grants with it.
func (r *Role) Object(action, bucket, key string) error {
	resource := "arn:aws:s3:::" + bucket
	s, known := deploy.S3Actions()[action]
	if !known || !s.OnBucket {
		resource += "/" + key
	}
	if !slices.Contains(r.objects[bucket], action) {
		return r.denied("AccessDenied", action, resource)
	}
	// S3 uses the bucket's key as the caller: the role needs the key
	// action too, which the catalogue grants with the S3 action
	// (ObjectGrant.KeyActions, the list CDK and SAM grant).
	if s.KeyAction != "" && !slices.Contains(r.keyActions[bucket], s.KeyAction) {
		return r.denied("AccessDeniedException", s.KeyAction, "the "+bucket+" bucket's key")
	}
	return nil
}

// Objects is Object for each of actions, in order: the first refused is
// the refusal.
func (r *Role) Objects(bucket, key string, actions ...string) error {
	for _, a := range actions {
		if err := r.Object(a, bucket, key); err != nil {
			return err
		}
	}
	return nil
}

// Queue allows or refuses an SQS action (sqs:SendMessage, the one the
// catalogue grants, by SendsTo) on the queue (deploy queue id).
func (r *Role) Queue(action, queue string) error {
	if action == "sqs:SendMessage" && slices.Contains(r.queues, queue) {
		return nil
	}
	return r.denied("AccessDenied", action, fmt.Sprintf("arn:aws:sqs:%s:%s:%s", r.region, Account, queue))
}

// Workflow allows or refuses a Step Functions action on the decision
// workflow's resource (its state machine's or an execution's ARN).
func (r *Role) Workflow(action, resource string) error {
	if slices.Contains(r.sfn, action) {
		return nil
	}
	return r.denied("AccessDeniedException", action, resource)
}

func (r *Role) denied(code, action, resource string) error {
	return &Denied{Code: code, Function: r.function, Action: action, Resource: resource, Principal: r.principal()}
}
