package admin

import (
	"context"
	"encoding/base64"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// An operator's passkeys, as the administrator sees them: listed (never
// their keys) and revoked, the last one included, for a lost or
// compromised device; the operator enrols again by a new sign-in link.

type passkeyFields struct {
	common
	AccountID  int64 `json:"account_id" strict:"id"`
	OperatorID int64 `json:"operator_id" strict:"id"`
	// CredentialID names the passkey (base64url, as passkey.list shows it).
	CredentialID string `json:"credential_id" text:"token"`
}

// PasskeyView is a passkey as passkey.list shows it.
type PasskeyView struct {
	CredentialID string   `json:"credential_id"`
	OperatorID   int64    `json:"operator_id"`
	Name         string   `json:"name"`
	AAGUID       string   `json:"aaguid"`
	Transports   []string `json:"transports"`
	// Synced: the credential may be, and is, copied to other devices.
	BackupEligible bool    `json:"backup_eligible"`
	BackedUp       bool    `json:"backed_up"`
	SignCount      uint32  `json:"sign_count"`
	CreatedAt      string  `json:"created_at"`
	LastUsedAt     *string `json:"last_used_at"`
}

func viewPasskey(p domain.Passkey) PasskeyView {
	v := PasskeyView{CredentialID: base64.RawURLEncoding.EncodeToString(p.ID), OperatorID: p.OperatorID, Name: p.Name,
		AAGUID: base64.RawURLEncoding.EncodeToString(p.AAGUID), Transports: p.Transports, BackupEligible: p.BackupEligible,
		BackedUp: p.BackupState, SignCount: p.SignCount, CreatedAt: domain.FormatTime(p.CreatedAt)}
	if v.Transports == nil {
		v.Transports = []string{}
	}
	if p.LastUsedAt != nil {
		v.LastUsedAt = new(domain.FormatTime(*p.LastUsedAt))
	}
	return v
}

// passkeyOperator reads the command and the operator it names.
func (h *Handler) passkeyOperator(ctx context.Context, c *call) (passkeyFields, domain.Operator, error) {
	var p passkeyFields
	if err := decode(c, &p); err != nil {
		return p, domain.Operator{}, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return p, domain.Operator{}, err
	}
	if p.OperatorID <= 0 {
		return p, domain.Operator{}, domain.Invalid("operator_id", "is required: the operator whose passkeys")
	}
	op, err := h.Store.Operator(ctx, p.AccountID, p.OperatorID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return p, op, domain.Errorf(domain.ECodeNotFound, "Account %d has no operator %d.", p.AccountID, p.OperatorID)
	}
	return p, op, err
}

func (h *Handler) passkeyList(ctx context.Context, c *call) (any, error) {
	p, op, err := h.passkeyOperator(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := notFields(c, map[string]bool{"credential_id": p.CredentialID != ""}); err != nil {
		return nil, err
	}
	keys, err := h.Store.Passkeys(ctx, op.AccountID, op.ID)
	if err != nil {
		return nil, err
	}
	out := make([]PasskeyView, 0, len(keys))
	for _, k := range keys {
		out = append(out, viewPasskey(k))
	}
	return map[string]any{"passkeys": out}, nil
}

func (h *Handler) passkeyRevoke(ctx context.Context, c *call) (any, error) {
	p, op, err := h.passkeyOperator(ctx, c)
	if err != nil {
		return nil, err
	}
	id, err := base64.RawURLEncoding.DecodeString(p.CredentialID)
	if err != nil || len(id) == 0 {
		return nil, domain.Invalid("credential_id", "must be a passkey's id as passkey.list shows it (base64url)")
	}
	svc := &passkey.Service{Store: h.Store, Clock: h.Clock}
	if err := svc.Remove(ctx, c.actor(op.AccountID, 0), op, id); err != nil {
		return nil, err
	}
	return map[string]any{"revoked": p.CredentialID, "operator_id": op.ID}, nil
}
