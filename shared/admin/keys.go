package admin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/freetext"
)

// DefaultKeyOverlap is how long a rotated key keeps working beside its
// successor, unless the command says otherwise ("0s": it stops at once).
const DefaultKeyOverlap = 24 * time.Hour

// MaxKeyOverlap bounds a rotation's overlap.
const MaxKeyOverlap = 7 * 24 * time.Hour

type keyFields struct {
	common
	AccountID   int64    `json:"account_id" strict:"id"`
	KeyID       string   `json:"key_id" text:"token"`
	Permissions []string `json:"permissions"`
	Description string   `json:"description" text:"description"`
	Overlap     string   `json:"overlap"`
}

// keyCreate issues a key; the answer is the one place it appears in clear.
func (h *Handler) keyCreate(ctx context.Context, c *call) (any, error) {
	var p keyFields
	if err := decode(c, &p); err != nil {
		return nil, err
	}
	if err := notFields(c, map[string]bool{"key_id": p.KeyID != "", "overlap": p.Overlap != ""}); err != nil {
		return nil, err
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return nil, err
	}
	key, rec, err := auth.NewKey(p.AccountID, trimAll(p.Permissions), c.now)
	if err != nil {
		return nil, err
	}
	rec.Description = p.Description
	if err := h.Store.IssueAPIKey(ctx, rec, c.audit(p.AccountID, domain.ActionKeyCreate, nil, keySnapshot(rec))); err != nil {
		return nil, err
	}
	return map[string]any{"key": key, "api_key": viewKey(rec, c.now)}, nil
}

func (h *Handler) keyList(ctx context.Context, c *call) (any, error) {
	accountID, err := h.accountOnly(ctx, c)
	if err != nil {
		return nil, err
	}
	keys, err := h.Store.APIKeys(ctx, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]KeyView, 0, len(keys))
	for _, k := range keys {
		out = append(out, viewKey(k, c.now))
	}
	return map[string]any{"api_keys": out}, nil
}

// keyRevoke stops a key at once (API Gateway may keep accepting it for the
// authorizer cache's 60 s).
func (h *Handler) keyRevoke(ctx context.Context, c *call) (any, error) {
	k, _, err := h.existingKey(ctx, c, false)
	if err != nil {
		return nil, err
	}
	if err := h.Store.RevokeKey(ctx, k, c.now, c.audit(k.AccountID, domain.ActionKeyRevoke, keySnapshot(k), map[string]any{"revoked_at": domain.FormatTime(c.now)})); err != nil {
		return nil, err
	}
	k.RevokedAt = &c.now
	return map[string]any{"api_key": viewKey(k, c.now)}, nil
}

// keyRotate issues a successor with the same permissions; the old key keeps
// working for the overlap, so callers can switch without an outage.
func (h *Handler) keyRotate(ctx context.Context, c *call) (any, error) {
	old, overlap, err := h.existingKey(ctx, c, true)
	if err != nil {
		return nil, err
	}
	key, next, err := auth.NewKey(old.AccountID, old.Permissions, c.now)
	if err != nil {
		return nil, err
	}
	next.Description = old.Description
	ends := c.now.Add(overlap)
	audit := c.audit(old.AccountID, domain.ActionKeyRotate, keySnapshot(old),
		map[string]any{"key_id": next.ID, "prefix": next.Prefix, "previous_ends_at": domain.FormatTime(ends)})
	if err := h.Store.RotateKey(ctx, old, ends, next, audit); err != nil {
		return nil, err
	}
	old.RevokedAt = &ends
	return map[string]any{"key": key, "api_key": viewKey(next, c.now), "previous": viewKey(old, c.now)}, nil
}

// existingKey reads the key a revoke or rotate names; it must be the
// account's and still working.
func (h *Handler) existingKey(ctx context.Context, c *call, rotate bool) (domain.APIKey, time.Duration, error) {
	var p keyFields
	if err := decode(c, &p); err != nil {
		return domain.APIKey{}, 0, err
	}
	if err := notFields(c, map[string]bool{"permissions": p.Permissions != nil, "description": p.Description != "", "overlap": !rotate && p.Overlap != ""}); err != nil {
		return domain.APIKey{}, 0, err
	}
	overlap := time.Duration(0)
	if rotate {
		var err error
		if overlap, err = parseOverlap(p.Overlap, DefaultKeyOverlap, MaxKeyOverlap); err != nil {
			return domain.APIKey{}, 0, err
		}
	}
	if _, err := h.account(ctx, p.AccountID); err != nil {
		return domain.APIKey{}, 0, err
	}
	if err := freetext.Check("key_id", p.KeyID, freetext.Token, true); err != nil {
		return domain.APIKey{}, 0, err
	}
	k, err := h.Store.APIKey(ctx, p.AccountID, p.KeyID)
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		return domain.APIKey{}, 0, domain.Errorf(domain.ECodeNotFound, "Account %d has no API key %s.", p.AccountID, p.KeyID)
	}
	if err != nil {
		return domain.APIKey{}, 0, err
	}
	if !k.ActiveAt(c.now) {
		return domain.APIKey{}, 0, domain.Errorf(domain.ECodeConflict, "API key %s is revoked already.", k.ID)
	}
	return k, overlap, nil
}

// parseOverlap reads a Go duration ("24h", "90m", "0s"); empty is def.
func parseOverlap(s string, def, max time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > max {
		return 0, domain.Invalid("overlap", fmt.Sprintf("must be a duration from 0s to %s, such as \"24h\"", max))
	}
	return d, nil
}

func keySnapshot(k domain.APIKey) map[string]any {
	return map[string]any{"key_id": k.ID, "prefix": k.Prefix, "permissions": k.Permissions, "description": k.Description}
}

func trimAll(list []string) []string {
	var out []string
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
