package deploy

import (
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// S3 object actions a function may be granted (ObjectGrant).
const (
	s3PutObject = "s3:PutObject"
	s3GetObject = "s3:GetObject"
)

// Bucket is an S3 bucket of the service: private (all public access
// blocked), reached over TLS only, encrypted with SSE-KMS under the
// customer-managed key of a table (bucket key on), versioned, kept when the
// stack goes, its objects expiring after ExpireDays and a replaced or
// expired version NoncurrentDays after.
type Bucket struct {
	ID string
	// LogicalID is its CloudFormation logical id in both templates.
	LogicalID string
	// EnvVar holds its name in the environment of the functions granted it.
	EnvVar string
	// KeyOfTable is the schema table (with CustomerKey) whose key encrypts
	// the bucket's objects.
	KeyOfTable     string
	ExpireDays     int
	NoncurrentDays int
	Description    string
}

// BucketEvidence keeps the providers' answers too large for their evidence
// item (README, Evidence).
const BucketEvidence = "evidence"

// Buckets lists every bucket of the service.
func Buckets() []Bucket {
	return []Bucket{{
		ID: BucketEvidence, LogicalID: "EvidenceBucket", EnvVar: "EVIDENCE_BUCKET",
		// The evidence table's own key: one key, one key policy and one
		// CloudTrail trail for a check's evidence wherever it is kept.
		KeyOfTable: schema.Evidence,
		// At least as long as the evidence item's TTL (domain.EvidenceExpiry).
		ExpireDays: domain.EvidenceRetentionDays,
		// A version replaced (a retried write: the same bytes; or bytes
		// changed behind the service's back) or expired is kept a year, time
		// to find and restore a tampered body, then goes.
		NoncurrentDays: 365,
		Description:    "the providers' answers over 350 KB (objects evidence/<account>/<check>/<sha256>)",
	}}
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

// ObjectGrant allows actions on a bucket's objects (<bucket arn>/*), and
// with them the use of the bucket's key that S3 makes as the caller
// (KeyActions): S3 calls KMS with the caller's credentials.
type ObjectGrant struct {
	Bucket  string
	Actions []string
}

// KeyActions are the KMS actions the object actions need on an SSE-KMS
// bucket's key, and no more: a PutObject (one request, no multipart upload)
// kms:GenerateDataKey, a GetObject kms:Decrypt (Amazon S3 User Guide,
// "Using server-side encryption with AWS KMS keys (SSE-KMS)": permissions).
func (g ObjectGrant) KeyActions() []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range g.Actions {
		k := map[string]string{s3PutObject: "kms:GenerateDataKey", s3GetObject: "kms:Decrypt"}[a]
		if k == "" {
			panic(fmt.Sprintf("deploy: no KMS action known for %s", a))
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
