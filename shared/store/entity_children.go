package store

import (
	"context"
	"errors"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/logging"
	"github.com/evs-kyb/evs/shared/schema"
)

// An entity's checks and reviews are found through the by_entity global
// indexes, which DynamoDB updates shortly after the table and never reads
// strongly consistently. GET /entities/{id} right after a create or a
// decision must still show every check and review as written, so the index
// gives only the keys, the items are read from the table strongly
// consistently, and an index showing fewer keys than the entity counts is
// asked again for a moment.

const (
	// indexLagFirstWait is the first pause before asking a lagging index
	// again; each next pause doubles, and together they last indexLagMaxWait
	// at most. An index usually follows its table within a second.
	indexLagFirstWait = 20 * time.Millisecond
	indexLagMaxWait   = time.Second
)

// entityChildren returns the items of the table tableID (keyed account_id
// and idAttr) that belong to the entity, read strongly consistently. want
// is how many the entity counts (0 if unknown): while the index shows fewer,
// it is asked again, up to indexLagMaxWait; then what it shows is returned
// and a warning logged.
func entityChildren[T any](ctx context.Context, s *Store, tableID, idAttr string, accountID, entityID int64, want int) ([]T, error) {
	ids, err := s.entityChildIDs(ctx, tableID, idAttr, accountID, entityID, want)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	keys := make([]dynamo.Keyed, len(ids))
	for i, id := range ids {
		keys[i] = dynamo.Keys{accountID, id}
	}
	// guregu/dynamo sends 100 keys a request at most (BatchGetItem's limit)
	// and asks again for the unprocessed ones.
	var items []T
	err = s.table(tableID).Batch("account_id", idAttr).Get(keys...).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, err
	}
	return items, nil
}

// entityChildIDs reads the ids under the entity's key in the table's
// by_entity index, asking again while it shows fewer than want.
func (s *Store) entityChildIDs(ctx context.Context, tableID, idAttr string, accountID, entityID int64, want int) ([]int64, error) {
	key := entityKey(accountID, entityID)
	pause, waited := indexLagFirstWait, time.Duration(0)
	for {
		var rows []map[string]int64
		err := s.table(tableID).Get("entity_key", key).Index(schema.ByEntity).Project(idAttr).All(ctx, &rows)
		if err != nil {
			return nil, err
		}
		if len(rows) >= want || waited >= indexLagMaxWait {
			if len(rows) < want {
				logging.From(ctx).Warn("index behind its table: listing what it shows", "table", tableID, "index", schema.ByEntity,
					"account_id", accountID, "entity_id", entityID, "want", want, "got", len(rows), "waited_ms", waited.Milliseconds())
			}
			ids := make([]int64, len(rows))
			for i, r := range rows {
				ids[i] = r[idAttr]
			}
			return ids, nil
		}
		pause = min(pause, indexLagMaxWait-waited)
		if err := sleepCtx(ctx, pause); err != nil {
			return nil, err
		}
		waited += pause
		pause *= 2
	}
}
