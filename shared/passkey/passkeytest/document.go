package passkeytest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// Document is the decision document the decision function would have
// signed for the record: its action, ids, reason, the action's own fields
// as its after names them, and the dossier seen, in the request's order.
// For tests that write signed records without the decision function, so
// that their records count (passkey.AccountChain.Counts).
func Document(r domain.AuditRecord) string {
	var b strings.Builder
	b.WriteString("{")
	add := func(k string, v any) {
		if b.Len() > 1 {
			b.WriteString(",")
		}
		j, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("passkeytest: %s: %v", k, err)) // strings and numbers only
		}
		fmt.Fprintf(&b, "%q:%s", k, j)
	}
	add("action", r.Action)
	add("account_id", r.AccountID)
	add("entity_id", r.EntityID)
	add("review_id", domain.Deref(r.ReviewID))
	add("operator_id", r.OperatorID)
	add("action_id", r.ActionID)
	if r.Reason != "" {
		add("reason", r.Reason)
	}
	for _, f := range domain.ActionFields(r.Action) {
		if v, ok := r.After[f]; ok {
			add(f, v)
		}
	}
	if r.SeenETag != "" {
		add("seen", r.SeenETag)
	}
	b.WriteString("}")
	return b.String()
}
