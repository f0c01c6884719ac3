package stacktest

import (
	"fmt"
	"sort"

	"github.com/evs-kyb/evs/infra/stack"
)

// alwaysRetained are the types kept whatever the stage: the buckets (the
// records bucket's objects are under Object Lock in compliance mode) and
// the keys their objects and the tables are encrypted with.
var alwaysRetained = map[string]bool{"AWS::S3::Bucket": true, "AWS::KMS::Key": true}

// RetentionBreaches names every stateful resource of a template (CDK's or
// SAM's, as plain values) not kept as its stage says: retain, every
// stateful resource Retain on deletion and on replacement and every table
// deletion-protected; otherwise (an ephemeral stage) the tables, secrets,
// queues and log groups go with the stack, and only the buckets and keys
// stay.
func RetentionBreaches(tmpl map[string]any, retain bool) []string {
	resources, _ := tmpl["Resources"].(map[string]any)
	stateful := stack.StatefulTypes()
	var out []string
	for id, r := range resources {
		res, _ := r.(map[string]any)
		typ, _ := res["Type"].(string)
		if !stateful[typ] {
			continue
		}
		want := "Delete"
		if retain || alwaysRetained[typ] {
			want = "Retain"
		}
		for _, attr := range []string{"DeletionPolicy", "UpdateReplacePolicy"} {
			if got := res[attr]; got != want {
				out = append(out, fmt.Sprintf("%s (%s): %s %v, want %s", id, typ, attr, got, want))
			}
		}
		if typ == "AWS::DynamoDB::Table" {
			props, _ := res["Properties"].(map[string]any)
			if got, _ := props["DeletionProtectionEnabled"].(bool); got != retain {
				out = append(out, fmt.Sprintf("%s: DeletionProtectionEnabled %v, want %v", id, got, retain))
			}
		}
	}
	sort.Strings(out)
	return out
}
