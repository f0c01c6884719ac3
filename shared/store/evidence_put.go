package store

import (
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
)

// addEvidencePuts adds to tx, after every other item (cancellation reasons
// name the others by index), one put per check that carries an answer to
// keep, keyed by the check's final id. It rides in the check's own
// transaction: a check is never written without its evidence, nor evidence
// without its check. A body over domain.MaxInlineEvidence is not in the
// item: its object was written to the blob store before (checks.KeepEvidence;
// S3 cannot join a DynamoDB transaction) and the item holds its key. So each
// item stays under 400 KB, and two per create well within a transaction's
// 4 MB. Evidence is never overwritten: a put for a check that has some fails
// the transaction (a provider's later answer is a check of its own,
// ApplyScreening).
func (s *Store) addEvidencePuts(tx *dynamo.WriteTx, checks []domain.Check, dated retainedFields) {
	for _, c := range checks {
		ev := c.Evidence
		if ev == nil || !ev.Stored {
			continue
		}
		e := *ev
		e.AccountID, e.CheckID = c.AccountID, c.ID
		it := newEvidenceItem(e)
		it.retainedFields = dated
		tx.Put(s.table(schema.Evidence).Put(it).If("attribute_not_exists(check_id)"))
	}
}
