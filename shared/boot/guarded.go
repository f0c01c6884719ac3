package boot

import (
	"context"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/iamguard"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/workflow"
)

// The S3 actions the bucket wrappers put to the role, as blob.S3 and
// records.S3 take them.
const (
	s3Put       = "s3:PutObject"
	s3Retention = "s3:PutObjectRetention"
	s3Tagging   = "s3:PutObjectTagging"
	s3Get       = "s3:GetObject"
	s3Version   = "s3:GetObjectVersion"
	s3List      = "s3:ListBucket"
	s3Versions  = "s3:ListBucketVersions"
	s3Hold      = "s3:PutObjectLegalHold"
	s3Delete    = "s3:DeleteObject"
)

// guardedSender is the deliveries queue as the role may use it.
type guardedSender struct {
	next delivery.Sender
	role *iamguard.Role
}

func (g guardedSender) Send(ctx context.Context, msgs []delivery.Message) error {
	if err := g.role.Queue("sqs:SendMessage", deploy.QueueDeliveries); err != nil {
		return err
	}
	return g.next.Send(ctx, msgs)
}

// guardedBlobs is the evidence bucket as the role may use it: each method
// takes what blob.S3's call of it takes.
type guardedBlobs struct {
	next Blobs
	role *iamguard.Role
}

func (g guardedBlobs) Put(ctx context.Context, key string, body []byte) error {
	if err := g.role.Objects(deploy.BucketEvidence, key, s3Put); err != nil {
		return err
	}
	return g.next.Put(ctx, key, body)
}

func (g guardedBlobs) Get(ctx context.Context, key string) ([]byte, error) {
	if err := g.role.Objects(deploy.BucketEvidence, key, s3Get); err != nil {
		return nil, err
	}
	return g.next.Get(ctx, key)
}

func (g guardedBlobs) Delete(ctx context.Context, key string) error {
	if err := g.role.Objects(deploy.BucketEvidence, key, s3Delete); err != nil {
		return err
	}
	return g.next.Delete(ctx, key)
}

// guardedRecords is the records bucket as the role may use it: each method
// takes what records.S3's calls of it take (a dated, tagged put reads back
// what is there; a read takes the key's first version with every later one;
// a hold is put on each version).
type guardedRecords struct {
	next Records
	role *iamguard.Role
}

func (g guardedRecords) PutUntil(ctx context.Context, key string, body []byte, ret records.Retention) (bool, error) {
	if err := g.role.Objects(deploy.BucketRecords, key, s3Put, s3Retention, s3Tagging, s3Get); err != nil {
		return false, err
	}
	return g.next.PutUntil(ctx, key, body, ret)
}

func (g guardedRecords) Get(ctx context.Context, key string) (records.Object, error) {
	if err := g.role.Objects(deploy.BucketRecords, key, s3Get, s3Version, s3Versions); err != nil {
		return records.Object{}, err
	}
	return g.next.Get(ctx, key)
}

func (g guardedRecords) List(ctx context.Context, prefix string) ([]string, error) {
	if err := g.role.Objects(deploy.BucketRecords, prefix, s3List); err != nil {
		return nil, err
	}
	return g.next.List(ctx, prefix)
}

func (g guardedRecords) ListLocked(ctx context.Context, prefix string) ([]records.Locked, error) {
	if err := g.role.Objects(deploy.BucketRecords, prefix, s3Versions, s3Version); err != nil {
		return nil, err
	}
	return g.next.ListLocked(ctx, prefix)
}

func (g guardedRecords) Renew(ctx context.Context, key string, ret records.Retention) (string, error) {
	if err := g.role.Objects(deploy.BucketRecords, key, s3Put, s3Retention, s3Tagging, s3Get); err != nil {
		return "", err
	}
	return g.next.Renew(ctx, key, ret)
}

func (g guardedRecords) SetLegalHold(ctx context.Context, key string, on bool) error {
	if err := g.role.Objects(deploy.BucketRecords, key, s3Versions, s3Hold); err != nil {
		return err
	}
	return g.next.SetLegalHold(ctx, key, on)
}

// decisionStateMachine names the resource of the actions authorized on the
// state machine in a refusal (the wrapper knows no ARN).
const decisionStateMachine = "the decision state machine"

// guardedWorkflow is the decision workflow as the role may drive it.
type guardedWorkflow struct {
	next workflow.Workflow
	role *iamguard.Role
}

func (g guardedWorkflow) Start(ctx context.Context, name string, input []byte) (string, error) {
	if err := g.role.Workflow(deploy.StatesStartExecution, decisionStateMachine); err != nil {
		return "", err
	}
	return g.next.Start(ctx, name, input)
}

func (g guardedWorkflow) ExecutionARN(name string) string { return g.next.ExecutionARN(name) }

func (g guardedWorkflow) Describe(ctx context.Context, arn string) (workflow.Execution, error) {
	if err := g.role.Workflow(deploy.StatesDescribeExecution, arn); err != nil {
		return workflow.Execution{}, err
	}
	return g.next.Describe(ctx, arn)
}

func (g guardedWorkflow) Approve(ctx context.Context, token string, output []byte) error {
	if err := g.role.Workflow(deploy.StatesSendTaskSuccess, decisionStateMachine); err != nil {
		return err
	}
	return g.next.Approve(ctx, token, output)
}

func (g guardedWorkflow) Refuse(ctx context.Context, token, cause string) error {
	if err := g.role.Workflow(deploy.StatesSendTaskFailure, decisionStateMachine); err != nil {
		return err
	}
	return g.next.Refuse(ctx, token, cause)
}
