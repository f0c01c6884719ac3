package stacktest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/deploy"
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
    "Properties": {"EnableKeyRotation": true, "BypassPolicyLockoutSafetyCheck": true, "KeyPolicy": {"Statement": [
      {"Effect": "Allow", "Principal": {"AWS": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}}, "Action": "kms:*", "Resource": "*"},
      {"Sid": "OnlyBreakGlass", "Effect": "Deny", "Principal": {"AWS": "*"}, "Resource": "*",
        "Action": ["kms:ScheduleKeyDeletion", "kms:DisableKey", "kms:PutKeyPolicy", "kms:CreateGrant", "kms:UpdateAlias", "kms:DeleteAlias"],
        "Condition": {"ArnNotEquals": {"aws:PrincipalArn": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:role/${RecordsKeyBreakGlassRole}"}}}}]}}},
  "RecordsBucket": {"Type": "AWS::S3::Bucket", "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
    "Properties": {
      "ObjectLockEnabled": true,
      "ObjectLockConfiguration": {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": 90}}},
      "LifecycleConfiguration": {"Rules": "the catalogue's: TestRecordsBreaches"},
      "VersioningConfiguration": {"Status": "Enabled"},
      "PublicAccessBlockConfiguration": {"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true},
      "BucketEncryption": {"ServerSideEncryptionConfiguration": [{"BucketKeyEnabled": true,
        "ServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": {"Fn::GetAtt": ["RecordsBucketKey", "Arn"]}}}]}}},
  "RecordsBucketPolicy": {"Type": "AWS::S3::BucketPolicy", "Properties": {"Bucket": {"Ref": "RecordsBucket"},
    "PolicyDocument": {"Statement": [{"Effect": "Deny", "Principal": {"AWS": "*"}, "Action": "s3:*",
      "Condition": {"Bool": {"aws:SecureTransport": "false"}},
      "Resource": [{"Fn::GetAtt": ["RecordsBucket", "Arn"]}, {"Fn::Join": ["", [{"Fn::GetAtt": ["RecordsBucket", "Arn"]}, "/*"]]}]},
      {"Sid": "OnlyComplianceLocks", "Effect": "Deny", "Principal": {"AWS": "*"}, "Action": ["s3:PutObject", "s3:PutObjectRetention"],
        "Condition": {"Null": {"s3:object-lock-mode": "false"}, "StringNotEquals": {"s3:object-lock-mode": "COMPLIANCE"}},
        "Resource": {"Fn::Sub": "${RecordsBucket.Arn}/*"}},
      {"Sid": "NoLockPastTheLongestRule", "Effect": "Deny", "Principal": {"AWS": "*"}, "Action": ["s3:PutObject", "s3:PutObjectRetention"],
        "Condition": {"NumericGreaterThan": {"s3:object-lock-remaining-retention-days": "3654"}},
        "Resource": {"Fn::Sub": "${RecordsBucket.Arn}/*"}}]}}},
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
		{name: "s3:Put* on everything", want: "AuditExportFunctionRole may s3:Put* (s3:PutLifecycleConfiguration)", change: func(res map[string]any) {
			addStatement(res, "AuditExportFunction", `{"Effect": "Allow", "Action": "s3:Put*", "Resource": "*"}`)
		}},
		{name: "records writers name dates", change: func(res map[string]any) {
			addStatement(res, "AuditExportFunction", `{"Effect": "Allow", "Action": ["s3:PutObjectRetention", "s3:PutObjectTagging"], "Resource": {"Fn::Sub": "${RecordsBucket.Arn}/*"}}`)
		}},
		{name: "a date named by another role", want: "OtherFunctionRole may s3:PutObjectRetention (s3:PutObjectRetention) on the records bucket", change: func(res map[string]any) {
			res["OtherFunction"] = map[string]any{"Type": "AWS::Serverless::Function", "Properties": map[string]any{"Policies": []any{map[string]any{"Statement": []any{}}}}}
			addStatement(res, "OtherFunction", `{"Effect": "Allow", "Action": "s3:PutObjectRetention", "Resource": {"Fn::Sub": "${RecordsBucket.Arn}/*"}}`)
		}},
		{name: "a tag by another role", want: "OtherFunctionRole may s3:PutObject* (s3:PutObjectTagging)", change: func(res map[string]any) {
			res["OtherFunction"] = map[string]any{"Type": "AWS::Serverless::Function", "Properties": map[string]any{"Policies": []any{map[string]any{"Statement": []any{}}}}}
			addStatement(res, "OtherFunction", `{"Effect": "Allow", "Action": "s3:PutObject*", "Resource": "*"}`)
		}},
		{name: "a lock in another mode let through", want: "OnlyComplianceLocks", change: func(res map[string]any) {
			dropStatement(res, "RecordsBucketPolicy", "OnlyComplianceLocks")
		}},
		{name: "a lock of a century let through", want: "NoLockPastTheLongestRule", change: func(res map[string]any) {
			guard := statementOf(res, "RecordsBucketPolicy", "NoLockPastTheLongestRule")
			guard["Condition"] = map[string]any{"NumericGreaterThan": map[string]any{"s3:object-lock-remaining-retention-days": "36500"}}
		}},
		{name: "the key's guard gone", want: "want a Deny to all but one named role", change: func(res map[string]any) {
			dropStatement(res, "RecordsBucketKey", "OnlyBreakGlass")
		}},
		{name: "the key's guard lets grants through", want: "want a Deny to all but one named role", change: func(res map[string]any) {
			statementOf(res, "RecordsBucketKey", "OnlyBreakGlass")["Action"] = []any{"kms:ScheduleKeyDeletion", "kms:DisableKey", "kms:PutKeyPolicy"}
		}},
		{name: "the key's guard names any role", want: "want a Deny to all but one named role", change: func(res map[string]any) {
			statementOf(res, "RecordsBucketKey", "OnlyBreakGlass")["Condition"] = map[string]any{"ArnNotLike": map[string]any{
				"aws:PrincipalArn": map[string]any{"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:role/*"}}}
		}},
		{name: "the key's lockout left to KMS", want: "BypassPolicyLockoutSafetyCheck", change: func(res map[string]any) {
			delete(props(res, "RecordsBucketKey"), "BypassPolicyLockoutSafetyCheck")
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
		{name: "current versions expired by age", want: "lifecycle rules", change: func(res map[string]any) {
			props(res, "RecordsBucket")["LifecycleConfiguration"].(map[string]any)["Rules"].([]any)[0].(map[string]any)["ExpirationInDays"] = 120
		}},
		{name: "a five-year version kept ten", want: "lifecycle rules", change: func(res map[string]any) {
			props(res, "RecordsBucket")["LifecycleConfiguration"].(map[string]any)["Rules"].([]any)[5].(map[string]any)["ExpirationInDays"] = 3654
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
			res := tmpl["Resources"].(map[string]any)
			props(res, "RecordsBucket")["LifecycleConfiguration"] = map[string]any{"Rules": recordsLifecycle(deploy.MustBucket(deploy.BucketRecords))}
			tmpl["Parameters"] = map[string]any{"RecordsKeyBreakGlassRole": map[string]any{"Default": "evs-records-break-glass"}}
			tc.change(res)
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

// statementOf is the statement of a policy (a bucket's or a key's) with
// the Sid.
func statementOf(res map[string]any, id, sid string) map[string]any {
	for _, st := range policyStatements(res, id) {
		if st := st.(map[string]any); st["Sid"] == sid {
			return st
		}
	}
	panic("no statement " + sid + " in " + id)
}

// dropStatement removes the statement with the Sid from a policy.
func dropStatement(res map[string]any, id, sid string) {
	doc := policyDocument(res, id)
	var kept []any
	for _, st := range doc["Statement"].([]any) {
		if st.(map[string]any)["Sid"] != sid {
			kept = append(kept, st)
		}
	}
	doc["Statement"] = kept
}

func policyStatements(res map[string]any, id string) []any {
	return policyDocument(res, id)["Statement"].([]any)
}

func policyDocument(res map[string]any, id string) map[string]any {
	p := props(res, id)
	if doc, ok := p["KeyPolicy"].(map[string]any); ok {
		return doc
	}
	return p["PolicyDocument"].(map[string]any)
}
