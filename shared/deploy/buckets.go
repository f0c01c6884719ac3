package deploy

import (
	"fmt"
	"strconv"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// S3 actions a function may be granted (ObjectGrant); S3Actions says what
// each is authorized on and what it takes of the bucket's key.
const (
	s3PutObject          = "s3:PutObject"
	s3PutObjectRetention = "s3:PutObjectRetention"
	s3PutObjectTagging   = "s3:PutObjectTagging"
	s3GetObject          = "s3:GetObject"
	s3GetObjectVersion   = "s3:GetObjectVersion"
	s3PutObjectLegalHold = "s3:PutObjectLegalHold"
	s3ListBucket         = "s3:ListBucket"
	s3ListBucketVersions = "s3:ListBucketVersions"
	s3DeleteObject       = "s3:DeleteObject"
)

// ObjectLockMode is the mode of every bucket's default Object Lock
// retention: COMPLIANCE, which no principal, the account's root included,
// can shorten or bypass (GOVERNANCE can be, with
// s3:BypassGovernanceRetention).
const ObjectLockMode = "COMPLIANCE"

// Bucket is an S3 bucket of the service: private (all public access
// blocked), reached over TLS only, encrypted with SSE-KMS under a
// customer-managed key (bucket key on), versioned, kept when the stack goes.
type Bucket struct {
	ID string
	// LogicalID is its CloudFormation logical id in both templates.
	LogicalID string
	// EnvVar holds its name in the environment of the functions granted it.
	EnvVar string
	// KeyOfTable is the schema table (with CustomerKey) whose key encrypts
	// the bucket's objects; or, with OwnKey, the bucket has a
	// customer-managed key of its own (rotated yearly, kept when the stack
	// goes). Exactly one of the two.
	KeyOfTable string
	OwnKey     bool
	// ExpireDays, when set, expires a current version that long after it
	// was written, and NoncurrentDays a replaced or expired version that
	// long after (one lifecycle rule, LifecycleRuleID, when either is
	// set).
	ExpireDays     int
	NoncurrentDays int
	// ExpireByTag expires a current version by its tag: a lifecycle rule
	// each, after NoncurrentDays' (TagExpiry.RuleID).
	ExpireByTag []TagExpiry
	// ObjectLockDays, when set, creates the bucket with Object Lock (it
	// cannot be turned on later), every new object version locked in
	// ObjectLockMode for that many days unless its writer names a date
	// (s3:PutObjectRetention), and a bucket policy refusing a date in any
	// other mode or more than MaxLockDays ahead.
	ObjectLockDays int
	MaxLockDays    int
	Description    string
}

// LifecycleRuleID names a bucket's lifecycle rule of ExpireDays and
// NoncurrentDays.
const LifecycleRuleID = "ExpireAfterRetention"

// TagExpiry expires a current version tagged Key=Value Days after it was
// written.
type TagExpiry struct {
	Key, Value string
	Days       int
}

// RuleID names its lifecycle rule: ExpireTagged<Value>.
func (e TagExpiry) RuleID() string { return "ExpireTagged" + e.Value }

// recordsExpiries are the records bucket's rules by tag: a version locked
// for so many whole years (domain.RecordKeepYears) expires a day after the
// longest those years can be (domain.RecordsKeepDays), once its lock
// ended.
func recordsExpiries() []TagExpiry {
	var out []TagExpiry
	for y := 1; y <= domain.RecordsMaxKeepYears; y++ {
		out = append(out, TagExpiry{Key: domain.RecordsKeepTag, Value: strconv.Itoa(y), Days: domain.RecordsKeepDays(y)})
	}
	return out
}

// Bucket ids.
const (
	// BucketEvidence keeps the providers' answers too large for their
	// evidence item (README, Evidence).
	BucketEvidence = "evidence"
	// BucketRecords keeps the copies of the kept records no one can
	// rewrite: every audit record, audit chain head and evidence body, and
	// each day's manifest, under Object Lock (audit-export writes them).
	BucketRecords = "records"
)

// Buckets lists every bucket of the service.
func Buckets() []Bucket {
	return []Bucket{
		{
			ID: BucketEvidence, LogicalID: "EvidenceBucket", EnvVar: "EVIDENCE_BUCKET",
			// The evidence table's own key: one key, one key policy and one
			// CloudTrail trail for a check's evidence wherever it is kept.
			KeyOfTable: schema.Evidence,
			// No expiry by age: a body is kept as long as its evidence item,
			// which has no expiry while the relationship lasts and which
			// TTL removes at the end of its retention; audit-export then
			// deletes the body (the removal comes down the evidence stream).
			// A version replaced (a retried write: the same bytes; or bytes
			// changed behind the service's back) or deleted is kept a year,
			// time to find and restore a tampered body, then goes.
			NoncurrentDays: 365,
			Description:    "the providers' answers over 350 KB (objects evidence/<account>/<check>/<sha256>)",
		},
		{
			ID: BucketRecords, LogicalID: "RecordsBucket", EnvVar: "RECORDS_BUCKET",
			// A key of its own: the locked copies are decrypted by those
			// its grants name, not by whoever may read the tables.
			OwnKey: true,
			// Each version locked at its write to the law's date
			// (domain.RecordLockUntil) and tagged with the years it runs;
			// renewed by audit-export as a new version while the record is
			// still needed (domain.RecordRenewal). A current version goes a
			// day after the longest its tag's years can be, the versions
			// beneath it a day after they were replaced or expired: the
			// lifecycle deletes no version before its lock allows. A
			// version written with no date (none of the service's) is
			// locked by the default, and no lock may reach further than
			// the longest rule keeps.
			ObjectLockDays: domain.RecordsDefaultLockDays,
			MaxLockDays:    domain.RecordsKeepDays(domain.RecordsMaxKeepYears),
			NoncurrentDays: domain.RecordsNoncurrentDays,
			ExpireByTag:    recordsExpiries(),
			Description:    "the kept records under Object Lock (COMPLIANCE): audit records, chain heads, evidence bodies and the daily manifests",
		},
	}
}

// LookupBucket returns the bucket with the id.
func LookupBucket(id string) (Bucket, bool) {
	for _, b := range Buckets() {
		if b.ID == id {
			return b, true
		}
	}
	return Bucket{}, false
}

// MustBucket is LookupBucket for the catalogue's own ids: a miss panics.
func MustBucket(id string) Bucket {
	b, ok := LookupBucket(id)
	if !ok {
		panic(fmt.Sprintf("deploy: no bucket %q in Buckets()", id))
	}
	return b
}

// S3Action is what IAM authorizes an S3 action on, and the KMS action S3
// takes with an SSE-KMS bucket's key as the caller (S3 calls KMS with the
// caller's credentials), if any.
type S3Action struct {
	// OnBucket: authorized on the bucket's ARN; otherwise on its objects'
	// (<bucket arn>/*).
	OnBucket bool
	// KeyAction is the KMS action it needs on the bucket's key, or "".
	KeyAction string
}

// S3Actions are the S3 actions the catalogue may grant, and no more: no
// action that deletes a version, changes a retention or the bucket's lock
// or lifecycle configuration is among them, so no grant can name one; the
// one delete, of a current object (a delete marker where versioned), is
// audit-export's on the evidence bucket alone (deploy_test.go). A PutObject (one request, no multipart upload) needs
// kms:GenerateDataKey, a GetObject of the current or an older version
// kms:Decrypt (Amazon S3 User Guide, "Using server-side encryption with AWS
// KMS keys (SSE-KMS)": permissions); a legal hold and a listing read or
// write no object's bytes.
func S3Actions() map[string]S3Action {
	return map[string]S3Action{
		s3PutObject:          {KeyAction: "kms:GenerateDataKey"},
		s3PutObjectRetention: {},
		s3PutObjectTagging:   {},
		s3GetObject:          {KeyAction: "kms:Decrypt"},
		s3GetObjectVersion:   {KeyAction: "kms:Decrypt"},
		s3PutObjectLegalHold: {},
		s3ListBucket:         {OnBucket: true},
		s3ListBucketVersions: {OnBucket: true},
		s3DeleteObject:       {},
	}
}

// ObjectGrant allows S3 actions on a bucket: on its objects
// (<bucket arn>/*) or, for a listing, on the bucket itself, and with them
// the use of the bucket's key that S3 makes as the caller (KeyActions).
type ObjectGrant struct {
	Bucket  string
	Actions []string
}

// ObjectActions are the grant's actions authorized on the bucket's
// objects, in the grant's order.
func (g ObjectGrant) ObjectActions() []string { return g.actions(false) }

// BucketActions are the grant's actions authorized on the bucket itself,
// in the grant's order.
func (g ObjectGrant) BucketActions() []string { return g.actions(true) }

func (g ObjectGrant) actions(onBucket bool) []string {
	known := S3Actions()
	var out []string
	for _, a := range g.Actions {
		s, ok := known[a]
		if !ok {
			panic(fmt.Sprintf("deploy: %s is not an S3 action the catalogue may grant", a))
		}
		if s.OnBucket == onBucket {
			out = append(out, a)
		}
	}
	return out
}

// KeyActions are the KMS actions the grant's S3 actions need on the
// bucket's key, each once, and no more. An action S3Actions does not know
// panics, naming it.
func (g ObjectGrant) KeyActions() []string {
	known := S3Actions()
	var out []string
	seen := map[string]bool{}
	for _, a := range g.Actions {
		s, ok := known[a]
		if !ok {
			panic(fmt.Sprintf("deploy: %s is not an S3 action the catalogue may grant", a))
		}
		if k := s.KeyAction; k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// AccessLogsBucket receives the S3 server access logs of every bucket of
// Buckets(), each under its AccessLogPrefix: who read, wrote or was
// refused what, and when, beside CloudTrail. Its objects are written by
// S3's logging service, which can deliver only to a bucket encrypted with
// S3's own keys (SSE-S3) and without a default Object Lock retention; it is
// otherwise made as the others are (private, TLS only, versioned, kept when
// the stack goes). No function is granted it.
type AccessLogsBucket struct {
	LogicalID string
	// ExpireDays expires a log object that long after S3 delivered it,
	// NoncurrentDays a replaced or deleted one.
	ExpireDays, NoncurrentDays int
}

// AccessLogs is the access logs' bucket: kept two years, the span in which
// a question about a record's reading is asked (the records themselves
// carry who did what for their whole retention).
func AccessLogs() AccessLogsBucket {
	return AccessLogsBucket{LogicalID: "AccessLogsBucket", ExpireDays: 730, NoncurrentDays: 30}
}

// AccessLogPrefix is where a bucket's server access logs are delivered in
// the access logs' bucket: "<id>/".
func (b Bucket) AccessLogPrefix() string { return b.ID + "/" }
