package passkey

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// Remove deletes one of op's passkeys, with its audit record. An operator
// removes only their own, and never their last: without one they could
// neither sign in nor sign, and only an administrator could help. The
// administrator (a.OperatorID 0: the admin function, the command line)
// revokes any, the last included, for a lost or compromised device.
func (s *Service) Remove(ctx context.Context, a domain.Actor, op domain.Operator, credentialID []byte) error {
	admin := a.OperatorID == 0
	switch {
	case a.AccountID <= 0 || a.AccountID != op.AccountID:
		return domain.Errorf(domain.ECodeForbidden, "The operator is not in your account.")
	case !admin && a.OperatorID != op.ID:
		return domain.Errorf(domain.ECodeForbidden, "An operator removes only their own passkeys; an administrator revokes others'.")
	case strings.TrimSpace(a.ActionID) == "":
		return domain.Invalid("action_id", "can't be blank")
	case len(credentialID) == 0:
		return domain.Invalid("credential_id", "is required")
	}
	passkeys, err := s.Store.Passkeys(ctx, op.AccountID, op.ID)
	if err != nil {
		return fmt.Errorf("passkey: remove: %w", err)
	}
	i := passkeyIndex(passkeys, credentialID)
	switch {
	case i < 0:
		return domain.Errorf(domain.ECodeNotFound, "No such passkey.")
	case !admin && len(passkeys) == 1:
		return domain.Errorf(domain.ECodeConflict, "This is your last passkey: register another first, or ask your administrator.")
	}
	p := passkeys[i]
	rec := domain.AuditRecord{AccountID: a.AccountID, ActionID: a.ActionID, Action: domain.ActionPasskeyRemove,
		OperatorID: a.OperatorID, OperatorName: op.Name, RequestID: a.RequestID, At: s.Clock.Now(),
		Before: map[string]any{"operator_id": op.ID, "operator_name": op.Name, "credential_id": base64.RawURLEncoding.EncodeToString(p.ID), "name": p.Name}}
	if admin {
		rec.OperatorName, rec.Actor = a.AdminName(), a.Admin
	}
	err = s.Store.RemovePasskey(ctx, p, rec)
	if errors.Is(err, domain.ErrDuplicateAction) {
		return domain.Errorf(domain.ECodeConflict, "Action id %s was applied already: use a new one for a new removal.", a.ActionID)
	}
	return err
}

func passkeyIndex(passkeys []domain.Passkey, id []byte) int {
	for i, p := range passkeys {
		if bytes.Equal(p.ID, id) {
			return i
		}
	}
	return -1
}
