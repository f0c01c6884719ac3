package clientgen

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func decode(t *testing.T, doc []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return v
}

// at follows a JSON pointer through a decoded document.
func at(t *testing.T, v any, pointer string) any {
	t.Helper()
	for _, tok := range strings.Split(pointer, "/")[1:] {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch n := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = n[tok]; !ok {
				t.Fatalf("%s: no %q", pointer, tok)
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(n) {
				t.Fatalf("%s: no item %q", pointer, tok)
			}
			v = n[i]
		default:
			t.Fatalf("%s: %q in a %T", pointer, tok, v)
		}
	}
	return v
}

// set replaces the value at a JSON pointer.
func set(t *testing.T, v any, pointer string, value any) {
	t.Helper()
	i := strings.LastIndex(pointer, "/")
	parent, last := at(t, v, pointer[:i]), pointer[i+1:]
	switch n := parent.(type) {
	case map[string]any:
		n[strings.NewReplacer("~1", "/", "~0", "~").Replace(last)] = value
	case []any:
		j, _ := strconv.Atoi(last)
		n[j] = value
	}
}

const sample = `openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /things/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: true}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                additionalProperties: false
                properties:
                  schema: true
                  not: false
                  items: {type: array, items: false, prefixItems: [true, {type: string}]}
                  tuple: {allOf: [true], anyOf: [false], oneOf: [{not: true}]}
                  flag: {type: boolean, const: false, default: true, enum: [true]}
                  open: {type: object, additionalProperties: true, unevaluatedProperties: false}
                  nested: {type: object, additionalProperties: {properties: {x: true}}}
              example: {schema: true, not: false, items: [true]}
              examples:
                one: {value: {properties: {a: true}}}
        default:
          description: any
          content:
            application/json:
              schema: false
      x-extra: {schema: true}
webhooks:
  ping:
    post:
      requestBody:
        content:
          application/json:
            schema: {if: {properties: {a: {type: 'null'}}}, then: true, else: false}
components:
  schemas:
    Any: true
    None: false
    Cond:
      type: object
      if: {properties: {kind: {const: a}}}
      then: {properties: {b: true}, required: [b]}
      else: {not: {properties: {b: true}, required: [b]}}
      $defs: {d: true}
      patternProperties: {'^x': false}
      dependentSchemas: {a: true}
      propertyNames: true
      contains: false
  examples:
    E: {value: {schema: true, properties: {a: true}}}
  parameters:
    P: {name: p, in: query, schema: true}
  headers:
    H: {schema: false}
  x-kept: {schema: true}
x-top: {schema: false}
`

func TestPrepareRewritesEveryBooleanSchemaAndNothingElse(t *testing.T) {
	out, rewritten, err := Prepare([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	trueAt := []string{
		"/paths/~1things~1{id}/get/parameters/0/schema",
		"/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/schema",
		"/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/items/prefixItems/0",
		"/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/tuple/allOf/0",
		"/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/tuple/oneOf/0/not",
		"/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/nested/additionalProperties/properties/x",
		"/webhooks/ping/post/requestBody/content/application~1json/schema/then",
		"/components/schemas/Any",
		"/components/schemas/Cond/then/properties/b",
		"/components/schemas/Cond/else/not/properties/b",
		"/components/schemas/Cond/$defs/d",
		"/components/schemas/Cond/dependentSchemas/a",
		"/components/schemas/Cond/propertyNames",
		"/components/parameters/P/schema",
	}
	falseAt := []string{
		"/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/not",
		"/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/items/items",
		"/paths/~1things~1{id}/get/responses/200/content/application~1json/schema/properties/tuple/anyOf/0",
		"/paths/~1things~1{id}/get/responses/default/content/application~1json/schema",
		"/webhooks/ping/post/requestBody/content/application~1json/schema/else",
		"/components/schemas/None",
		"/components/schemas/Cond/patternProperties/^x",
		"/components/schemas/Cond/contains",
		"/components/headers/H/schema",
	}
	want := decode(t, []byte(sample))
	got := decode(t, out)
	for _, p := range trueAt {
		if v := at(t, want, p); v != true {
			t.Fatalf("test data: %s is %v, not true", p, v)
		}
		set(t, want, p, map[string]any{})
	}
	for _, p := range falseAt {
		if v := at(t, want, p); v != false {
			t.Fatalf("test data: %s is %v, not false", p, v)
		}
		set(t, want, p, map[string]any{"not": map[string]any{}})
	}
	// Everything else (examples, extensions, const, default, enum,
	// additionalProperties and unevaluatedProperties) as it was.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("prepared document:\n%s", out)
	}
	all := slices.Sorted(slices.Values(append(append([]string{}, trueAt...), falseAt...)))
	if got := slices.Sorted(slices.Values(rewritten)); !slices.Equal(got, all) {
		t.Errorf("rewritten =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(all, "\n  "))
	}
}

func TestPrepareLeavesADocumentWithoutBooleanSchemasAlone(t *testing.T) {
	doc := "openapi: 3.1.1\ninfo: {title: t, version: '1'}\ncomponents:\n  schemas:\n    A: {type: [string, 'null'], const: x, additionalProperties: false}\n"
	out, rewritten, err := Prepare([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(rewritten) != 0 || !reflect.DeepEqual(decode(t, out), decode(t, []byte(doc))) {
		t.Errorf("rewritten %v:\n%s", rewritten, out)
	}
}

func TestPrepareRefuses(t *testing.T) {
	for name, doc := range map[string]string{
		"not YAML":    "openapi: [3.1.0\n",
		"a list":      "- openapi: 3.1.0\n",
		"OpenAPI 3.0": "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
		"no version":  "info: {title: t, version: '1'}\n",
		"empty":       "",
	} {
		if _, _, err := Prepare([]byte(doc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestPrepareTheAPIDocument: in shared/api/openapi.yaml, the boolean
// schemas are the risk level rule's (EntityStanding's if/then/else), and
// they alone change.
func TestPrepareTheAPIDocument(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, rewritten, err := Prepare(doc)
	if err != nil {
		t.Fatal(err)
	}
	wantRewritten := []string{
		"/components/schemas/RiskLevelRule/then/not/properties/risk_level_updated_at",
		"/components/schemas/RiskLevelRule/else/properties/risk_level_updated_at",
		"/components/schemas/RiskLevelRule/else/not/properties/risk_level_assessed",
	}
	if !slices.Equal(rewritten, wantRewritten) {
		t.Fatalf("rewritten %v, want %v", rewritten, wantRewritten)
	}
	want := decode(t, doc)
	for _, p := range wantRewritten {
		set(t, want, p, map[string]any{})
	}
	if !reflect.DeepEqual(decode(t, out), want) {
		t.Error("the prepared document differs elsewhere too")
	}
	again, more, err := Prepare(out)
	if err != nil || len(more) != 0 || string(again) != string(out) {
		t.Errorf("preparing twice: %v, rewrote %v, same bytes %v", err, more, string(again) == string(out))
	}
}
