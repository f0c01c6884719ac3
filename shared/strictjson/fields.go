package strictjson

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// A struct's fields as encoding/json names them, and their `strict` tags.

// tag is a field's `strict` range.
type tag struct {
	min, max *int64
}

// problem says why i is out of the tag's range, "" when it is within.
func (tg tag) problem(i int64) string {
	switch {
	case tg.min != nil && *tg.min == 1 && tg.max == nil && i < 1:
		return "must be a positive id"
	case tg.min != nil && i < *tg.min, tg.max != nil && i > *tg.max:
		return "must be " + tg.describe()
	}
	return ""
}

func (tg tag) describe() string {
	switch {
	case tg.min != nil && tg.max != nil:
		return fmt.Sprintf("from %d to %d", *tg.min, *tg.max)
	case tg.min != nil:
		return fmt.Sprintf("at least %d", *tg.min)
	default:
		return fmt.Sprintf("at most %d", *tg.max)
	}
}

// parseTag reads `strict:"id"` or `strict:"min=0,max=3650"`; a malformed
// tag is a programming error, found by the package's tests of every
// decoded type.
func parseTag(s string) tag {
	var tg tag
	for part := range strings.SplitSeq(s, ",") {
		if part == "" {
			continue
		}
		if part == "id" {
			one := int64(1)
			tg.min = &one
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		n, err := strconv.ParseInt(val, 10, 64)
		if !ok || err != nil || (name != "min" && name != "max") {
			panic(fmt.Sprintf("strictjson: bad strict tag %q", s))
		}
		if name == "min" {
			tg.min = &n
		} else {
			tg.max = &n
		}
	}
	return tg
}

type field struct {
	typ reflect.Type
	tag tag
}

type structFields struct {
	byName map[string]field
	// folded finds the field a key names in another case.
	folded map[string]string
}

func (f structFields) suggest(key string) string { return f.folded[strings.ToLower(key)] }

var fieldCache sync.Map // reflect.Type → structFields; types are fixed at build time

// fieldsOf lists the JSON names a struct takes, as encoding/json does:
// the tag's name or the Go name, exported fields only, "-" left out,
// embedded structs' fields promoted (the outer one wins a clash).
func fieldsOf(t reflect.Type) structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(structFields)
	}
	out := structFields{byName: map[string]field{}, folded: map[string]string{}}
	collect(t, out, 0)
	for name := range out.byName {
		out.folded[strings.ToLower(name)] = name
	}
	fieldCache.Store(t, out)
	return out
}

func collect(t reflect.Type, out structFields, depth int) {
	if depth > MaxDepth { // a struct embedding itself through a pointer
		return
	}
	var embedded []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, sf)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, taken := out.byName[name]; taken {
			continue
		}
		out.byName[name] = field{typ: sf.Type, tag: parseTag(sf.Tag.Get("strict"))}
	}
	// Outer fields first: they win over promoted ones, as in encoding/json.
	for _, sf := range embedded {
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		collect(ft, out, depth+1)
	}
}
