package stacktest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestGlobsOverlap(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"s3:DeleteObject", "s3:DeleteObject*", true},
		{"s3:DeleteObjectVersion", "s3:DeleteObject*", true},
		{"s3:deleteobjecttagging", "s3:DeleteObject*", true},
		{"s3:*", "s3:PutObjectRetention", true},
		{"s3:Put*", "s3:PutLifecycleConfiguration", true},
		{"s3:Delete*", "s3:DeleteObject*", true},
		{"*", "kms:DisableKey", true},
		{"kms:Disable*", "kms:DisableKey", true},
		{"kms:*Key*", "kms:ScheduleKeyDeletion", true},
		{"s3:Put?bjectRetention", "s3:PutObjectRetention", true},
		{"s3:PutObject", "s3:PutObjectRetention", false},
		{"s3:PutObjectLegalHold", "s3:PutObjectRetention", false},
		{"s3:GetObject*", "s3:PutObjectRetention", false},
		{"kms:Decrypt", "kms:DisableKey", false},
		{"kms:Disable", "kms:DisableKey", false},
		{"arn:aws:sqs:us-east-1:123456789012:q", "arn:*:s3:::*", false},
		// Conservative: a string may match both (arn:x:sqs:y:s3:::z).
		{"arn:*:sqs:*", "arn:*:s3:::*", true},
		{"*", "arn:*:s3:::*", true},
	}
	for _, tc := range tests {
		if got := globsOverlap(tc.a, tc.b); got != tc.want {
			t.Errorf("globsOverlap(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := globsOverlap(tc.b, tc.a); got != tc.want {
			t.Errorf("globsOverlap(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

// goodTemplate is a template that keeps every rule: the bucket, its key
// and TLS-only policy, and the two roles that may use it, in the CDK
// stack's forms (an IAM policy) and SAM's (a function's Policies).
const goodTemplate = `{"Resources": {
  "RecordsBucketKey": {"Type": "AWS::KMS::Key", "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
    "Properties": {"EnableKeyRotation": true}},
  "RecordsBucket": {"Type": "AWS::S3::Bucket", "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
    "Properties": {
      "ObjectLockEnabled": true,
      "ObjectLockConfiguration": {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": 90}}},
      "LifecycleConfiguration": {"Rules": [{"ExpirationInDays": 120, "Id": "ExpireAfterRetention", "NoncurrentVersionExpiration": {"NoncurrentDays": 1}, "Status": "Enabled"}]},
      "VersioningConfiguration": {"Status": "Enabled"},
      "PublicAccessBlockConfiguration": {"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true},
      "BucketEncryption": {"ServerSideEncryptionConfiguration": [{"BucketKeyEnabled": true,
        "ServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": {"Fn::GetAtt": ["RecordsBucketKey", "Arn"]}}}]}}},
  "RecordsBucketPolicy": {"Type": "AWS::S3::BucketPolicy", "Properties": {"Bucket": {"Ref": "RecordsBucket"},
    "PolicyDocument": {"Statement": [{"Effect": "Deny", "Principal": {"AWS": "*"}, "Action": "s3:*",
      "Condition": {"Bool": {"aws:SecureTransport": "false"}},
      "Resource": [{"Fn::GetAtt": ["RecordsBucket", "Arn"]}, {"Fn::Join": ["", [{"Fn::GetAtt": ["RecordsBucket", "Arn"]}, "/*"]]}]}]}}},
  "AdminFunctionRole": {"Type": "AWS::IAM::Role", "Properties": {}},
  "AdminFunctionRoleDefaultPolicy": {"Type": "AWS::IAM::Policy", "Properties": {"Roles": [{"Ref": "AdminFunctionRole"}],
    "PolicyDocument": {"Statement": [
      {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObjectLegalHold"], "Resource": {"Fn::Join": ["", [{"Fn::GetAtt": ["RecordsBucket", "Arn"]}, "/*"]]}},
      {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": {"Fn::GetAtt": ["RecordsBucketKey", "Arn"]}},
      {"Effect": "Allow", "Action": ["xray:PutTraceSegments"], "Resource": "*"}]}}},
  "AuditExportFunction": {"Type": "AWS::Serverless::Function", "Properties": {"Policies": [{"Statement": [
    {"Effect": "Allow", "Action": ["s3:PutObject", "s3:GetObjectVersion"], "Resource": [{"Fn::Sub": "${RecordsBucket.Arn}/*"}]},
    {"Effect": "Allow", "Action": ["s3:DeleteObject"], "Resource": [{"Fn::Sub": "${EvidenceBucket.Arn}/*"}]}]}]}},
  "EvidenceBucket": {"Type": "AWS::S3::Bucket"}
}}`

// TestRecordsBreaches: the good template breaks no rule, and each change
// that breaks one is named.
func TestRecordsBreaches(t *testing.T) {
	tests := []struct {
		name   string
		change func(res map[string]any)
		want   string // in a breach; "" for none
	}{
		{name: "good", change: func(map[string]any) {}},
		{name: "delete on the objects", want: "AuditExportFunctionRole may s3:DeleteObjectVersion", change: func(res map[string]any) {
			addStatement(res, "AuditExportFunction", `{"Effect": "Allow", "Action": "s3:DeleteObjectVersion", "Resource": {"Fn::Sub": "${RecordsBucket.Arn}/*"}}`)
		}},
		{name: "s3:Put* on everything", want: "AuditExportFunctionRole may s3:Put* (s3:PutObjectRetention)", change: func(res map[string]any) {
			addStatement(res, "AuditExportFunction", `{"Effect": "Allow", "Action": "s3:Put*", "Resource": "*"}`)
		}},
		{name: "NotAction", want: "may * (s3:BypassGovernanceRetention)", change: func(res map[string]any) {
			addStatement(res, "AuditExportFunction", `{"Effect": "Allow", "NotAction": "sqs:*", "Resource": {"Fn::GetAtt": ["RecordsBucket", "Arn"]}}`)
		}},
		{name: "lifecycle on any S3 ARN", want: "s3:PutLifecycleConfiguration", change: func(res map[string]any) {
			addStatement(res, "AuditExportFunction", `{"Effect": "Allow", "Action": "s3:PutLifecycleConfiguration", "Resource": {"Fn::Sub": "arn:${AWS::Partition}:s3:::*"}}`)
		}},
		{name: "legal hold not by admin", want: "AuditExportFunctionRole may s3:PutObjectLegalHold (legal holds)", change: func(res map[string]any) {
			addStatement(res, "AuditExportFunction", `{"Effect": "Allow", "Action": "s3:PutObjectLegalHold", "Resource": {"Fn::Sub": "${RecordsBucket.Arn}/*"}}`)
		}},
		{name: "key deletion", want: "AdminFunctionRole may kms:* (kms:ScheduleKeyDeletion)", change: func(res map[string]any) {
			addStatement(res, "AdminFunctionRoleDefaultPolicy", `{"Effect": "Allow", "Action": "kms:*", "Resource": {"Fn::GetAtt": ["OtherKey", "Arn"]}}`)
		}},
		{name: "unknown managed policy", want: "managed policy arn:aws:iam::aws:policy/AdministratorAccess", change: func(res map[string]any) {
			props(res, "AdminFunctionRole")["ManagedPolicyArns"] = []any{"arn:aws:iam::aws:policy/AdministratorAccess"}
		}},
		{name: "governance mode", want: "default retention mode: GOVERNANCE", change: func(res map[string]any) {
			props(res, "RecordsBucket")["ObjectLockConfiguration"].(map[string]any)["Rule"].(map[string]any)["DefaultRetention"].(map[string]any)["Mode"] = "GOVERNANCE"
		}},
		{name: "no object lock", want: "ObjectLockEnabled: <nil>", change: func(res map[string]any) {
			delete(props(res, "RecordsBucket"), "ObjectLockEnabled")
		}},
		{name: "no lifecycle rule", want: "lifecycle rules", change: func(res map[string]any) {
			props(res, "RecordsBucket")["LifecycleConfiguration"] = map[string]any{"Rules": []any{}}
		}},
		{name: "an unrenewed version kept past its lock", want: "lifecycle rules", change: func(res map[string]any) {
			props(res, "RecordsBucket")["LifecycleConfiguration"].(map[string]any)["Rules"].([]any)[0].(map[string]any)["ExpirationInDays"] = 3650
		}},
		{name: "not versioned", want: "versioning", change: func(res map[string]any) {
			delete(props(res, "RecordsBucket"), "VersioningConfiguration")
		}},
		{name: "public", want: "RestrictPublicBuckets", change: func(res map[string]any) {
			props(res, "RecordsBucket")["PublicAccessBlockConfiguration"].(map[string]any)["RestrictPublicBuckets"] = false
		}},
		{name: "no TLS-only policy", want: "TLS", change: func(res map[string]any) { delete(res, "RecordsBucketPolicy") }},
		{name: "bucket deleted with the stack", want: "DeletionPolicy: Delete", change: func(res map[string]any) {
			res["RecordsBucket"].(map[string]any)["DeletionPolicy"] = "Delete"
		}},
		{name: "key replaced away", want: "key RecordsBucketKey: DeletionPolicy Retain, UpdateReplacePolicy Delete", change: func(res map[string]any) {
			res["RecordsBucketKey"].(map[string]any)["UpdateReplacePolicy"] = "Delete"
		}},
		{name: "key not rotated", want: "rotation false", change: func(res map[string]any) {
			props(res, "RecordsBucketKey")["EnableKeyRotation"] = false
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tmpl map[string]any
			if err := json.Unmarshal([]byte(goodTemplate), &tmpl); err != nil {
				t.Fatal(err)
			}
			tc.change(tmpl["Resources"].(map[string]any))
			got := RecordsBreaches(tmpl)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("breaches %q, want none", got)
			case tc.want != "" && !strings.Contains(strings.Join(got, "\n"), tc.want):
				t.Errorf("breaches %q, want one with %q", got, tc.want)
			}
		})
	}
}

func props(res map[string]any, id string) map[string]any {
	return res[id].(map[string]any)["Properties"].(map[string]any)
}

// addStatement adds a statement to an IAM policy or a SAM function's
// first policy.
func addStatement(res map[string]any, id, statement string) {
	var st any
	if err := json.Unmarshal([]byte(statement), &st); err != nil {
		panic(err)
	}
	p := props(res, id)
	doc, ok := p["PolicyDocument"].(map[string]any)
	if !ok {
		doc = p["Policies"].([]any)[0].(map[string]any)
	}
	doc["Statement"] = append(doc["Statement"].([]any), st)
}
