package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/auditchain"
	"github.com/evs-kyb/evs/shared/domain"
)

// AuditLinkFromImage reads an audit record from an image of the audit
// table's stream, as it is hashed. ok is false for what is no chained
// record: a chain's head (its move is the record it names) or a record
// from before the chain (it has no hash to keep).
func (*Store) AuditLinkFromImage(img map[string]events.DynamoDBAttributeValue) (l auditchain.Link, ok bool, err error) {
	item, err := itemFromImage(img)
	if err != nil || item == nil {
		return l, false, errors.Join(errors.New("decode audit item: no image"), err)
	}
	var it auditItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return l, false, fmt.Errorf("decode audit item: %w", err)
	}
	if strings.HasPrefix(it.ActionID, headPrefix) || it.ChainVersion == 0 {
		return l, false, nil
	}
	return it.chainLink(), true, nil
}

// EvidenceFromImage reads a provider's answer from an image of the
// evidence table's stream: the body itself when the item holds it, else
// BodyKey names its object in the evidence blob store.
func (*Store) EvidenceFromImage(img map[string]events.DynamoDBAttributeValue) (domain.Evidence, error) {
	item, err := itemFromImage(img)
	if err != nil || item == nil {
		return domain.Evidence{}, errors.Join(errors.New("decode evidence item: no image"), err)
	}
	var it evidenceItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return domain.Evidence{}, fmt.Errorf("decode evidence item: %w", err)
	}
	if it.AccountID == 0 || it.CheckID == 0 || it.SHA256 == "" {
		return domain.Evidence{}, errors.New("decode evidence item: account_id, check_id and sha256 are required")
	}
	return it.domain(), nil
}
