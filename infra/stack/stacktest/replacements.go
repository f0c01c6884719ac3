package stacktest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/evs-kyb/evs/infra/stack"
)

// The replacement guard: CloudFormation updates most properties in place,
// but a change to some makes it create a new resource and delete the old
// one — for a table, a bucket or a key, the data with it. ReplacedBy holds
// those properties (CloudFormation's "Update requires: Replacement") of
// each stateful type; Replacements compares the template of the last
// release with the current one.
var ReplacedBy = map[string][]string{
	"AWS::DynamoDB::Table":        {"TableName", "KeySchema", "LocalSecondaryIndexes"},
	"AWS::S3::Bucket":             {"BucketName", "ObjectLockEnabled"},
	"AWS::KMS::Key":               {"KeySpec", "KeyUsage", "MultiRegion"},
	"AWS::SQS::Queue":             {"QueueName", "FifoQueue"},
	"AWS::SecretsManager::Secret": {"Name"},
	"AWS::Logs::LogGroup":         {"LogGroupName"},
}

// ReleasedTemplate is where the template of the last release is kept: the
// production stack as synthesized (ProdProps), written by
// `make release-template` when a release is cut.
func ReleasedTemplate() (string, error) {
	root, err := stack.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "infra", "released", "evs-production.template.json"), nil
}

// Replacements names every stateful resource of the released template
// that the current one removes, changes to another type, or changes in a
// property CloudFormation replaces it for — each line naming the resource
// and saying "removal" or "replacement" — but for the logical ids in
// accepted (changes listed, with their migration, in the infra README).
func Replacements(released, current map[string]any, accepted map[string]bool) []string {
	was, _ := released["Resources"].(map[string]any)
	now, _ := current["Resources"].(map[string]any)
	var out []string
	for id, r := range was {
		old, _ := r.(map[string]any)
		typ, _ := old["Type"].(string)
		props, ok := ReplacedBy[typ]
		if !ok || accepted[id] {
			continue
		}
		cur, _ := now[id].(map[string]any)
		switch {
		case cur == nil:
			out = append(out, fmt.Sprintf("%s (%s): removal — the release has it, the stack no longer does", id, typ))
			continue
		case cur["Type"] != typ:
			out = append(out, fmt.Sprintf("%s (%s): replacement — now a %v", id, typ, cur["Type"]))
			continue
		}
		oldProps, _ := old["Properties"].(map[string]any)
		curProps, _ := cur["Properties"].(map[string]any)
		for _, p := range props {
			if !reflect.DeepEqual(oldProps[p], curProps[p]) {
				out = append(out, fmt.Sprintf("%s (%s): replacement — %s changes from %s to %s", id, typ, p, short(oldProps[p]), short(curProps[p])))
			}
		}
	}
	sort.Strings(out)
	return out
}

func short(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// acceptedLine is a line of the infra README's "Accepted replacements"
// list: "- `LogicalID` … migration …".
var acceptedLine = regexp.MustCompile("^- `([A-Za-z0-9]+)`")

// AcceptedReplacements are the logical ids the infra README lists under
// "#### Accepted replacements", each with its migration.
func AcceptedReplacements() (map[string]bool, error) {
	root, err := stack.RepoRoot()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, "infra", "README.md"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "#") {
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == "Accepted replacements"
			continue
		}
		if m := acceptedLine.FindStringSubmatch(line); in && m != nil {
			out[m[1]] = true
		}
	}
	return out, nil
}
