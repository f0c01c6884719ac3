// Package freetext holds the rules for text a person types into the service
// outside the public API's own fields: reasons, notes, names, descriptions,
// actors. One rule everywhere — the admin commands, decisions, the settings
// pages — so what one door refuses no other lets through: valid UTF-8, no
// control characters (C0, DEL, C1: a raw ESC, CR or LF would reach the
// Markdown views, the logs and a terminal as they are), no bidirectional
// formatting characters (they reorder how a reason reads on screen without
// changing its bytes), no line or paragraph separators (U+2028, U+2029),
// and at most a documented number of characters. Left and right marks
// (U+200E, U+200F, U+061C) and joiners stay: mixed Arabic and Latin text
// needs them.
package freetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evs-kyb/evs/shared/domain"
)

// Kind is a kind of free text, with its maximum length in characters.
type Kind struct {
	Name string
	Max  int
}

// The kinds of free text and their limits (README, "Input limits").
var (
	// Name: an account's or operator's name.
	Name = Kind{"name", 200}
	// Actor: who runs an admin command (an e-mail, a ticket, an IAM user).
	Actor = Kind{"actor", 200}
	// ActionID: the id naming a change.
	ActionID = Kind{"action id", 200}
	// Reason: why an operator or administrator decided (a decision, a
	// redelivery).
	Reason = Kind{"reason", 1000}
	// Description: an API key's or a webhook endpoint's description.
	Description = Kind{"description", 500}
	// Summary: an entity's business activity summary.
	Summary = Kind{"summary", 2000}
	// LegalName: an entity's declared legal name (the public API's create).
	LegalName = Kind{"legal name", 300}
	// Token: an id of something the service made (a key id, a delivery
	// id, a match id) typed back.
	Token = Kind{"token", 200}
)

// Kinds lists every kind, for the README's table and its test.
func Kinds() []Kind {
	return []Kind{Name, Actor, ActionID, Reason, Description, Summary, LegalName, Token}
}

// Named is the kind of the name given ("reason", "action id"), as struct
// tags name it.
func Named(name string) (Kind, bool) {
	for _, k := range Kinds() {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Problem says why v cannot be text of kind k ("" when it can), as a phrase
// that follows the field's name.
func Problem(v string, k Kind) string {
	switch {
	case !utf8.ValidString(v):
		return domain.MsgInvalidUTF8
	case strings.IndexFunc(v, control) >= 0:
		return "contains control characters (line breaks, tabs and escapes are not taken)"
	case strings.IndexFunc(v, bidi) >= 0:
		return "contains bidirectional formatting characters"
	case utf8.RuneCountInString(v) > k.Max:
		return fmt.Sprintf("is longer than %d characters", k.Max)
	}
	return ""
}

// Check refuses text of kind k that breaks the rules, and blank text when
// it is required, as a validation failure of field.
func Check(field, v string, k Kind, required bool) error {
	if required && strings.TrimSpace(v) == "" {
		return domain.Invalid(field, "is required")
	}
	if p := Problem(v, k); p != "" {
		return domain.Invalid(field, p)
	}
	return nil
}

// control reports control characters (C0, DEL, C1) and the line and
// paragraph separators U+2028 and U+2029, which break a line as LF does.
func control(r rune) bool { return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 }

// bidi reports the explicit bidirectional formatting characters (embeddings,
// overrides and isolates, U+202A–U+202E and U+2066–U+2069).
func bidi(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}
