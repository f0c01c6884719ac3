package auditchain

import (
	"reflect"
	"strings"
	"testing"
)

func sample() Link {
	two, seven := int64(2), int64(7)
	return Link{Version: Version, AccountID: 1, EntityID: 1000000150, Seq: 3, ActionID: "act-1", Action: "approve",
		OperatorID: 5, OperatorName: "Ann", Actor: "ops", RequestID: "req-1", SecondApproverID: &two, ReviewID: &seven,
		Reason: "ok", Before: `{"status":"in_review"}`, After: `{"status":"approved"}`,
		At: "2026-11-23T10:00:00.000000000Z", DossierSHA256: "cd", PrevHash: "ab"}
}

// The hash is part of the stored data: a change to the encoding must be a
// new Version, never an edit, so this pins one value per version (records
// hashed by an earlier version are still checked as they were).
func TestSumIsStable(t *testing.T) {
	for _, tc := range []struct {
		version int
		want    string
	}{
		{1, "ba47c4807399cab4cee175389cc0ccf0121bcc7a23911010239577797561ecdd"},
		{2, "792fdd2a5f7ed187595f3c283f831943bef900aec739bf0cd2ac133fcc561157"},
	} {
		l := sample()
		l.Version = tc.version
		got, err := Sum(l)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Sum of version %d = %s, want %s", tc.version, got, tc.want)
		}
	}
}

// Version 1 did not hash dossier_sha256: such records keep verifying.
func TestVersionOneIgnoresTheSnapshot(t *testing.T) {
	l := sample()
	l.Version, l.DossierSHA256 = 1, ""
	before, _ := Sum(l)
	l.DossierSHA256 = "ff"
	if after, _ := Sum(l); after != before {
		t.Fatal("a version 1 hash changed with a field it never covered")
	}
}

// Every field but Hash is covered: changing any one changes the hash.
func TestEveryFieldChangesTheHash(t *testing.T) {
	base, _ := Sum(sample())
	typ := reflect.TypeOf(Link{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Name == "Hash" || f.Name == "Version" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			l := sample()
			v := reflect.ValueOf(&l).Elem().Field(i)
			switch v.Kind() {
			case reflect.String:
				v.SetString(v.String() + "x")
			case reflect.Int64:
				v.SetInt(v.Int() + 1)
			case reflect.Pointer:
				v.Set(reflect.Zero(v.Type())) // present → absent
			default:
				t.Fatalf("field kind %s not covered by this test", v.Kind())
			}
			if got, _ := Sum(l); got == base {
				t.Fatalf("changing %s left the hash as it was", f.Name)
			}
		})
	}
}

// Lengths keep values from bleeding into each other.
func TestCanonicalIsUnambiguous(t *testing.T) {
	a, b := sample(), sample()
	a.Reason, a.Before = "x\nbefore=1:y", ""
	b.Reason, b.Before = "x", "y"
	ha, _ := Sum(a)
	hb, _ := Sum(b)
	if ha == hb {
		t.Fatal("two different records share a hash")
	}
	z := sample()
	z.ReviewID = new(int64) // 0 is not absent
	hz, _ := Sum(z)
	z.ReviewID = nil
	if hn, _ := Sum(z); hn == hz {
		t.Fatal("review 0 and no review share a hash")
	}
}

func TestUnknownVersion(t *testing.T) {
	l := sample()
	l.Version = Version + 1
	if _, err := Sum(l); err == nil {
		t.Fatal("Sum accepted an unknown version")
	}
}

func chain(n int) ([]Link, Head) {
	var head Head
	var out []Link
	for i := 0; i < n; i++ {
		l := sample()
		l.ActionID = "act-" + string(rune('a'+i))
		l.At = "2026-11-23T10:00:0" + string(rune('0'+i)) + ".000000000Z"
		head = Next(head, &l)
		out = append(out, l)
	}
	return out, head
}

func TestVerify(t *testing.T) {
	tests := []struct {
		name string
		// change spoils a good chain of four records (act-a … act-d).
		change func(rs []Link, head, export *Head) []Link
		// want is "" for a chain that holds, else the record named (or "-"
		// for a break of the head or export) and a part of the reason.
		want, reason string
	}{
		{"intact", func(rs []Link, _, _ *Head) []Link { return rs }, "", ""},
		{"intact, in any order", func(rs []Link, _, _ *Head) []Link { return []Link{rs[2], rs[0], rs[3], rs[1]} }, "", ""},
		{"intact with an export behind the head", func(rs []Link, _, e *Head) []Link { *e = Head{Seq: 2, Hash: rs[1].Hash}; return rs }, "", ""},
		{"altered field", func(rs []Link, _, _ *Head) []Link { rs[1].Reason = "changed"; return rs }, "act-b", "altered"},
		{"altered and rehashed", func(rs []Link, _, _ *Head) []Link {
			rs[1].Reason = "changed"
			rs[1].Hash, _ = Sum(rs[1])
			return rs
		}, "act-c", "prev_hash"},
		{"removed middle", func(rs []Link, _, _ *Head) []Link { return append(rs[:1:1], rs[2:]...) }, "act-c", "removed or inserted"},
		{"removed tail", func(rs []Link, _, _ *Head) []Link { return rs[:3] }, "-", "head"},
		{"forged head", func(rs []Link, h, _ *Head) []Link { h.Hash = strings.Repeat("0", 64); return rs }, "-", "head"},
		{"reordered timestamp", func(rs []Link, _, _ *Head) []Link { rs[1].At, rs[2].At = rs[2].At, rs[1].At; return rs }, "act-b", "altered"},
		{"inserted record", func(rs []Link, _, _ *Head) []Link {
			extra := rs[1]
			extra.ActionID = "act-x"
			extra.Hash, _ = Sum(extra)
			return append(rs, extra)
		}, "act-x", "removed or inserted"},
		{"tail removed and head rewritten, caught by the export", func(rs []Link, h, e *Head) []Link {
			*e = *h
			*h = Head{Seq: 3, Hash: rs[2].Hash}
			return rs[:3]
		}, "-", "export"},
		{"chain rewritten after the export", func(rs []Link, h, e *Head) []Link {
			*e = Head{Seq: 2, Hash: "f00"}
			return rs
		}, "act-b", "exported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, head := chain(4)
			var export Head
			got := Verify(tt.change(rs, &head, &export), head, map[bool]*Head{true: &export, false: nil}[export.Hash != ""])
			switch {
			case tt.want == "" && got != nil:
				t.Fatalf("Verify = %v, want the chain to hold", got)
			case tt.want == "":
			case got == nil:
				t.Fatalf("Verify held, want a break at %s", tt.want)
			case (tt.want == "-" && got.ActionID != "") || (tt.want != "-" && got.ActionID != tt.want):
				t.Fatalf("Verify = %v, want the break at %s", got, tt.want)
			case !strings.Contains(got.Error(), tt.reason):
				t.Fatalf("Verify = %v, want a reason with %q", got, tt.reason)
			}
		})
	}
}
