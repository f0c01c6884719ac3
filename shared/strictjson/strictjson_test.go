package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type inner struct {
	Code   string `json:"code"`
	Active *bool  `json:"active,omitempty"`
}

type base struct {
	Command string `json:"command"`
	Actor   string `json:"actor"`
}

type doc struct {
	base
	AccountID int64           `json:"account_id" strict:"id"`
	Days      *int            `json:"review_interval_days" strict:"min=0,max=3650"`
	Entity    int64           `json:"entity_id" strict:"min=0"`
	Items     []inner         `json:"items"`
	Labels    map[string]int  `json:"labels"`
	Raw       json.RawMessage `json:"raw"`
	Any       any             `json:"any"`
	Ratio     float64         `json:"ratio"`
	Flag      bool            `json:"flag"`
	Small     int8            `json:"small"`
	Hidden    string          `json:"-"`
}

func TestDecodeRefusesByName(t *testing.T) {
	tests := []struct {
		name, doc string
		kind      Kind
		path      string
		problem   string
	}{
		{"key in another case", `{"command":"account.get","account_id":2,"ACCOUNT_ID":1}`, Unknown, "ACCOUNT_ID", `keys are case-sensitive: "account_id" is`},
		{"promoted key in another case", `{"Command":"account.get"}`, Unknown, "Command", `"command" is`},
		{"key twice", `{"account_id":2,"account_id":1}`, Duplicate, "account_id", "is given twice"},
		{"key twice in a nested object", `{"items":[{"code":"SA","code":"AE"}]}`, Duplicate, "items[0].code", "is given twice"},
		{"key twice in a map", `{"labels":{"a":1,"a":2}}`, Duplicate, "labels.a", "is given twice"},
		{"key twice inside a raw value", `{"raw":{"x":{"y":1,"y":2}}}`, Duplicate, "raw.x.y", "is given twice"},
		{"key twice inside any", `{"any":[{"k":1,"k":1}]}`, Duplicate, "any[0].k", "is given twice"},
		{"unknown key", `{"acount_id":1}`, Unknown, "acount_id", "is not a field"},
		{"unknown nested key", `{"items":[{"code":"SA","colour":"red"}]}`, Unknown, "items[0].colour", "is not a field"},
		{"a field json ignores", `{"Hidden":"x"}`, Unknown, "Hidden", "is not a field"},
		{"string for a number", `{"account_id":"1"}`, Type, "account_id", "must be a whole number"},
		{"fraction for an integer", `{"account_id":1.5}`, Type, "account_id", "must be a whole number"},
		{"exponent for an integer", `{"account_id":1e3}`, Type, "account_id", "must be a whole number"},
		{"2^63", `{"account_id":9223372036854775808}`, Range, "account_id", "out of range"},
		{"int8 overflow", `{"small":128}`, Range, "small", "out of range"},
		{"float overflow", `{"ratio":1e999}`, Range, "ratio", "out of range"},
		{"id zero", `{"account_id":0}`, Range, "account_id", "must be a positive id"},
		{"id negative", `{"account_id":-1}`, Range, "account_id", "must be a positive id"},
		{"below min", `{"entity_id":-1}`, Range, "entity_id", "must be at least 0"},
		{"above max", `{"review_interval_days":3651}`, Range, "review_interval_days", "must be from 0 to 3650"},
		{"negative setting", `{"review_interval_days":-5}`, Range, "review_interval_days", "must be from 0 to 3650"},
		{"null for a number", `{"account_id":null}`, Type, "account_id", "must not be null"},
		{"null for a string", `{"command":null}`, Type, "command", "must not be null"},
		{"null in an array of structs", `{"items":[null]}`, Type, "items[0]", "must not be null"},
		{"number for a string", `{"command":1}`, Type, "command", "must be a string"},
		{"string for a bool", `{"flag":"true"}`, Type, "flag", "must be true or false"},
		{"object for a string", `{"command":{"x":1}}`, Type, "command", "must be a string"},
		{"array for an object", `{"labels":[1]}`, Type, "labels", "must be an object"},
		{"object for an array", `{"items":{"code":"SA"}}`, Type, "items", "must be an array"},
		{"document not an object", `["account.list"]`, Type, "", "must be an object"},
		{"not JSON", `{"command":`, Syntax, "", "ends early"},
		{"trailing value", `{"command":"a"} {"command":"b"}`, Syntax, "", "data after"},
		{"trailing garbage", `{"command":"a"}x`, Syntax, "", ""},
		{"empty", ``, Syntax, "", "ends early"},
		{"invalid UTF-8", "{\"command\":\"a\xff\"}", Encoding, "", "UTF-8"},
		{"too deep", `{"any":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, Depth, "", "deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Decode([]byte(tt.doc), &d)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode(%s) = %v, want an *Error", tt.doc, err)
			}
			if e.Kind != tt.kind || (tt.path != "" && e.Path != tt.path) || !strings.Contains(e.Error(), tt.problem) {
				t.Errorf("Decode(%s) = kind %d path %q %q; want kind %d path %q containing %q", tt.doc, e.Kind, e.Path, e.Error(), tt.kind, tt.path, tt.problem)
			}
		})
	}
}

func TestDecodeReadsWhatItAccepts(t *testing.T) {
	var d doc
	in := `{"command":"account.update","actor":"a@example.com","account_id":9223372036854775807,"review_interval_days":0,
		"entity_id":0,"items":[{"code":"SA","active":null},{"code":"AE","active":false}],"labels":{"x":-3},
		"raw":{"k":[1,{"j":null}]},"any":null,"ratio":0.5,"flag":true,"small":-128}`
	if err := Decode([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	if d.Command != "account.update" || d.AccountID != 1<<63-1 || d.Days == nil || *d.Days != 0 || len(d.Items) != 2 ||
		d.Items[1].Active == nil || *d.Items[1].Active || d.Labels["x"] != -3 || string(d.Raw) != `{"k":[1,{"j":null}]}` || d.Small != -128 {
		t.Errorf("decoded %+v", d)
	}
	var empty doc
	if err := Decode([]byte(` {} `), &empty); err != nil {
		t.Errorf("an empty object: %v", err)
	}
	if err := Decode([]byte(`{"review_interval_days":null}`), &empty); err != nil || empty.Days != nil {
		t.Errorf("null for a pointer is absence: %v %v", err, empty.Days)
	}
}

// codeOrObject reads "SA" or {"code": "SA"}, as admin's CountryInput does.
type codeOrObject struct{ Code string }

func (c *codeOrObject) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &c.Code)
	}
	var p struct {
		Code string `json:"code"`
	}
	return json.Unmarshal(b, &p)
}

type withCustom struct {
	List []codeOrObject `json:"list"`
}

func TestDecodeWalksTypesWithTheirOwnUnmarshal(t *testing.T) {
	var w withCustom
	if err := Decode([]byte(`{"list":["SA",{"Code":"AE"}]}`), &w); err != nil {
		t.Fatal(err)
	}
	err := Decode([]byte(`{"list":[{"Code":"AE","Code":"SA"}]}`), &w)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Duplicate {
		t.Errorf("a repeat inside a custom type's object: %v", err)
	}
	if err := Decode([]byte(`{"list":[{"code":"AE"}]}`), &w); !errors.As(err, &e) || e.Kind != Unknown {
		t.Errorf("a key in another case inside a custom type's object: %v", err)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		doc  string
		kind Kind
	}{
		{`{"entity":{"legal_name":"A","legal_name":"B"}}`, Duplicate},
		{`{"entity":{"Legal_Name":"A","legal_name":"B"}}`, 0}, // Check has no target: keys in two cases are two keys
		{`[{"a":1},{"a":1}]`, 0},
		{`{"a":1}{"a":2}`, Syntax},
		{"\"\xc3\"", 0}, // strings are the caller's to judge
		{"{\"k\xff\":1,\"k\xff\":2}", Duplicate},
		{`nul`, Syntax},
	}
	for _, tt := range tests {
		err := Check([]byte(tt.doc))
		var e *Error
		switch {
		case tt.kind == 0 && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tt.doc, err)
		case tt.kind != 0 && (!errors.As(err, &e) || e.Kind != tt.kind):
			t.Errorf("Check(%q) = %v, want kind %d", tt.doc, err, tt.kind)
		}
	}
}

func TestErrorField(t *testing.T) {
	for path, want := range map[string]string{"": "", "account_id": "account_id", "countries[2].code": "countries", "raw.x": "raw"} {
		if got := (&Error{Path: path}).Field(); got != want {
			t.Errorf("Field of %q = %q, want %q", path, got, want)
		}
	}
}

// FuzzDecode: whatever Decode accepts, encoding/json reads the same way
// (the one reading), and re-encoding it is accepted again; it never panics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"command":"a","account_id":1}`, `{"items":[{"code":"SA"}],"labels":{"a":1}}`,
		`{"raw":{"k":[1,{"j":null}]},"any":"x"}`, `{"account_id":1,"ACCOUNT_ID":2}`, `{"a":1,"a":2}`, "{\"command\":\"\xff\"}",
		`{"review_interval_days":-1}`, `{"ratio":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var strict doc
		if Decode(b, &strict) != nil {
			return
		}
		var loose doc
		if err := json.Unmarshal(b, &loose); err != nil {
			t.Fatalf("Decode accepted what encoding/json refuses: %v", err)
		}
		again, err := json.Marshal(strict)
		if err != nil {
			t.Fatal(err)
		}
		var round doc
		if err := Decode(again, &round); err != nil {
			// Marshal writes the zero values of every field; the tags may
			// refuse those (an id of 0), which is not this property.
			var e *Error
			if !errors.As(err, &e) || e.Kind != Range {
				t.Fatalf("re-encoded %s refused: %v", again, err)
			}
		}
	})
}

// A deep document with long keys costs Check time and memory linear in its
// size: the path is rendered only for a refusal.
func TestCheckDeepDocumentWithLongKeys(t *testing.T) {
	key := `"` + strings.Repeat("k", 100) + `":`
	doc := `{"entity":{},"x":` + strings.Repeat("{"+key, 9000) + "1" + strings.Repeat("}", 9000) + "}"
	if err := Check([]byte(doc)); err != nil {
		t.Fatalf("a deep valid document: %v", err)
	}
	var e *Error
	dup := `{"x":` + strings.Repeat("{"+key, 100) + `{"a":1,"a":2}` + strings.Repeat("}", 101)
	if err := Check([]byte(dup)); !errors.As(err, &e) || e.Kind != Duplicate || e.Key != "a" || len(e.Error()) > 10000 {
		t.Errorf("a repeat deep down: %v", err)
	}
}

// A key that is long or holds control characters is quoted and cut in a
// refusal, never echoed.
func TestRefusalsQuoteAndBoundKeys(t *testing.T) {
	var d doc
	tests := []struct{ key, want string }{
		{strings.Repeat("x", 70000), `… (70000 bytes)`},
		{"a\u001b[31m", `"a\x1b[31m"`},
		{"a.b", `"a.b"`},
	}
	for _, tt := range tests {
		b, _ := json.Marshal(map[string]int{tt.key: 1})
		err := Decode(b, &d)
		var e *Error
		if !errors.As(err, &e) || e.Kind != Unknown || !strings.Contains(e.Path, tt.want) || len(e.Error()) > 200 || strings.ContainsRune(e.Error(), 0x1b) {
			t.Errorf("key %.20q: %v", tt.key, err)
		}
	}
}

// FuzzCheck: Check never panics, and what it accepts encoding/json reads.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[{"k":[{"k":1,"k":1}]}]`, `{"a":{"b":[1,2,{"c":null}]}}`, "{\"\xff\":1}", `1 2`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if Check(b) != nil {
			return
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("Check accepted what encoding/json refuses: %v", err)
		}
	})
}
