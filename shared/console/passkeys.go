package console

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/webpage"
)

// passkeysPage lists the operator's passkeys, with the ceremony that adds
// another.
type passkeysPage struct {
	Passkeys []passkeyRow
	// Last: one passkey only, which cannot be removed.
	Last bool
	Add  ceremony
}

// passkeyRow is one passkey as the page shows it.
type passkeyRow struct {
	ID       string // base64url, for the remove form
	Name     string
	Created  time.Time
	LastUsed *time.Time
	// Synced: the passkey is backed up (a synced passkey); CanSync: it may
	// be, though it is not now.
	Synced, CanSync bool
	// Current: this session was signed in with it.
	Current bool
}

func (h *handler) passkeyList(c *call) {
	ps, err := h.d.Store.Passkeys(c.r.Context(), c.s.AccountID, c.s.Operator.ID)
	if err != nil {
		c.fail(err)
		return
	}
	slices.SortFunc(ps, func(a, b domain.Passkey) int { return a.CreatedAt.Compare(b.CreatedAt) })
	page := passkeysPage{Last: len(ps) == 1,
		Add: ceremony{Kind: "register", Options: c.base + "/passkeys/options", Submit: c.base + "/passkeys", CSRF: csrfToken(c.token)}}
	for _, p := range ps {
		page.Passkeys = append(page.Passkeys, passkeyRow{
			ID: base64.RawURLEncoding.EncodeToString(p.ID), Name: p.Name, Created: p.CreatedAt, LastUsed: p.LastUsedAt,
			Synced: p.BackupState, CanSync: p.BackupEligible, Current: bytes.Equal(p.ID, c.s.CredentialID),
		})
	}
	c.render(http.StatusOK, "passkeys", "Your passkeys", "passkeys", page)
}

// passkeyRemove removes one of the operator's passkeys; the service
// refuses the last one.
func (h *handler) passkeyRemove(c *call) {
	id, err := base64.RawURLEncoding.DecodeString(c.r.PostForm.Get("credential_id"))
	if err != nil || len(id) == 0 {
		c.message(http.StatusNotFound, msgNotFound)
		return
	}
	if err := h.d.Passkeys.Remove(c.r.Context(), c.actor(), c.s.Operator, id); err != nil {
		c.fail(err)
		return
	}
	c.log.Info("passkey removed")
	webpage.Redirect(c.w, c.base+"/passkeys")
}
