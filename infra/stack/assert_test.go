package stack_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// Helpers over the CDK assertions module: its matchers say what a resource
// must look like, and its failures (thrown by jsii, a panic in Go) become
// the test's errors, naming what was checked.

type m = map[string]any

// like matches an object having at least these keys (values matched deeply,
// objects within again as ObjectLike).
func like(p m) assertions.Matcher { return assertions.Match_ObjectLike(&p) }

// exactly matches an object with exactly these keys.
func exactly(p m) assertions.Matcher { return assertions.Match_ObjectEquals(&p) }

// arrayOf matches an array of exactly these items, in order.
func arrayOf(items ...any) assertions.Matcher { return assertions.Match_ArrayEquals(&items) }

// arrayWith matches an array holding these items (in order, among others).
func arrayWith(items ...any) assertions.Matcher { return assertions.Match_ArrayWith(&items) }

// absent matches a key that is not there.
func absent() assertions.Matcher { return assertions.Match_Absent() }

// refOf and arnOf are CloudFormation's Ref and Fn::GetAtt <id>.Arn.
func refOf(id string) m        { return m{"Ref": id} }
func getAtt(id, attr string) m { return m{"Fn::GetAtt": []any{id, attr}} }
func arnOf(id string) m        { return getAtt(id, "Arn") }

// check runs one assertion, reporting its failure as t's error.
func check(t *testing.T, what string, assertion func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	assertion()
}

// hasResource: the template has resource id, of type typ, its entry
// (Properties, DeletionPolicy, …) matching entry.
func hasResource(t *testing.T, tmpl assertions.Template, id, typ string, entry m) {
	t.Helper()
	want := m{"Type": typ}
	for k, v := range entry {
		want[k] = v
	}
	check(t, id, func() { tmpl.TemplateMatches(like(m{"Resources": like(m{id: like(want)})})) })
}

// hasProps: resource id of type typ has at least these properties.
func hasProps(t *testing.T, tmpl assertions.Template, id, typ string, props m) {
	t.Helper()
	hasResource(t, tmpl, id, typ, m{"Properties": like(props)})
}

// countIs: the template has n resources of type typ.
func countIs(t *testing.T, tmpl assertions.Template, typ string, n int) {
	t.Helper()
	check(t, fmt.Sprintf("%d of %s", n, typ), func() { tmpl.ResourceCountIs(jsii.String(typ), jsii.Number(float64(n))) })
}

// hasOutput: the template has output id matching props.
func hasOutput(t *testing.T, tmpl assertions.Template, id string, props m) {
	t.Helper()
	check(t, "output "+id, func() { tmpl.HasOutput(jsii.String(id), like(props)) })
}

// capture captures property prop of resource id (FindResources narrows the
// type's resources to the one with that id's entry).
func capture(t *testing.T, tmpl assertions.Template, id, typ, prop string, c assertions.Capture) {
	t.Helper()
	check(t, id+" "+prop, func() {
		found := *tmpl.FindResources(jsii.String(typ), like(m{"Properties": like(m{prop: assertions.Match_AnyValue()})}))
		r, ok := found[id]
		if !ok {
			panic(fmt.Sprintf("no %s %s with %s", typ, id, prop))
		}
		// Finished records the captures of a successful match.
		res := like(m{prop: c}).Test((*r)["Properties"]).Finished()
		if *res.HasFailed() {
			panic(*res.RenderMismatch())
		}
	})
}

// stringLike matches a string against a regular expression.
func stringLike(re string) assertions.Matcher {
	return assertions.Match_StringLikeRegexp(jsii.String(re))
}

// jsonOf matches a string holding JSON that m matches.
func jsonOf(m any) assertions.Matcher { return assertions.Match_SerializedJson(m) }

// find returns the resources of type typ whose properties are like props
// (every one with nil), each entry by logical id.
func find(t *testing.T, tmpl assertions.Template, typ string, props m) map[string]m {
	t.Helper()
	var entry assertions.Matcher
	if props != nil {
		entry = like(m{"Properties": like(props)})
	}
	out := map[string]m{}
	check(t, "find "+typ, func() {
		for id, r := range *tmpl.FindResources(jsii.String(typ), entry) {
			out[id] = *r
		}
	})
	return out
}

// matches checks a value found in the template against a matcher.
func matches(t *testing.T, what string, v any, matcher assertions.Matcher) {
	t.Helper()
	check(t, what, func() {
		if res := matcher.Test(v).Finished(); *res.HasFailed() {
			panic(*res.RenderMismatch())
		}
	})
}

// listOf matches a list of exactly these strings, in order.
func listOf(s ...string) assertions.Matcher {
	items := make([]any, len(s))
	for i, x := range s {
		items[i] = x
	}
	return arrayOf(items...)
}

// isLike tells whether a value matches, reporting nothing.
func isLike(v any, matcher assertions.Matcher) bool {
	return !*matcher.Test(v).Finished().HasFailed()
}

// onlyID is the logical id of the one resource of type typ.
func onlyID(t *testing.T, tmpl assertions.Template, typ string) string {
	t.Helper()
	found := find(t, tmpl, typ, nil)
	if len(found) != 1 {
		t.Fatalf("%d resources of type %s, want 1", len(found), typ)
	}
	for id := range found {
		return id
	}
	return ""
}
