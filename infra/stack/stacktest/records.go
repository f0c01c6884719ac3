package stacktest

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/evs-kyb/evs/infra/stack"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// The records bucket's rules, held against a whole CloudFormation template
// (the CDK stack's JSON, or template.yaml decoded with its short intrinsics
// in their JSON forms) by RecordsBreaches.

// RecordsForbiddenActions no role may hold on the records bucket, nor an
// action pattern that matches one (s3:*, s3:Delete*, s3:Put*, *): no
// delete of an object or a version, no retention bypassed, no change to
// the bucket's lock or lifecycle.
func RecordsForbiddenActions() []string {
	return []string{"s3:DeleteObject*", "s3:BypassGovernanceRetention",
		"s3:PutBucketObjectLockConfiguration", "s3:PutLifecycleConfiguration"}
}

// LegalHoldAction is the action only the admin function's role may hold on
// the records bucket.
const LegalHoldAction = "s3:PutObjectLegalHold"

// DatedPutActions name a version's lock and its lifecycle tag at a put:
// only the roles that write records (DatedPutHolders) may hold them on the
// records bucket (in compliance mode a date only moves later, and the
// bucket's policy refuses another mode or a date past the longest rule's;
// a tag can make the lifecycle hide a version early, never delete one
// before its date).
func DatedPutActions() []string { return []string{"s3:PutObjectRetention", "s3:PutObjectTagging"} }

// DatedPutHolders are the functions that write the records bucket.
func DatedPutHolders() []string { return []string{"audit-export", stack.AdminFunction} }

// KeyForbiddenActions no role may hold on any key: no key deleted or
// disabled, which would make what it encrypts unreadable.
func KeyForbiddenActions() []string { return []string{"kms:ScheduleKeyDeletion", "kms:DisableKey"} }

// harmlessManagedPolicies are the AWS managed policies a role of either
// template may have (CDK's API Gateway logging role; SAM adds the
// functions' own), none of which grants anything in S3 or KMS.
var harmlessManagedPolicies = []string{"AmazonAPIGatewayPushToCloudWatchLogs", "AWSLambdaBasicExecutionRole",
	"AWSLambdaDynamoDBExecutionRole", "AWSLambdaSQSQueueExecutionRole", "AWSXrayWriteOnlyAccess", "AWSXRayDaemonWriteAccess"}

// RecordsBreaches lists every way the template breaks the records bucket's
// rules: a role holding a forbidden action (or a pattern matching one) on
// the records bucket or on a resource that may be it, a role other than
// the admin function's holding legal holds, one other than
// DatedPutHolders' naming a lock or a tag, a role holding a forbidden KMS
// action on any resource, a policy it cannot read (NotAction and
// NotResource count as "*"); the bucket not created with Object Lock, its
// default retention other than COMPLIANCE for
// domain.RecordsDefaultLockDays, not versioned, not private, not encrypted
// with its own key, with a lifecycle other than the catalogue's (a version
// expiring by its tag once its lock ended, replaced ones a day later),
// without its TLS-only policy or its lock guards, or not retained; a KMS
// key not retained, the bucket's key not rotated, or its policy not
// denying deploy.KeyGuardedActions to all but a named break-glass role
// (BreakGlassRoleOf).
func RecordsBreaches(tmpl map[string]any) []string {
	res, _ := tmpl["Resources"].(map[string]any)
	b := deploy.MustBucket(deploy.BucketRecords)
	admin := deploy.MustFunction(stack.AdminFunction).LogicalID + "Role"
	dating := map[string]bool{}
	for _, f := range DatedPutHolders() {
		dating[deploy.MustFunction(f).LogicalID+"Role"] = true
	}
	var out []string
	for _, p := range rolePolicies(res) {
		if p.unreadable != "" {
			out = append(out, fmt.Sprintf("%s: %s", p.holder, p.unreadable))
			continue
		}
		for _, st := range p.statements {
			st, _ := st.(map[string]any)
			out = append(out, statementBreaches(res, b, admin, p.holder, st)...)
			out = append(out, datedPutBreaches(res, b, dating, p.holder, st)...)
		}
	}
	out = append(out, bucketBreaches(res, b)...)
	return append(out, keyBreaches(tmpl, res, b)...)
}

// datedPutBreaches lists the lock and tag actions a statement of holder's
// allows on the records bucket unless holder writes records.
func datedPutBreaches(res map[string]any, b deploy.Bucket, dating map[string]bool, holder string, st map[string]any) []string {
	if st["Effect"] != "Allow" || dating[holder] {
		return nil
	}
	actions, resources := listOf(st["Action"]), listOf(st["Resource"])
	if _, ok := st["NotAction"]; ok {
		actions = []string{"*"}
	}
	if _, ok := st["NotResource"]; ok {
		resources = []string{"*"}
	}
	if !slices.ContainsFunc(resources, func(r string) bool { return mayBeBucket(res, b, r) }) {
		return nil
	}
	var out []string
	for _, a := range actions {
		for _, dated := range DatedPutActions() {
			if globsOverlap(a, dated) {
				out = append(out, fmt.Sprintf("%s may %s (%s) on the records bucket: only %v may", holder, a, dated, DatedPutHolders()))
			}
		}
	}
	return out
}

// statementBreaches lists what one statement of holder's policy allows
// that it may not: a forbidden KMS action anywhere, a forbidden action on
// the records bucket, legal holds unless holder is admin.
func statementBreaches(res map[string]any, b deploy.Bucket, admin, holder string, st map[string]any) []string {
	if st["Effect"] != "Allow" {
		return nil // a Deny only takes away
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	actions, resources := listOf(st["Action"]), listOf(st["Resource"])
	if _, ok := st["NotAction"]; ok {
		actions = []string{"*"}
	}
	if _, ok := st["NotResource"]; ok {
		resources = []string{"*"}
	}
	for _, a := range actions {
		for _, no := range KeyForbiddenActions() {
			if globsOverlap(a, no) {
				add("%s may %s (%s) on %v", holder, a, no, resources)
			}
		}
		if !slices.ContainsFunc(resources, func(r string) bool { return mayBeBucket(res, b, r) }) {
			continue
		}
		for _, no := range RecordsForbiddenActions() {
			if globsOverlap(a, no) {
				add("%s may %s (%s) on the records bucket (%v)", holder, a, no, resources)
			}
		}
		if globsOverlap(a, LegalHoldAction) && holder != admin {
			add("%s may %s (legal holds) on the records bucket: only %s may", holder, a, admin)
		}
	}
	return out
}

// bucketBreaches lists how the records bucket differs from what it must
// be: locked, versioned, private, encrypted with its own key, expiring as
// domain says, TLS only, retained.
func bucketBreaches(res map[string]any, b deploy.Bucket) []string {
	var out []string
	bucket, _ := res[b.LogicalID].(map[string]any)
	props, _ := bucket["Properties"].(map[string]any)
	lock, _ := props["ObjectLockConfiguration"].(map[string]any)
	rule, _ := lock["Rule"].(map[string]any)
	retention, _ := rule["DefaultRetention"].(map[string]any)
	versioning, _ := props["VersioningConfiguration"].(map[string]any)
	block, _ := props["PublicAccessBlockConfiguration"].(map[string]any)
	sse := first(dig(props, "BucketEncryption", "ServerSideEncryptionConfiguration"))
	byDefault, _ := sse["ServerSideEncryptionByDefault"].(map[string]any)
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"type", bucket["Type"], "AWS::S3::Bucket"},
		{"DeletionPolicy", bucket["DeletionPolicy"], "Retain"},
		{"UpdateReplacePolicy", bucket["UpdateReplacePolicy"], "Retain"},
		{"ObjectLockEnabled", props["ObjectLockEnabled"], true},
		{"ObjectLockConfiguration.ObjectLockEnabled", lock["ObjectLockEnabled"], "Enabled"},
		{"default retention mode", retention["Mode"], "COMPLIANCE"},
		{"default retention days", retention["Days"], domain.RecordsDefaultLockDays},
		{"default retention years", retention["Years"], nil},
		{"versioning", versioning["Status"], "Enabled"},
		{"BlockPublicAcls", block["BlockPublicAcls"], true},
		{"BlockPublicPolicy", block["BlockPublicPolicy"], true},
		{"IgnorePublicAcls", block["IgnorePublicAcls"], true},
		{"RestrictPublicBuckets", block["RestrictPublicBuckets"], true},
		{"SSE algorithm", byDefault["SSEAlgorithm"], "aws:kms"},
		{"SSE key", render(byDefault["KMSMasterKeyID"]), "${" + stack.BucketKeyLogicalID(b) + ".Arn}"},
		{"bucket key", sse["BucketKeyEnabled"], true},
		{"lifecycle rules", props["LifecycleConfiguration"], map[string]any{"Rules": recordsLifecycle(b)}},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			out = append(out, fmt.Sprintf("records bucket %s: %v, want %v", c.what, c.got, c.want))
		}
	}
	if !tlsOnly(res, b) {
		out = append(out, "records bucket: no policy denies every request not made over TLS")
	}
	for _, g := range stack.LockGuards(b) {
		if !lockGuarded(res, b, g) {
			out = append(out, fmt.Sprintf("records bucket: no policy statement %s denies every put of a lock it forbids (%v)", g.Sid, g.Condition))
		}
	}
	return out
}

// recordsLifecycle is the lifecycle the records bucket must have, as both
// templates write it: replaced versions deleted a day later, then a rule
// per tag value.
func recordsLifecycle(b deploy.Bucket) []any {
	rules := []any{map[string]any{"Id": deploy.LifecycleRuleID, "Status": "Enabled",
		"NoncurrentVersionExpiration": map[string]any{"NoncurrentDays": domain.RecordsNoncurrentDays}}}
	for _, e := range b.ExpireByTag {
		rules = append(rules, map[string]any{"Id": e.RuleID(), "Status": "Enabled", "ExpirationInDays": e.Days,
			"TagFilters": []any{map[string]any{"Key": e.Key, "Value": e.Value}}})
	}
	return rules
}

// lockGuarded tells whether the bucket's policy has the guard: a Deny of
// its actions on the bucket's objects to everyone, on its condition.
func lockGuarded(res map[string]any, b deploy.Bucket, g stack.LockGuard) bool {
	for _, st := range bucketStatements(res, b) {
		if st["Sid"] != g.Sid || st["Effect"] != "Deny" || principalOf(st) != "*" ||
			!slices.Equal(listOf(st["Resource"]), []string{"${" + b.LogicalID + ".Arn}/*"}) {
			continue
		}
		if fmt.Sprint(listOf(st["Action"])) == fmt.Sprint(stack.LockGuardActions()) && fmt.Sprint(st["Condition"]) == fmt.Sprint(g.Condition) {
			return true
		}
	}
	return false
}

// keyBreaches lists a records bucket key that is not rotated, or whose
// policy does not keep deploy.KeyGuardedActions to a break-glass role, and
// any KMS key that is not retained.
func keyBreaches(tmpl, res map[string]any, b deploy.Bucket) []string {
	var out []string
	key, _ := res[stack.BucketKeyLogicalID(b)].(map[string]any)
	if rotation := dig(key, "Properties", "EnableKeyRotation"); key["Type"] != "AWS::KMS::Key" || rotation != true {
		out = append(out, fmt.Sprintf("records bucket key %s: type %v, rotation %v", stack.BucketKeyLogicalID(b), key["Type"], rotation))
	}
	if role := BreakGlassRoleOf(tmpl); role == "" || strings.ContainsAny(role, "*?") {
		out = append(out, fmt.Sprintf("records bucket key %s: its policy lets %q do %v: want a Deny to all but one named role",
			stack.BucketKeyLogicalID(b), role, deploy.KeyGuardedActions()))
	}
	if dig(key, "Properties", "BypassPolicyLockoutSafetyCheck") != true {
		out = append(out, "records bucket key: KMS would refuse a policy its creator cannot change: BypassPolicyLockoutSafetyCheck not set")
	}
	for _, id := range sortedIDs(res) {
		r, _ := res[id].(map[string]any)
		if r["Type"] == "AWS::KMS::Key" && (r["DeletionPolicy"] != "Retain" || r["UpdateReplacePolicy"] != "Retain") {
			out = append(out, fmt.Sprintf("key %s: DeletionPolicy %v, UpdateReplacePolicy %v, want Retain", id, r["DeletionPolicy"], r["UpdateReplacePolicy"]))
		}
	}
	return out
}

// breakGlassARN is the role ARN the key guard names, up to the role's name.
const breakGlassARN = "arn:${AWS::Partition}:iam::${AWS::AccountId}:role/"

// BreakGlassRoleOf is the one role the records bucket key's policy lets do
// deploy.KeyGuardedActions, as the template names it (a name, or
// "${Parameter}" for a parameter's value): its statement KeyGuardSid denies
// them all to everyone else, on the key, by the principal's ARN. "" when
// the policy does not.
func BreakGlassRoleOf(tmpl map[string]any) string {
	res, _ := tmpl["Resources"].(map[string]any)
	b := deploy.MustBucket(deploy.BucketRecords)
	for _, st := range asList(dig(res[stack.BucketKeyLogicalID(b)], "Properties", "KeyPolicy", "Statement")) {
		st, _ := st.(map[string]any)
		if st["Sid"] != stack.KeyGuardSid || st["Effect"] != "Deny" || principalOf(st) != "*" || render(st["Resource"]) != "*" {
			continue
		}
		actions := listOf(st["Action"])
		if !slices.ContainsFunc(deploy.KeyGuardedActions(), func(a string) bool { return !slices.Contains(actions, a) }) {
			cond, _ := dig(st, "Condition", "ArnNotEquals").(map[string]any)
			if arn := render(cond["aws:PrincipalArn"]); len(cond) == 1 && strings.HasPrefix(arn, breakGlassARN) {
				return strings.TrimPrefix(arn, breakGlassARN)
			}
		}
	}
	return ""
}

// rolePolicy is what one principal's policy allows, by its holder (a role
// of the template, or the policy's own id when it names none), or why it
// cannot be read.
type rolePolicy struct {
	holder     string
	statements []any
	unreadable string
}

// rolePolicies gathers every identity policy of the template: AWS::IAM
// policies, managed policies and roles' inline policies, and the Policies
// of SAM's functions and state machines (SAM names their roles
// <LogicalId>Role).
func rolePolicies(res map[string]any) []rolePolicy {
	var out []rolePolicy
	document := func(holders []string, id string, doc any) {
		if len(holders) == 0 {
			holders = []string{id}
		}
		st := dig(doc, "Statement")
		statements, ok := st.([]any)
		if !ok && st != nil {
			statements = []any{st}
		}
		for _, h := range holders {
			out = append(out, rolePolicy{holder: h, statements: statements})
		}
	}
	managed := func(holder string, arns any) {
		for _, a := range listOf(arns) {
			if !slices.ContainsFunc(harmlessManagedPolicies, func(name string) bool { return strings.HasSuffix(a, "/"+name) || a == name }) {
				out = append(out, rolePolicy{holder: holder, unreadable: "managed policy " + a + ", whose actions this check cannot see"})
			}
		}
	}
	for _, id := range sortedIDs(res) {
		r, _ := res[id].(map[string]any)
		props, _ := r["Properties"].(map[string]any)
		switch r["Type"] {
		case "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy":
			var holders []string
			for _, role := range listOf(props["Roles"]) {
				holders = append(holders, strings.TrimSuffix(strings.TrimPrefix(role, "${"), "}"))
			}
			document(holders, id, props["PolicyDocument"])
		case "AWS::IAM::Role":
			for _, p := range asList(props["Policies"]) {
				document([]string{id}, id, dig(p, "PolicyDocument"))
			}
			managed(id, props["ManagedPolicyArns"])
		case "AWS::Serverless::Function", "AWS::Serverless::StateMachine":
			for _, p := range asList(props["Policies"]) {
				switch p := p.(type) {
				case string:
					managed(id+"Role", p)
				case map[string]any:
					if _, ok := p["Statement"]; ok && (len(p) == 1 || len(p) == 2 && p["Version"] != nil) {
						document([]string{id + "Role"}, id, p)
					} else {
						out = append(out, rolePolicy{holder: id + "Role", unreadable: fmt.Sprintf("policy %v, whose actions this check cannot see", p)})
					}
				}
			}
		}
	}
	return out
}

// mayBeBucket tells whether a statement's resource (rendered) may be the
// records bucket or its objects: it names the bucket, or it names no other
// resource of the template and matches an S3 ARN once parameters and
// pseudo parameters are taken as anything.
func mayBeBucket(res map[string]any, b deploy.Bucket, r string) bool {
	named := false
	for _, m := range subRef.FindAllStringSubmatch(r, -1) {
		if m[1] == b.LogicalID {
			return true
		}
		_, isResource := res[m[1]]
		named = named || isResource
	}
	return !named && globsOverlap(subRef.ReplaceAllString(r, "*"), "arn:*:s3:::*")
}

var subRef = regexp.MustCompile(`\$\{([A-Za-z0-9:]+)(?:\.[A-Za-z0-9.]+)?\}`)

// tlsOnly tells whether a bucket policy on the bucket denies everyone
// every S3 action on the bucket and its objects when the request is not
// made over TLS.
func tlsOnly(res map[string]any, b deploy.Bucket) bool {
	for _, st := range bucketStatements(res, b) {
		insecure := fmt.Sprint(dig(st, "Condition", "Bool", "aws:SecureTransport"))
		arn := "${" + b.LogicalID + ".Arn}"
		if st["Effect"] == "Deny" && principalOf(st) == "*" && slices.Contains(listOf(st["Action"]), "s3:*") && insecure == "false" &&
			slices.Contains(listOf(st["Resource"]), arn) && slices.Contains(listOf(st["Resource"]), arn+"/*") {
			return true
		}
	}
	return false
}

// bucketStatements are the statements of every bucket policy on b.
func bucketStatements(res map[string]any, b deploy.Bucket) []map[string]any {
	var out []map[string]any
	for _, r := range res {
		r, _ := r.(map[string]any)
		props, _ := r["Properties"].(map[string]any)
		if r["Type"] != "AWS::S3::BucketPolicy" || render(props["Bucket"]) != "${"+b.LogicalID+"}" {
			continue
		}
		for _, st := range asList(dig(props["PolicyDocument"], "Statement")) {
			if st, ok := st.(map[string]any); ok {
				out = append(out, st)
			}
		}
	}
	return out
}

// principalOf is a statement's principal, rendered ("*" for everyone).
func principalOf(st map[string]any) string {
	if p, ok := st["Principal"].(map[string]any); ok {
		return render(p["AWS"])
	}
	return render(st["Principal"])
}

// render writes a value as Fn::Sub would (Render), a literal as it is.
func render(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Render(v, func(v any) string { return fmt.Sprint(v) })
}

// Render writes an intrinsic as Fn::Sub would: "${X}" for a Ref,
// "${X.Attr}" for a GetAtt, a Sub's text, a Join's parts joined; anything
// else as other says. The CDK and SAM templates' checks compare through it.
func Render(v any, other func(any) string) string {
	if x, ok := v.(map[string]any); ok {
		if r, ok := x["Ref"]; ok {
			return fmt.Sprintf("${%v}", r)
		}
		if ga, ok := x["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			return fmt.Sprintf("${%v.%v}", ga[0], ga[1])
		}
		if s, ok := x["Fn::Sub"].(string); ok {
			return s
		}
		if s, ok := x["Fn::Sub"].([]any); ok && len(s) > 0 {
			return fmt.Sprint(s[0])
		}
		if j, ok := x["Fn::Join"].([]any); ok && len(j) == 2 {
			var parts []string
			for _, p := range asList(j[1]) {
				parts = append(parts, Render(p, other))
			}
			return strings.Join(parts, fmt.Sprint(j[0]))
		}
	}
	return other(v)
}

// listOf is a string or a list of values, rendered.
func listOf(v any) []string {
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		return []string{render(v)}
	}
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = render(x)
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// dig follows keys through nested maps; nil where one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// first is the first element of a list, as a map.
func first(v any) map[string]any {
	l := asList(v)
	if len(l) == 0 {
		return nil
	}
	m, _ := l[0].(map[string]any)
	return m
}

func sortedIDs(res map[string]any) []string {
	out := make([]string, 0, len(res))
	for id := range res {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// globsOverlap tells whether two IAM patterns (* any run of characters, ?
// any one; case-insensitive, as IAM compares actions) match a common
// string: a granted pattern implies a forbidden action exactly when they
// overlap.
func globsOverlap(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	memo := map[[2]int]bool{}
	var overlap func(i, j int) bool
	overlap = func(i, j int) bool {
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var v bool
		switch {
		case i == len(a) && j == len(b):
			v = true
		case i < len(a) && a[i] == '*':
			// The star matches nothing, or takes b's next character.
			v = overlap(i+1, j) || j < len(b) && overlap(i, j+1)
		case j < len(b) && b[j] == '*':
			v = overlap(i, j+1) || i < len(a) && overlap(i+1, j)
		case i == len(a) || j == len(b):
			v = false
		default:
			v = (a[i] == b[j] || a[i] == '?' || b[j] == '?') && overlap(i+1, j+1)
		}
		memo[key] = v
		return v
	}
	return overlap(0, 0)
}
