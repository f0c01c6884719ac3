// Package strictjson reads the documents the service takes from operators,
// administrators and the workflow: one reading, the same for whoever reads
// it after. Go's encoding/json matches keys case-insensitively, keeps the
// last of a repeated key and turns invalid UTF-8 into U+FFFD, so a document
// can say one thing to a person (or a log, or a policy) and another to the
// handler. Decode refuses all of that, by name, before the handler sees a
// value.
//
// Go 1.26's encoding/json/v2 would do part of this, but only behind
// GOEXPERIMENT=jsonv2; this is a walk of encoding/json's token stream
// alongside the target's type instead, and encoding/json then fills the
// value from a document known to be unambiguous.
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth bounds how deeply a document Decode reads nests; Check takes
// what encoding/json takes (10,000 levels).
const MaxDepth = 32

const checkDepth = 10000

// Kind is what is wrong with a document.
type Kind int

// The kinds of refusal.
const (
	Syntax    Kind = iota + 1 // not JSON, or data after the value
	Encoding                  // not valid UTF-8
	Duplicate                 // a key given twice in one object
	Unknown                   // a key the target does not take (keys are case-sensitive)
	Type                      // a value of the wrong JSON type, or null where a value is needed
	Range                     // a number out of the field's range
	Depth                     // nested deeper than MaxDepth
)

// Error is a refused document. Path names the value, as dotted keys and
// [indexes] ("countries[1].code"); it is empty for the document as a whole.
type Error struct {
	Kind Kind
	Path string
	// Key is the last key of Path, as Path renders it ("" at the top).
	Key string
	// Problem says what is wrong, to follow the path in a sentence: "is
	// given twice", "must be a whole number".
	Problem string
	// Exact is, for an Unknown key that is a field's name in another
	// case, that field's name: kept apart from Problem so that a caller
	// can say what the key is not a field of (Doc.Invalid).
	Exact string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return "the document " + e.Problem
	}
	return e.Path + " " + e.Problem
}

// Field is the top-level key the refusal is about ("" for the document).
func (e *Error) Field() string {
	if i := strings.IndexAny(e.Path, ".["); i >= 0 {
		return e.Path[:i]
	}
	return e.Path
}

// Decode reads doc into v, a pointer. Besides what encoding/json checks it
// refuses invalid UTF-8, data after the value, a key given twice, a key
// that is not the exact (case-sensitive) name of a field of a struct, null
// for a value that cannot be absent (anything but a pointer, slice, map or
// interface), a fraction or exponent for an integer, a number out of its
// type's range, and a number outside a field's `strict` range:
//
//	`strict:"id"`            a positive integer (an id)
//	`strict:"min=0,max=10"`  an integer within the bounds given
//
// A field left out is not checked: required fields are the caller's.
// A type with its own UnmarshalJSON is still walked as its struct's
// fields when the value is an object. Every refusal is an *Error.
func Decode(doc []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("strictjson: Decode needs a non-nil pointer, not %T", v)
	}
	if err := walkDocument(doc, rv.Type().Elem(), MaxDepth, true); err != nil {
		return err
	}
	if err := json.Unmarshal(doc, v); err != nil {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		// The walk saw every value's type; what is left is a type's own
		// UnmarshalJSON refusing, which names its own problem.
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return &Error{Kind: Type, Path: ute.Field, Problem: "must be " + jsonKind(ute.Type)}
		}
		return err
	}
	return nil
}

// Check reads doc as any JSON value, refusing what Decode refuses that does
// not depend on a target: bad syntax, data after the value, a key given
// twice, nesting past 10,000 levels. It is for documents whose unknown keys
// a contract says to ignore and whose strings it judges field by field, so
// it leaves invalid UTF-8 to the caller (encoding/json reads it as U+FFFD).
func Check(doc []byte) error {
	return walkDocument(doc, nil, checkDepth, false)
}

func walkDocument(doc []byte, t reflect.Type, maxDepth int, wantUTF8 bool) error {
	if wantUTF8 && !utf8.Valid(doc) {
		return &Error{Kind: Encoding, Problem: "is not valid UTF-8"}
	}
	w := &walker{dec: json.NewDecoder(bytes.NewReader(doc)), maxDepth: maxDepth}
	w.dec.UseNumber()
	if err := w.value(t, tag{}, 0); err != nil {
		return err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return &Error{Kind: Syntax, Problem: "has data after its value"}
	}
	return nil
}

type walker struct {
	dec      *json.Decoder
	maxDepth int
	segs     []segment
}

// token reads the next token; a syntax error or an early end is Syntax.
func (w *walker) token() (json.Token, error) {
	tok, err := w.dec.Token()
	if err == io.EOF {
		return nil, &Error{Kind: Syntax, Problem: "is not valid JSON: it ends early"}
	}
	if err != nil {
		return nil, &Error{Kind: Syntax, Problem: "is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	return tok, nil
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// value reads one value as t would take it; a nil t (or an interface, or a
// RawMessage) takes any value, whose objects are still checked for
// repeated keys.
func (w *walker) value(t reflect.Type, tg tag, depth int) error {
	if depth > w.maxDepth {
		return w.fail(Depth, fmt.Sprintf("nests deeper than %d levels", w.maxDepth))
	}
	tok, err := w.token()
	if err != nil {
		return err
	}
	nullable := t == nil || t.Kind() == reflect.Pointer
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || (t != nil && t.Kind() == reflect.Interface) {
		t = nil
	}
	if t == nil || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		// Through a pointer, or for a slice or map, null is absence;
		// anywhere else encoding/json would leave the zero value standing
		// for it.
		nullable = true
	}
	if tok == nil {
		if !nullable {
			return w.fail(Type, "must not be null")
		}
		return nil
	}
	if d, ok := tok.(json.Delim); ok {
		return w.container(d, t, depth)
	}
	if t == nil || custom(t) {
		return nil
	}
	return w.scalar(tok, t, tg)
}

// custom reports whether t reads its own scalar form.
func custom(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textType)
}

func (w *walker) container(d json.Delim, t reflect.Type, depth int) error {
	switch d {
	case '{':
		switch {
		case t == nil:
			return w.object(depth, func(string) (reflect.Type, tag, bool) { return nil, tag{}, true })
		case t.Kind() == reflect.Struct:
			fields := fieldsOf(t)
			return w.object(depth, func(key string) (reflect.Type, tag, bool) {
				f, ok := fields.byName[key]
				if !ok {
					return nil, tag{}, false
				}
				return f.typ, f.tag, true
			}, fields.suggest)
		case t.Kind() == reflect.Map && !custom(t):
			return w.object(depth, func(string) (reflect.Type, tag, bool) { return t.Elem(), tag{}, true })
		case custom(t):
			return w.object(depth, func(string) (reflect.Type, tag, bool) { return nil, tag{}, true })
		}
		return w.fail(Type, "must be "+jsonKind(t))
	case '[':
		var elem reflect.Type
		if t != nil && !custom(t) {
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return w.fail(Type, "must be "+jsonKind(t))
			}
			elem = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			w.segs = append(w.segs, segment{index: i})
			if err := w.value(elem, tag{}, depth+1); err != nil {
				return err
			}
			w.segs = w.segs[:len(w.segs)-1]
		}
		_, err := w.token() // ]
		return err
	}
	return w.fail(Syntax, "is not valid JSON")
}

// object reads an object's members; field says what a key takes, and false
// for a key that is not a field.
func (w *walker) object(depth int, field func(string) (reflect.Type, tag, bool), suggest ...func(string) string) error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		w.segs = append(w.segs, segment{key: key, isKey: true})
		if seen[key] {
			return w.fail(Duplicate, "is given twice")
		}
		seen[key] = true
		t, tg, ok := field(key)
		if !ok {
			var exact string
			if len(suggest) > 0 {
				exact = suggest[0](key)
			}
			e := w.fail(Unknown, NotAField("", exact))
			e.Exact = exact
			return e
		}
		if err := w.value(t, tg, depth+1); err != nil {
			return err
		}
		w.segs = w.segs[:len(w.segs)-1]
	}
	_, err := w.token() // }
	return err
}

// segment is one step of the path to the value being read: an object's
// key or an array's index. The path is kept as these, and rendered only
// for a refusal: a string per level would cost depth² bytes.
type segment struct {
	key   string
	index int
	isKey bool
}

// maxKeyInPath bounds how much of a key a refusal quotes.
const maxKeyInPath = 64

// path renders the segments: keys joined by dots, indexes in brackets; a
// key that is not a plain name (letters, digits, _ and -) is quoted, and
// one over maxKeyInPath bytes cut, so a refusal never echoes a long or
// control-laden key.
func (w *walker) path() string {
	var b strings.Builder
	for i, sg := range w.segs {
		if !sg.isKey {
			fmt.Fprintf(&b, "[%d]", sg.index)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(renderKey(sg.key))
	}
	return b.String()
}

// key is the last key of the path, rendered as path renders it.
func (w *walker) key() string {
	for i := len(w.segs) - 1; i >= 0; i-- {
		if w.segs[i].isKey {
			return renderKey(w.segs[i].key)
		}
	}
	return ""
}

func renderKey(k string) string {
	plain := k != "" && len(k) <= maxKeyInPath && strings.IndexFunc(k, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0
	if plain {
		return k
	}
	if len(k) > maxKeyInPath {
		cut := maxKeyInPath
		for cut > 0 && !utf8.RuneStart(k[cut]) {
			cut--
		}
		return strconv.QuoteToASCII(k[:cut]) + fmt.Sprintf("… (%d bytes)", len(k))
	}
	return strconv.QuoteToASCII(k)
}

// fail is a refusal of the value at the current path.
func (w *walker) fail(kind Kind, problem string) *Error {
	return &Error{Kind: kind, Path: w.path(), Key: w.key(), Problem: problem}
}

// scalar checks a string, number or boolean token against t and its tag.
func (w *walker) scalar(tok json.Token, t reflect.Type, tg tag) error {
	bad := func() error { return w.fail(Type, "must be "+jsonKind(t)) }
	switch t.Kind() {
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return bad()
		}
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return bad()
		}
	case reflect.Float32, reflect.Float64:
		n, ok := tok.(json.Number)
		if !ok {
			return bad()
		}
		if f, err := strconv.ParseFloat(string(n), t.Bits()); err != nil || math.IsInf(f, 0) {
			return w.fail(Range, "is out of range")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := tok.(json.Number)
		if !ok {
			return bad()
		}
		if strings.ContainsAny(string(n), ".eE") {
			return w.fail(Type, "must be a whole number")
		}
		i, err := strconv.ParseInt(string(n), 10, t.Bits())
		if err != nil {
			return w.fail(Range, fmt.Sprintf("is out of range (at most %d)", int64(1)<<(t.Bits()-1)-1))
		}
		if p := tg.problem(i); p != "" {
			return w.fail(Range, p)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := tok.(json.Number)
		if !ok {
			return bad()
		}
		if _, err := strconv.ParseUint(string(n), 10, t.Bits()); err != nil {
			return w.fail(Range, "must be a whole number from 0 to "+strconv.FormatUint(1<<t.Bits()-1, 10))
		}
	default:
		return bad()
	}
	return nil
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "of another type"
}
