package stack

import (
	"fmt"
	"regexp"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/evs-kyb/evs/shared/deploy"
)

// BucketsProps configures the buckets.
type BucketsProps struct {
	// Keys maps schema table ids to their customer-managed keys
	// (Data.Keys): a bucket is encrypted with the key of its KeyOfTable.
	Keys map[string]awskms.Key
	// BreakGlassRole names the role that alone may do
	// deploy.KeyGuardedActions with a bucket's own key (empty:
	// deploy.BreakGlassRole's default).
	BreakGlassRole string
}

// Buckets holds the S3 buckets.
type Buckets struct {
	constructs.Construct
	// Buckets maps deploy.Bucket.ID to its bucket.
	Buckets map[string]awss3.Bucket
	// Keys maps deploy.Bucket.ID to the key that encrypts the bucket: its
	// table's, or its own (deploy.Bucket.OwnKey).
	Keys map[string]awskms.Key
	// AccessLogs receives every bucket's server access logs
	// (deploy.AccessLogs).
	AccessLogs awss3.Bucket
}

// NewBuckets creates one bucket per deploy.Buckets() entry, under its
// logical id (template.yaml's too): all public access blocked, ACLs off
// (bucket owner enforced), a bucket policy refusing any request not made
// over TLS, SSE-KMS with its table's customer-managed key or a key of its
// own (BucketKeyLogicalID, rotated yearly) and an S3 Bucket Key (S3 asks
// KMS for a bucket-level key now and then instead of a data key per
// object), versioning; with ExpireDays, objects expiring then and replaced
// or expired versions NoncurrentDays later, and a rule per ExpireByTag;
// with ObjectLockDays, Object Lock on (at creation: it cannot be turned on
// later), every new version locked in deploy.ObjectLockMode that many days
// unless its writer names a date, and the policy's LockGuards. Always
// retained,
// and so is a key of its own: it holds evidence that must outlive the
// stack (and CloudFormation cannot delete a bucket with objects anyway).
// CloudFormation names it; the functions granted its objects get the name
// in their environment.
func NewBuckets(scope constructs.Construct, id *string, props *BucketsProps) *Buckets {
	if props == nil {
		props = &BucketsProps{}
	}
	bs := &Buckets{Construct: constructs.NewConstruct(scope, id), Buckets: map[string]awss3.Bucket{}, Keys: map[string]awskms.Key{}}
	bs.AccessLogs = newAccessLogsBucket(bs.Construct)
	for _, b := range deploy.Buckets() {
		key, ok := props.Keys[b.KeyOfTable]
		switch {
		case b.OwnKey && b.KeyOfTable == "":
			key = newBucketKey(bs.Construct, BucketKeyLogicalID(b), BucketKeyDescription(b), props.BreakGlassRole)
		case !ok || b.OwnKey:
			panic(fmt.Sprintf("infra: bucket %s: no customer-managed key of table %q, or a key of its own too", b.ID, b.KeyOfTable))
		}
		bucket := newBucket(bs.Construct, b.LogicalID, b, key, bs.AccessLogs, nil)
		bs.Buckets[b.ID] = bucket
		bs.Keys[b.ID] = key
	}
	return bs
}

// newBucket makes a bucket of the catalogue (or its replica, logicalID
// and name given) as NewBuckets says: encrypted with key, its server
// access logs to logs, named by CloudFormation unless name is given.
func newBucket(scope constructs.Construct, logicalID string, b deploy.Bucket, key awskms.Key, logs awss3.Bucket, name *string) awss3.Bucket {
	bp := &awss3.BucketProps{
		BucketName:        name,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		EnforceSSL:        jsii.Bool(true),
		Encryption:        awss3.BucketEncryption_KMS,
		EncryptionKey:     key,
		BucketKeyEnabled:  jsii.Bool(true),
		Versioned:         jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		// CDK grants S3's logging service the prefix in the log bucket's
		// policy, for this bucket and account only.
		ServerAccessLogsBucket: logs,
		ServerAccessLogsPrefix: jsii.String(b.AccessLogPrefix()),
		LifecycleRules:         lifecycleRules(b),
	}
	if b.ObjectLockDays > 0 {
		// deploy.ObjectLockMode.
		bp.ObjectLockEnabled = jsii.Bool(true)
		bp.ObjectLockDefaultRetention = awss3.ObjectLockRetention_Compliance(awscdk.Duration_Days(jsii.Number(float64(b.ObjectLockDays))))
	}
	bucket := awss3.NewBucket(scope, jsii.String(logicalID), bp)
	bucket.Node().DefaultChild().(awss3.CfnBucket).OverrideLogicalId(jsii.String(logicalID))
	if b.ObjectLockDays > 0 {
		for _, g := range LockGuards(b) {
			bucket.AddToResourcePolicy(g.statement(bucket))
		}
	}
	if p := bucket.Policy(); p != nil {
		p.Node().DefaultChild().(awss3.CfnBucketPolicy).OverrideLogicalId(jsii.String(logicalID + "Policy"))
	}
	return bucket
}

// newAccessLogsBucket is deploy.AccessLogs' bucket: private, TLS only,
// SSE-S3 (the only encryption S3's log delivery writes to), versioned,
// its logs expiring after ExpireDays, retained.
func newAccessLogsBucket(scope constructs.Construct) awss3.Bucket {
	l := deploy.AccessLogs()
	bucket := awss3.NewBucket(scope, jsii.String(l.LogicalID), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		EnforceSSL:        jsii.Bool(true),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		Versioned:         jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:                          jsii.String(deploy.LifecycleRuleID),
			Expiration:                  awscdk.Duration_Days(jsii.Number(float64(l.ExpireDays))),
			NoncurrentVersionExpiration: awscdk.Duration_Days(jsii.Number(float64(l.NoncurrentDays))),
		}},
	})
	bucket.Node().DefaultChild().(awss3.CfnBucket).OverrideLogicalId(jsii.String(l.LogicalID))
	bucket.Policy().Node().DefaultChild().(awss3.CfnBucketPolicy).OverrideLogicalId(jsii.String(l.LogicalID + "Policy"))
	return bucket
}

// lifecycleRules are a bucket's lifecycle rules (none: nil): ExpireDays
// and NoncurrentDays in one, then one per ExpireByTag.
func lifecycleRules(b deploy.Bucket) *[]*awss3.LifecycleRule {
	var rules []*awss3.LifecycleRule
	if b.ExpireDays > 0 || b.NoncurrentDays > 0 {
		rule := &awss3.LifecycleRule{
			Id:                          jsii.String(deploy.LifecycleRuleID),
			NoncurrentVersionExpiration: awscdk.Duration_Days(jsii.Number(float64(b.NoncurrentDays))),
		}
		if b.ExpireDays > 0 {
			rule.Expiration = awscdk.Duration_Days(jsii.Number(float64(b.ExpireDays)))
		}
		rules = append(rules, rule)
	}
	for _, e := range b.ExpireByTag {
		rules = append(rules, &awss3.LifecycleRule{
			Id:         jsii.String(e.RuleID()),
			TagFilters: &map[string]any{e.Key: e.Value},
			Expiration: awscdk.Duration_Days(jsii.Number(float64(e.Days))),
		})
	}
	if len(rules) == 0 {
		return nil
	}
	return &rules
}

// newBucketKey is a bucket's own key (deploy.Bucket.OwnKey), rotated
// yearly, always retained: objects it encrypts outlive the stack. Its
// policy is the account's (administered through IAM, CDK's default): the
// functions' grants say who may use it, through S3 only
// (BucketKeyCondition); and it denies deploy.KeyGuardedActions to every
// principal but the break-glass role (KeyGuard). That policy would keep
// whoever creates the key from changing it later, which KMS refuses unless
// told to (BypassPolicyLockoutSafetyCheck): on purpose.
func newBucketKey(scope constructs.Construct, logicalID, description, breakGlass string) awskms.Key {
	key := awskms.NewKey(scope, jsii.String(logicalID), &awskms.KeyProps{
		Description:       jsii.String(description),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String(KeyGuardSid),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
		Actions:    jsii.Strings(deploy.KeyGuardedActions()...),
		Resources:  jsii.Strings("*"),
		Conditions: &map[string]any{"ArnNotEquals": map[string]any{"aws:PrincipalArn": awscdk.Fn_Join(jsii.String(""), &[]*string{
			jsii.String("arn:"), awscdk.Aws_PARTITION(), jsii.String(":iam::"), awscdk.Aws_ACCOUNT_ID(), jsii.String(":role/"),
			jsii.String(breakGlassRole(breakGlass))})}},
	}), jsii.Bool(false))
	cfn := key.Node().DefaultChild().(awskms.CfnKey)
	cfn.OverrideLogicalId(jsii.String(logicalID))
	cfn.SetBypassPolicyLockoutSafetyCheck(true)
	return key
}

// KeyGuardSid names the statement of a bucket's own key's policy that
// denies deploy.KeyGuardedActions to all but the break-glass role.
const KeyGuardSid = "OnlyBreakGlass"

// breakGlassRole is the role given, or deploy.BreakGlassRole's default; it
// panics on a name no IAM role can have.
func breakGlassRole(given string) string {
	p := deploy.BreakGlassRole()
	if given == "" {
		return p.Default
	}
	if !regexp.MustCompile(p.Pattern).MatchString(given) {
		panic(fmt.Sprintf("infra: %s %q is no IAM role's name (%s)", p.Parameter, given, p.Pattern))
	}
	return given
}

// BucketKeyLogicalID is the logical id of the key that encrypts a bucket:
// its table's (EvidenceTableKey), or its own, <LogicalID>Key
// (RecordsBucketKey).
func BucketKeyLogicalID(b deploy.Bucket) string {
	if b.OwnKey {
		return b.LogicalID + "Key"
	}
	return TableKeyLogicalID(b.KeyOfTable)
}

// BucketKeyDescription is the description of a bucket's own key.
func BucketKeyDescription(b deploy.Bucket) string {
	return "Encrypts the " + b.ID + " bucket (customer-managed key)"
}

// BucketPolicyLogicalID is the logical id of a bucket's policy (its
// TLS-only statement): EvidenceBucketPolicy.
func BucketPolicyLogicalID(b deploy.Bucket) string { return b.LogicalID + "Policy" }

// ObjectsSid, BucketSid and KeyForObjectsSid name the statements granting
// a bucket's objects, the bucket itself (its listings) and the use of its
// key ("EvidenceObjects", "RecordsBucket", "EvidenceBucketKey").
func ObjectsSid(b deploy.Bucket) string       { return upperFirst(b.ID) + "Objects" }
func BucketSid(b deploy.Bucket) string        { return upperFirst(b.ID) + "Bucket" }
func KeyForObjectsSid(b deploy.Bucket) string { return upperFirst(b.ID) + "BucketKey" }

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// BucketOutput names the stack output holding a bucket's physical name
// (EvidenceBucketName); BucketOutputDescription says what it holds.
func BucketOutput(b deploy.Bucket) string { return b.LogicalID + "Name" }
func BucketOutputDescription(b deploy.Bucket) string {
	return "Name of the " + b.ID + " bucket (" + b.EnvVar + "): " + b.Description
}

// AccessLogsOutput names the stack output holding the access logs' bucket's
// physical name (AccessLogsBucketName).
func AccessLogsOutput() string { return deploy.AccessLogs().LogicalID + "Name" }

// AccessLogsOutputDescription says what AccessLogsOutput holds.
const AccessLogsOutputDescription = "Name of the bucket of every bucket's server access logs (under <bucket id>/)"
