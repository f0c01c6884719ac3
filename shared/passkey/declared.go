package passkey

import (
	"encoding/json"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/strictjson"
)

// Declared is when an account accepted declared (unsigned) decisions, as
// its own chain recorded its settings: each account.create and
// account.update record's after is the whole account (domain.AccountSnapshot),
// declared_decisions included. Whether an unsigned record counts is read
// from here at the record's own time, never from the account as it stands:
// turning the setting on later must not make the unsigned records of the
// past believable, and the account's item is the one thing any writer of
// the accounts table can change unseen.
type Declared []DeclaredChange

// DeclaredChange is one setting of declared_decisions, from At on.
type DeclaredChange struct {
	At time.Time
	On bool
}

// DeclaredOf reads the settings records among links, an account's chain in
// seq order. A record whose after cannot be read one way only turns
// declared decisions off from its time: the safe side, that keeps records.
func DeclaredOf(links []auditchain.Link) Declared {
	var out Declared
	for _, l := range links {
		if l.Action != string(domain.ActionAccountCreate) && l.Action != string(domain.ActionAccountUpdate) {
			continue
		}
		at, err := domain.ParseTime(l.At)
		if err != nil {
			continue // a record of no time changes no time's setting
		}
		var after map[string]json.RawMessage
		if strictjson.Check([]byte(l.After)) != nil || json.Unmarshal([]byte(l.After), &after) != nil {
			out = append(out, DeclaredChange{At: at})
			continue
		}
		raw, ok := after["declared_decisions"]
		if !ok {
			continue // recorded before the setting existed: unchanged
		}
		var on bool
		if json.Unmarshal(raw, &on) != nil {
			on = false
		}
		out = append(out, DeclaredChange{At: at, On: on})
	}
	return out
}

// DeclaredAlways is a setting that never changed: the account as the
// decision function reads it when it applies a decision, which is the
// record's time.
func DeclaredAlways(on bool) Declared {
	return Declared{{On: on}}
}

// At says whether declared decisions were accepted at the time a record
// gives (its at, as written): the last change, in chain order, made at or
// before it. None: off, the default of every account.
func (d Declared) At(recordAt string) bool {
	t, err := domain.ParseTime(recordAt)
	if err != nil {
		return false
	}
	on := false
	for _, c := range d {
		if !c.At.After(t) {
			on = c.On
		}
	}
	return on
}
