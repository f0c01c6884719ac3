package boot

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/iamguard"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
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
