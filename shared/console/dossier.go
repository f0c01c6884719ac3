package console

import (
	"context"
	"errors"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
)

// shownDossier is an entity's dossier as the API's .md view renders it,
// with that view's ETag: what a decision's seen names.
type shownDossier struct {
	domain.EntityDetail
	Markdown string
	ETag     string
}

// loadDossier reads the entity's dossier at one revision, as the API's
// get-entity does: a write landing meanwhile means reading it whole again.
func (h *handler) loadDossier(ctx context.Context, accountID, entityID int64) (shownDossier, error) {
	e, err := h.d.Store.Entity(ctx, accountID, entityID)
	if err != nil {
		return shownDossier{}, fmt.Errorf("dossier of entity %d: %w", entityID, err)
	}
	d, err := h.d.Store.Dossier(ctx, e)
	if errors.Is(err, domain.ErrStale) {
		d, err = h.d.Store.EntityDetail(ctx, accountID, entityID)
	}
	if err != nil {
		return shownDossier{}, fmt.Errorf("dossier of entity %d: %w", entityID, err)
	}
	return shownDossier{EntityDetail: d, Markdown: dossier.EntityMarkdown(d, h.d.Countries), ETag: dossier.ETag(d.Entity, dossier.FormMarkdown)}, nil
}

// dossierTag is the ETag of the entity's dossier as the .md view renders
// it, from the entity's item alone.
func dossierTag(e domain.Entity) string { return dossier.ETag(e, dossier.FormMarkdown) }
