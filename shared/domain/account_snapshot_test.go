package domain_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

func TestAccountSnapshotHoldsEveryField(t *testing.T) {
	// Where each field of domain.Account stands in the audit snapshot: its
	// key, or why it is left out. A field added to Account (or its
	// Settings) fails this test until it is listed here, so a new setting
	// cannot go unrecorded by oversight.
	snapshotted := []struct {
		field   string // the Go path: "Settings.SLADays"
		key     string // the snapshot's key; "" when left out
		leftOut string // why it is left out
	}{
		{field: "ID", key: "account_id"},
		{field: "Name", key: "name"},
		{field: "CreatedAt", leftOut: "set once when the account is made, which the create's own record dates"},
		{field: "Settings.FourEyes", key: "four_eyes"},
		{field: "Settings.ReviewIntervalDays", key: "review_interval_days"},
		{field: "Settings.DeclaredDecisions", key: "declared_decisions"},
		{field: "Settings.SLADays", key: "sla_days"},
		{field: "Settings.ExtendedRetentionYears", key: "extended_retention_years"},
		{field: "Settings.OwnershipThresholdPercent", key: "ownership_threshold_percent"},
		{field: "Version", leftOut: "the store's count of changes for optimistic locking, not a setting"},
	}
	listed := map[string]bool{}
	for _, s := range snapshotted {
		listed[s.field] = true
	}
	fields := exportedFields(reflect.TypeFor[domain.Account](), "")
	for _, f := range fields {
		if !listed[f] {
			t.Errorf("domain.Account.%s is not in the audit snapshot's table: give it a key in AccountSnapshot, or say why it is left out", f)
		}
	}
	for _, s := range snapshotted {
		t.Run(s.field, func(t *testing.T) {
			var a domain.Account
			v, ok := fieldByPath(reflect.ValueOf(&a).Elem(), s.field)
			if !ok {
				t.Fatalf("domain.Account has no field %s any more: take it out of the table", s.field)
			}
			v.Set(nonZero(t, v.Type()))
			got, present := domain.AccountSnapshot(a, nil)[s.key]
			switch {
			case s.key == "" && s.leftOut == "":
				t.Errorf("%s has neither a key nor a reason to be left out", s.field)
			case s.key == "":
				// Left out, with its reason.
			case !present:
				t.Errorf("the snapshot has no %q for %s", s.key, s.field)
			case !reflect.DeepEqual(got, v.Interface()):
				t.Errorf("the snapshot's %q = %#v, want %s's %#v", s.key, got, s.field, v.Interface())
			}
		})
	}
}

func TestAccountSnapshot(t *testing.T) {
	tests := []struct {
		name      string
		a         domain.Account
		countries []domain.CountryConfig
		want      map[string]any
	}{
		{"an account not created yet has no id", domain.Account{Name: "Acme"}, nil, map[string]any{
			"name": "Acme", "review_interval_days": 0, "four_eyes": []string(nil), "declared_decisions": false,
			"sla_days": map[domain.ReviewPurpose]int(nil), "extended_retention_years": 0, "ownership_threshold_percent": 0}},
		{"an account's countries are listed with their rule", domain.Account{ID: 3, Name: "Acme"},
			[]domain.CountryConfig{{CountryCode: "SA", Active: true, RegistrationPattern: "^7[0-9]{9}$"}}, map[string]any{
				"account_id": int64(3), "name": "Acme", "review_interval_days": 0, "four_eyes": []string(nil), "declared_decisions": false,
				"sla_days": map[domain.ReviewPurpose]int(nil), "extended_retention_years": 0, "ownership_threshold_percent": 0,
				"countries": []map[string]any{{"code": "SA", "active": true, "registration_pattern": "^7[0-9]{9}$"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := domain.AccountSnapshot(tt.a, tt.countries); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("AccountSnapshot = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// exportedFields lists t's exported fields by Go path, a struct field's
// own fields in its place (a time is one value, not a struct of fields).
func exportedFields(t reflect.Type, prefix string) []string {
	var out []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[time.Time]() {
			out = append(out, exportedFields(f.Type, prefix+f.Name+".")...)
			continue
		}
		out = append(out, prefix+f.Name)
	}
	return out
}

func fieldByPath(v reflect.Value, path string) (reflect.Value, bool) {
	for name := range strings.SplitSeq(path, ".") {
		if v = v.FieldByName(name); !v.IsValid() {
			return v, false
		}
	}
	return v, true
}

// nonZero is a value of t other than its zero, so a field left at zero
// cannot pass for one recorded.
func nonZero(t *testing.T, typ reflect.Type) reflect.Value {
	switch typ.Kind() {
	case reflect.String:
		return reflect.ValueOf("set").Convert(typ)
	case reflect.Bool:
		return reflect.ValueOf(true).Convert(typ)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return reflect.ValueOf(int64(7)).Convert(typ)
	case reflect.Slice:
		s := reflect.MakeSlice(typ, 1, 1)
		s.Index(0).Set(nonZero(t, typ.Elem()))
		return s
	case reflect.Map:
		m := reflect.MakeMap(typ)
		m.SetMapIndex(nonZero(t, typ.Key()), nonZero(t, typ.Elem()))
		return m
	}
	if typ == reflect.TypeFor[time.Time]() {
		return reflect.ValueOf(time.Date(2026, 1, 31, 9, 30, 0, 0, time.UTC))
	}
	t.Fatalf("no non-zero value of %s: teach nonZero one", typ)
	return reflect.Value{}
}
