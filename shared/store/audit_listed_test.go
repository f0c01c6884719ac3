package store

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every attribute of an audit record but the dossier Markdown and its
// retention (outside the hash, read by no listing) is listed (the
// by_entity_time index and the chain's check read those): a field added to
// auditItem and left out would vanish from listings and break the chain's
// hash.
func TestAuditListedAttrsCoverTheRecord(t *testing.T) {
	var attrs []string
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			attrs = append(attrs, strings.Split(f.Tag.Get("dynamo"), ",")[0])
		}
	}
	walk(reflect.TypeOf(auditItem{}))
	listed := auditListed()
	for _, a := range attrs {
		if a != "dossier_md" && a != "expires_at" && a != "held_expires_at" && !slices.Contains(listed, a) {
			t.Errorf("audit attribute %s is not listed (schema.AuditListedAttrs)", a)
		}
	}
	if slices.Contains(listed, "dossier_md") {
		t.Error("the dossier Markdown is listed: every listing would copy it")
	}
}
