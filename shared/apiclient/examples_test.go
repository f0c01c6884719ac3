package apiclient

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestDocumentExamplesFitTheTypes: every JSON example of
// shared/api/openapi.yaml decodes into the generated type of its schema
// with no field unknown, and encodes back to the same JSON (a timestamp
// may lose trailing zeros of its fraction, the same instant). So the types
// name every field the API sends, and a nullable field keeps its null.
func TestDocumentExamplesFitTheTypes(t *testing.T) {
	raw, err := os.ReadFile("../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Examples  map[string]struct{ Value any } `yaml:"examples"`
			Responses map[string]struct {
				Content map[string]struct {
					Example  any                            `yaml:"example"`
					Examples map[string]struct{ Value any } `yaml:"examples"`
				} `yaml:"content"`
			} `yaml:"responses"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Components
	cases := []struct {
		name  string
		value any
		into  any
	}{
		{"examples/EntityCreated", c.Examples["EntityCreated"].Value, &Entity{}},
		{"examples/EntityListPage", c.Examples["EntityListPage"].Value, &EntityList{}},
		{"examples/Review", c.Examples["Review"].Value, &ReviewEnvelope{}},
		{"responses/ValidationFailed filters", c.Responses["ValidationFailed"].Content["application/json"].Examples["filters"].Value, &ValidationErrors{}},
		{"responses/ValidationFailed taken", c.Responses["ValidationFailed"].Content["application/json"].Examples["taken"].Value, &ValidationErrors{}},
	}
	for _, name := range []string{"Unauthorized", "Forbidden", "NotFound", "MethodNotAllowed"} {
		cases = append(cases, struct {
			name  string
			value any
			into  any
		}{"responses/" + name, c.Responses[name].Content["application/json"].Example, &Error{}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.value == nil {
				t.Fatal("no such example in the document")
			}
			in, err := json.Marshal(tc.value)
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(in))
			dec.DisallowUnknownFields()
			if err := dec.Decode(tc.into); err != nil {
				t.Fatalf("%v\n%s", err, in)
			}
			out, err := json.Marshal(tc.into)
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			_ = json.Unmarshal(in, &want)
			_ = json.Unmarshal(out, &got)
			if !sameJSON(want, got) {
				t.Errorf("round trip through %T:\n in  %s\n out %s", tc.into, in, out)
			}
		})
	}
}

// sameJSON compares decoded JSON, taking two RFC 3339 strings for equal
// when they are the same instant.
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if w, ok := bm[k]; !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], bs[i]) {
				return false
			}
		}
		return true
	case string:
		bs, ok := b.(string)
		if !ok {
			return false
		}
		ta, errA := time.Parse(time.RFC3339Nano, a)
		tb, errB := time.Parse(time.RFC3339Nano, bs)
		if errA == nil && errB == nil {
			return ta.Equal(tb)
		}
		return a == bs
	default:
		return reflect.DeepEqual(a, b)
	}
}

// TestTypes pins what the generated types are made of where it matters to
// a caller: ids are int64, a nullable field is a pointer, a required one
// is not.
func TestTypes(t *testing.T) {
	var e Entity
	var r Review
	var c Check
	for _, tc := range []struct {
		name  string
		value any
		want  string
	}{
		{"Entity.ID", e.ID, "int64"},
		{"Entity.WebsiteURL", e.WebsiteURL, "*string"},
		{"Entity.RiskLevel", e.RiskLevel, "*apiclient.RiskLevel"},
		{"Entity.RiskLevelUpdatedAt", e.RiskLevelUpdatedAt, "*time.Time"},
		{"Entity.CurrentScore", e.CurrentScore, "*int"},
		{"Entity.UpdatedAt", e.UpdatedAt, "time.Time"},
		{"Entity.Checks", e.Checks, "[]apiclient.Check"},
		{"Review.Outcome", r.Outcome, "*apiclient.ReviewOutcome"},
		{"Review.AssignedUserID", r.AssignedUserID, "*int64"},
		{"Review.CompletedAt", r.CompletedAt, "*time.Time"},
		{"Check.SubjectID", c.SubjectID, "*int64"},
		{"Check.Result.TopScore", c.Result.TopScore, "*float64"},
		{"ListEntitiesParams.PerPage", ListEntitiesParams{}.PerPage, "*int"},
		{"CreateEntityResponse201Headers.Location", CreateEntityResponse201Headers{}.Location, "string"},
		{"ListEntitiesResponse200Headers.XTotalCount", ListEntitiesResponse200Headers{}.XTotalCount, "int"},
	} {
		if got := reflect.TypeOf(tc.value).String(); got != tc.want {
			t.Errorf("%s is %s, want %s", tc.name, got, tc.want)
		}
	}
}
