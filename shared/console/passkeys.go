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

func (h *handler) passkeyList(c *webpage.Call) {
	ps, err := h.d.Store.Passkeys(c.R.Context(), c.Session.AccountID, c.Session.Operator.ID)
	if err != nil {
		c.Fail(err)
		return
	}
	slices.SortFunc(ps, func(a, b domain.Passkey) int { return a.CreatedAt.Compare(b.CreatedAt) })
	page := passkeysPage{Last: len(ps) == 1,
		Add: ceremony{Kind: "add", StepUp: c.Base + "/passkeys/step-up", Options: c.Base + "/passkeys/options", Submit: c.Base + "/passkeys", CSRF: c.CSRF()}}
	for _, p := range ps {
		page.Passkeys = append(page.Passkeys, passkeyRow{
			ID: base64.RawURLEncoding.EncodeToString(p.ID), Name: p.Name, Created: p.CreatedAt, LastUsed: p.LastUsedAt,
			Synced: p.BackupState, CanSync: p.BackupEligible, Current: bytes.Equal(p.ID, c.Session.CredentialID),
		})
	}
	c.Render(http.StatusOK, "passkeys", "Your passkeys", "passkeys", page)
}

// passkeyRemove removes one of the operator's passkeys; the service
// refuses the last one. Every session the passkey signed in ends with it
// (portal.Service.Session): removing this session's own signs the
// operator out, and the next page is the sign-in page.
func (h *handler) passkeyRemove(c *webpage.Call) {
	id, err := base64.RawURLEncoding.DecodeString(c.R.PostForm.Get("credential_id"))
	if err != nil || len(id) == 0 {
		c.Message(http.StatusNotFound, webpage.MsgNotFound())
		return
	}
	if err := h.d.Passkeys.Remove(c.R.Context(), c.Actor(), c.Session.Operator, id); err != nil {
		c.Fail(err)
		return
	}
	c.Log.Info("passkey removed")
	webpage.Redirect(c.W, c.Base+"/passkeys")
}
