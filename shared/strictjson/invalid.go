package strictjson

import (
	"errors"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
)

// How a refusal reads to whoever sent the document: a validation failure
// naming the field, built here once so that every reader of documents
// (admin commands, decision tasks) words it the same.

// Doc names a document for its refusals.
type Doc struct {
	// Of is what the document is, for "is not a field of <Of>" ("a
	// decision", "account.update"); "" says "is not a field".
	Of string
	// Whole is the field a refusal of the whole document is reported on
	// ("request", "command"), as "the document <problem>".
	Whole string
	// At is where the document sits in a larger one ("approval"): every
	// field is named under it, and a refusal of the whole is At's.
	At string
}

// Invalid is err, a refusal of the document, as the validation failure
// that names its field by the whole path ("countries[1].code"). An error
// that is not a refusal is returned as it is.
func (d Doc) Invalid(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	problem := e.Problem
	if e.Kind == Unknown {
		problem = NotAField(d.Of, e.Exact)
	}
	switch {
	case d.At != "" && e.Path == "":
		return domain.Invalid(d.At, problem)
	case d.At != "":
		return domain.Invalid(d.At+"."+e.Path, problem)
	case e.Path == "":
		return domain.Invalid(d.Whole, "the document "+problem)
	}
	return domain.Invalid(e.Path, problem)
}

// NotAField is the problem of a key a document does not take: of names
// what it is not a field of ("" for none), and exact the field the key
// names in another case ("" for none).
func NotAField(of, exact string) string {
	p := "is not a field"
	if of != "" {
		p += " of " + of
	}
	if exact != "" {
		p += fmt.Sprintf(" (keys are case-sensitive: %q is)", exact)
	}
	return p
}
