package verify

import (
	"context"
	"encoding/json"
	"time"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
)

// LockedEnd is the end of the relationship the entity's believed closure
// record names (LockedClosure decides which is believed): when it ended
// and until when its records are kept. Renewal needs both, to tell the
// copies locked from their write, short of the end's date, from those
// locked to it. ok is false without a believed closure. It reads the
// locked trail a second time rather than decide belief anew.
func LockedEnd(ctx context.Context, r Reader, accountID, entityID int64, c Closures) (end domain.RecordEnd, ok bool, err error) {
	until, ended, err := LockedClosure(ctx, r, accountID, entityID, c)
	if err != nil || !ended {
		return domain.RecordEnd{}, false, err
	}
	links, brk, err := LockedChain(ctx, r, accountID, entityID)
	if err != nil {
		return domain.RecordEnd{}, false, err
	}
	for _, l := range intactPrefix(links, brk) {
		if _, ok := closure(l); ok {
			return domain.RecordEnd{At: endedAt(l), Until: until}, true, nil
		}
	}
	return domain.RecordEnd{}, false, nil
}

// endedAt is when a closure record says the relationship ended
// (relationship_ended_at), else the record's own time.
func endedAt(l auditchain.Link) time.Time {
	var after struct {
		EndedAt string `json:"relationship_ended_at"`
	}
	if json.Unmarshal([]byte(l.After), &after) == nil {
		if t, err := domain.ParseTime(after.EndedAt); err == nil {
			return t
		}
	}
	t, _ := domain.ParseTime(l.At)
	return t
}
