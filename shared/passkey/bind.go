package passkey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// A signature proves its document; the document must then prove its
// record. These say where a decision document and the audit record it is
// kept in disagree: each difference in words, none when the document names
// exactly what the record says was decided.

// commonKeys are the document's keys every action takes; any other is one
// of the action's own fields (domain.ActionFields).
var commonKeys = []string{"action", "account_id", "entity_id", "review_id", "operator_id", "action_id", "reason", "seen"}

// differences lists where d does not name l: its action, action id,
// account, entity, review, operator, reason, the dossier seen, and each of
// the action's own fields, which the record's after names as asked.
func (d Document) differences(l auditchain.Link) []string {
	var out []string
	differ := func(what, doc, rec string) {
		if doc != rec {
			out = append(out, fmt.Sprintf("%s %s in the document, %s in the record", what, doc, rec))
		}
	}
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	opt := func(p *int64) string {
		if p == nil {
			return "none"
		}
		return id(*p)
	}
	differ("action", strconv.Quote(d.Action), strconv.Quote(l.Action))
	differ("action_id", strconv.Quote(d.ActionID), strconv.Quote(l.ActionID))
	differ("account_id", id(d.AccountID), id(l.AccountID))
	differ("entity_id", id(d.EntityID), id(l.EntityID))
	differ("review_id", id(d.ReviewID), opt(l.ReviewID))
	differ("operator_id", id(d.OperatorID), id(l.OperatorID))
	differ("reason", strconv.Quote(d.Reason), strconv.Quote(l.Reason))
	differ("seen", strconv.Quote(d.Seen), strconv.Quote(l.SeenETag))
	if d.EntityID == 0 {
		out = append(out, "the document names no entity")
	}
	return append(out, d.fieldDifferences(l)...)
}

// fieldDifferences compares the action's own fields: each the document
// gives must be in the record's after with the same value, and the after
// may name none the document does not give; a field of another action is
// in neither.
func (d Document) fieldDifferences(l auditchain.Link) []string {
	own := domain.ActionFields(domain.Action(d.Action))
	var out []string
	for k := range d.Fields {
		if !slices.Contains(commonKeys, k) && !slices.Contains(own, k) {
			out = append(out, fmt.Sprintf("the document gives %s, which %s does not take", k, d.Action))
		}
	}
	var after map[string]json.RawMessage
	if strictjson.Check([]byte(l.After)) != nil || json.Unmarshal([]byte(l.After), &after) != nil {
		return append(out, "the record's after is not one reading")
	}
	for _, f := range own {
		doc, inDoc := d.Fields[f]
		rec, inRec := after[f]
		switch {
		case inDoc && !inRec:
			out = append(out, fmt.Sprintf("%s %s in the document, none in the record", f, doc))
		case inRec && !inDoc:
			out = append(out, fmt.Sprintf("%s none in the document, %s in the record", f, rec))
		case inDoc && !sameJSON(doc, rec):
			out = append(out, fmt.Sprintf("%s %s in the document, %s in the record", f, doc, rec))
		}
	}
	slices.Sort(out)
	return out
}

// sameJSON reports whether two JSON values are the same value, however
// written (spacing, escapes); numbers are compared as written, both being
// the service's.
func sameJSON(a, b json.RawMessage) bool {
	x, errA := decodeValue(a)
	y, errB := decodeValue(b)
	return errA == nil && errB == nil && reflect.DeepEqual(x, y)
}

func decodeValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// signerDifferences says where the signatures do not name the record's
// operators: one maker, the record's operator; for a four-eyes decision
// one second operator, the record's second approver, another operator
// with another passkey; no other.
func signerDifferences(l auditchain.Link, sigs []domain.DecisionSignature) []string {
	var out []string
	var maker, second []domain.DecisionSignature
	for _, s := range sigs {
		switch s.Role {
		case domain.SignatureMaker:
			maker = append(maker, s)
		case domain.SignatureSecond:
			second = append(second, s)
		default:
			out = append(out, fmt.Sprintf("a signature of role %q", s.Role))
		}
	}
	if len(maker) != 1 || maker[0].OperatorID != l.OperatorID {
		out = append(out, fmt.Sprintf("the record's operator %d is not its one maker", l.OperatorID))
	}
	switch {
	case l.SecondApproverID == nil && len(second) > 0:
		out = append(out, "a second operator's signature on a record that names no second approver")
	case l.SecondApproverID != nil && (len(second) != 1 || second[0].OperatorID != *l.SecondApproverID):
		out = append(out, fmt.Sprintf("the record's second approver %d did not sign it", *l.SecondApproverID))
	case l.SecondApproverID != nil && (*l.SecondApproverID == l.OperatorID || (len(maker) == 1 && maker[0].CredentialID == second[0].CredentialID)):
		out = append(out, "the second approval is the maker's own")
	}
	return out
}
