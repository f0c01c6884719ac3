package boot

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/iamguard"
	"github.com/evs-kyb/evs/shared/records"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/workflow"
)

// confine gives a function no more than its catalogue entry gives its
// deployed role and environment, wherever its handler is built (Lambda, make
// local, the tests): the parts of d it does not use are dropped, its store
// names only the tables its grants name (another is refused, never read
// under an empty name), and every call of its store, buckets, queue and
// workflow is first put to its role (iamguard), which refuses what IAM
// would. In AWS IAM refuses the same calls; the guard makes them fail
// before they are sent, with the same answer.
func confine(d Deps, fn function, f deploy.Function) (Deps, error) {
	out := Deps{Log: d.Log, Clock: d.Clock, WebhookTimeout: d.WebhookTimeout}
	var role *iamguard.Role
	if !fn.needs.has(storeless) {
		var err error
		if out.Store, role, err = confineStore(d.Store, f); err != nil {
			return Deps{}, err
		}
	} else {
		role = iamguard.New(f, nil, "")
	}
	if fn.needs.has(needIntake) {
		out.Intake = d.Intake
	}
	if fn.needs.has(needInbound) {
		out.Readers, out.WebhookSecrets = d.Readers, d.WebhookSecrets
	}
	if fn.needs.has(needQueue) && d.Deliveries != nil {
		out.Deliveries = guardedSender{next: d.Deliveries, role: role}
	}
	if fn.needs.has(needAllow) {
		out.Allow = d.Allow
	}
	if fn.needs.has(needMetrics) {
		out.Metrics = d.Metrics
	}
	if fn.needs.has(needSettings) {
		out.SettingsURL = d.SettingsURL
	}
	if fn.needs.has(needBlobs) && d.Blobs != nil {
		out.Blobs = guardedBlobs{next: d.Blobs, role: role}
	}
	if fn.needs.has(needRecords) && d.Records != nil {
		out.Records = guardedRecords{next: d.Records, role: role}
	}
	if fn.needs.has(needPasskeys) {
		out.Passkeys = d.Passkeys
	}
	if fn.needs.has(needWorkflow) && d.Workflow != nil {
		out.Workflow = guardedWorkflow{next: d.Workflow, role: role}
	}
	return out, nil
}

// confineStore is st over the function's own tables, on a client of its own
// whose every call its role decides.
func confineStore(st *store.Store, f deploy.Function) (*store.Store, *iamguard.Role, error) {
	if st == nil {
		return nil, nil, fmt.Errorf("boot: %s: Deps lacks Store", f.Name)
	}
	all := st.Names()
	own := schema.Names{}
	for _, id := range f.TableIDs() {
		name, ok := all[id]
		if !ok {
			return nil, nil, fmt.Errorf("boot: %s: its grants name the %s table, which its store has no name for", f.Name, id)
		}
		own[id] = name
	}
	client, ok := st.DB().Client().(*dynamodb.Client)
	if !ok {
		return nil, nil, fmt.Errorf("boot: %s: the store's client is a %T, not DynamoDB's", f.Name, st.DB().Client())
	}
	opts := client.Options()
	role := iamguard.New(f, own, opts.Region)
	// A copy: the options' slice may share its array with the original's.
	opts.APIOptions = slices.Clone(opts.APIOptions)
	role.DynamoDBOption(&opts)
	return store.New(dynamo.NewFromIface(dynamodb.New(opts)), own), role, nil
}

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

func (g guardedBlobs) check(key string, actions ...string) error {
	for _, a := range actions {
		if err := g.role.Object(a, deploy.BucketEvidence, key); err != nil {
			return err
		}
	}
	return nil
}

func (g guardedBlobs) Put(ctx context.Context, key string, body []byte) error {
	if err := g.check(key, "s3:PutObject"); err != nil {
		return err
	}
	return g.next.Put(ctx, key, body)
}

func (g guardedBlobs) Get(ctx context.Context, key string) ([]byte, error) {
	if err := g.check(key, "s3:GetObject"); err != nil {
		return nil, err
	}
	return g.next.Get(ctx, key)
}

func (g guardedBlobs) Delete(ctx context.Context, key string) error {
	if err := g.check(key, "s3:DeleteObject"); err != nil {
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

const (
	s3Put       = "s3:PutObject"
	s3Retention = "s3:PutObjectRetention"
	s3Tagging   = "s3:PutObjectTagging"
	s3Get       = "s3:GetObject"
	s3Version   = "s3:GetObjectVersion"
	s3List      = "s3:ListBucket"
	s3Versions  = "s3:ListBucketVersions"
	s3Hold      = "s3:PutObjectLegalHold"
)

func (g guardedRecords) check(key string, actions ...string) error {
	for _, a := range actions {
		if err := g.role.Object(a, deploy.BucketRecords, key); err != nil {
			return err
		}
	}
	return nil
}

func (g guardedRecords) PutUntil(ctx context.Context, key string, body []byte, ret records.Retention) (bool, error) {
	if err := g.check(key, s3Put, s3Retention, s3Tagging, s3Get); err != nil {
		return false, err
	}
	return g.next.PutUntil(ctx, key, body, ret)
}

func (g guardedRecords) Get(ctx context.Context, key string) (records.Object, error) {
	if err := g.check(key, s3Get, s3Version, s3Versions); err != nil {
		return records.Object{}, err
	}
	return g.next.Get(ctx, key)
}

func (g guardedRecords) List(ctx context.Context, prefix string) ([]string, error) {
	if err := g.check(prefix, s3List); err != nil {
		return nil, err
	}
	return g.next.List(ctx, prefix)
}

func (g guardedRecords) ListLocked(ctx context.Context, prefix string) ([]records.Locked, error) {
	if err := g.check(prefix, s3Versions, s3Version); err != nil {
		return nil, err
	}
	return g.next.ListLocked(ctx, prefix)
}

func (g guardedRecords) Renew(ctx context.Context, key string, ret records.Retention) (string, error) {
	if err := g.check(key, s3Put, s3Retention, s3Tagging, s3Get); err != nil {
		return "", err
	}
	return g.next.Renew(ctx, key, ret)
}

func (g guardedRecords) SetLegalHold(ctx context.Context, key string, on bool) error {
	if err := g.check(key, s3Versions, s3Hold); err != nil {
		return err
	}
	return g.next.SetLegalHold(ctx, key, on)
}

// guardedWorkflow is the decision workflow as the role may drive it.
type guardedWorkflow struct {
	next workflow.Workflow
	role *iamguard.Role
}

func (g guardedWorkflow) Start(ctx context.Context, name string, input []byte) (string, error) {
	if err := g.role.Workflow(deploy.StatesStartExecution, "the decision state machine"); err != nil {
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
	if err := g.role.Workflow(deploy.StatesSendTaskSuccess, "the decision state machine"); err != nil {
		return err
	}
	return g.next.Approve(ctx, token, output)
}

func (g guardedWorkflow) Refuse(ctx context.Context, token, cause string) error {
	if err := g.role.Workflow(deploy.StatesSendTaskFailure, "the decision state machine"); err != nil {
		return err
	}
	return g.next.Refuse(ctx, token, cause)
}
