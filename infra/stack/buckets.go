package stack

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
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
}

// Buckets holds the S3 buckets.
type Buckets struct {
	constructs.Construct
	// Buckets maps deploy.Bucket.ID to its bucket.
	Buckets map[string]awss3.Bucket
}

// NewBuckets creates one bucket per deploy.Buckets() entry, under its
// logical id (template.yaml's too): all public access blocked, ACLs off
// (bucket owner enforced), a bucket policy refusing any request not made
// over TLS, SSE-KMS with its table's customer-managed key and an S3 Bucket
// Key (S3 asks KMS for a bucket-level key now and then instead of a data key
// per object), versioning, objects expiring after ExpireDays and replaced
// or expired versions NoncurrentDays later. Always retained: it holds
// evidence that must outlive the stack (and CloudFormation cannot delete a
// bucket with objects anyway). CloudFormation names it; the functions
// granted its objects get the name in their environment.
func NewBuckets(scope constructs.Construct, id *string, props *BucketsProps) *Buckets {
	if props == nil {
		props = &BucketsProps{}
	}
	bs := &Buckets{Construct: constructs.NewConstruct(scope, id), Buckets: map[string]awss3.Bucket{}}
	for _, b := range deploy.Buckets() {
		key, ok := props.Keys[b.KeyOfTable]
		if !ok {
			panic(fmt.Sprintf("infra: bucket %s: no customer-managed key of table %q", b.ID, b.KeyOfTable))
		}
		bucket := awss3.NewBucket(bs.Construct, jsii.String(b.LogicalID), &awss3.BucketProps{
			BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
			ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
			EnforceSSL:        jsii.Bool(true),
			Encryption:        awss3.BucketEncryption_KMS,
			EncryptionKey:     key,
			BucketKeyEnabled:  jsii.Bool(true),
			Versioned:         jsii.Bool(true),
			LifecycleRules: &[]*awss3.LifecycleRule{{
				Id:                          jsii.String("ExpireAfterRetention"),
				Expiration:                  awscdk.Duration_Days(jsii.Number(float64(b.ExpireDays))),
				NoncurrentVersionExpiration: awscdk.Duration_Days(jsii.Number(float64(b.NoncurrentDays))),
			}},
			RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
		})
		bucket.Node().DefaultChild().(awss3.CfnBucket).OverrideLogicalId(jsii.String(b.LogicalID))
		if p := bucket.Policy(); p != nil {
			p.Node().DefaultChild().(awss3.CfnBucketPolicy).OverrideLogicalId(jsii.String(BucketPolicyLogicalID(b)))
		}
		bs.Buckets[b.ID] = bucket
	}
	return bs
}

// BucketPolicyLogicalID is the logical id of a bucket's policy (its
// TLS-only statement): EvidenceBucketPolicy.
func BucketPolicyLogicalID(b deploy.Bucket) string { return b.LogicalID + "Policy" }

// ObjectsSid and KeyForObjectsSid name the statements granting a bucket's
// objects and the use of its key ("EvidenceObjects", "EvidenceBucketKey").
func ObjectsSid(b deploy.Bucket) string       { return upperFirst(b.ID) + "Objects" }
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
