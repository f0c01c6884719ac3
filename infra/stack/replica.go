package stack

import (
	"fmt"
	"regexp"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
)

// The replica of the records bucket in a second region: a stack of its own
// there (CloudFormation makes resources in its stack's region only),
// deployed before the service's stack, whose records bucket replicates
// every new version into it (replication.go).

// Logical ids of the replica stack's resources.
const (
	RecordsReplicaBucketID = "RecordsReplicaBucket"
	RecordsReplicaKeyID    = "RecordsReplicaBucketKey"
)

// RecordsReplicaStackName is the replica stack's name: evs-<stage>-records-replica.
func RecordsReplicaStackName(stage string) string { return StackName(stage) + "-records-replica" }

// RecordsReplicaKeyAlias is the alias of the replica's key, by which the
// records bucket's replication names it (its id is not known before it is
// made, in another stack and region).
func RecordsReplicaKeyAlias(stage string) string { return "alias/" + RecordsReplicaStackName(stage) }

// RecordsReplicaBucketName is the replica bucket's name in the account:
// evs-<stage>-records-replica-<account>-<region>, fixed so that the
// service's stack can name it without a cross-region reference.
func RecordsReplicaBucketName(stage string, account, region *string) *string {
	return awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String(RecordsReplicaStackName(stage) + "-"), account, jsii.String("-"), region})
}

// maxBucketName is the longest name S3 gives a bucket.
const maxBucketName = 63

// ReplicaBucketNameLength is the length of RecordsReplicaBucketName for a
// stage and region (an account id has 12 digits).
func ReplicaBucketNameLength(stage, region string) int {
	return len(RecordsReplicaStackName(stage)) + 1 + 12 + 1 + len(region)
}

// RecordsReplicaProps configures the replica stack.
type RecordsReplicaProps struct {
	Stage string
	// Region is deploy.RecordsReplicaRegion's value: where the stack is.
	Region string
	// BreakGlassRole, as ServiceStackProps'.
	BreakGlassRole string
}

// RecordsReplica is the replica stack: the bucket, its key, its access
// logs' bucket.
type RecordsReplica struct {
	Stack      awscdk.Stack
	Stage      string
	Region     string
	Bucket     awss3.Bucket
	Key        awskms.Key
	AccessLogs awss3.Bucket
}

// NewRecordsReplica makes the replica stack in props.Region: a bucket made
// as the records bucket is (Object Lock in COMPLIANCE mode with the same
// default, the same lock guards and lifecycle rules, versioned, private,
// TLS only, retained), named RecordsReplicaBucketName, encrypted with a
// key of its own (rotated, retained, guarded as the records key is, under
// RecordsReplicaKeyAlias), its access logs in a bucket of the region. A
// replicated version keeps its source's lock date and mode and its tags,
// so it is kept, and expires, as its source does.
func NewRecordsReplica(scope constructs.Construct, props *RecordsReplicaProps) *RecordsReplica {
	pattern := deploy.RecordsReplicaRegion().Pattern
	if props.Region == "" || !regexp.MustCompile(pattern).MatchString(props.Region) {
		panic(fmt.Sprintf("infra: %s %q is no region's name", deploy.RecordsReplicaRegion().Parameter, props.Region))
	}
	if n := ReplicaBucketNameLength(props.Stage, props.Region); n > maxBucketName {
		panic(fmt.Sprintf("infra: the records' replica bucket would be named with %d characters (%s-<account>-%s), over S3's %d: choose a shorter stage name",
			n, RecordsReplicaStackName(props.Stage), props.Region, maxBucketName))
	}
	st := newTaggedStack(scope, jsii.String(RecordsReplicaStackName(props.Stage)), awscdk.StackProps{
		Env:         &awscdk.Environment{Region: jsii.String(props.Region)},
		Description: jsii.String("Entity Verification Service, stage " + props.Stage + ": the records bucket's replica"),
	}, props.Stage)
	records := deploy.MustBucket(deploy.BucketRecords)
	r := &RecordsReplica{Stack: st, Stage: props.Stage, Region: props.Region}
	r.Key = newBucketKey(st, RecordsReplicaKeyID, "Encrypts the records bucket's replica (customer-managed key)", props.BreakGlassRole)
	r.Key.AddAlias(jsii.String(RecordsReplicaKeyAlias(props.Stage)))
	r.AccessLogs = newAccessLogsBucket(st)
	r.Bucket = newBucket(st, RecordsReplicaBucketID, records, r.Key, r.AccessLogs,
		RecordsReplicaBucketName(props.Stage, awscdk.Aws_ACCOUNT_ID(), awscdk.Aws_REGION()))
	output(st, RecordsReplicaBucketID+"Name", r.Bucket.BucketName(), "Name of the records bucket's replica: go run ./local records verify --bucket <this> --region "+props.Region)
	output(st, AccessLogsOutput(), r.AccessLogs.BucketName(), AccessLogsOutputDescription)
	return r
}
