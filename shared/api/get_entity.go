package api

import (
	"context"
	"net/http"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
)

// EntityDetailer reads an entity with its checks and reviews.
type EntityDetailer interface {
	// not_found: no such entity in the account.
	EntityDetail(ctx context.Context, accountID, id int64) (domain.EntityDetail, error)
}

// NewGetEntity serves GET /api/v1/entities/{id} and its Markdown form.
func NewGetEntity(store EntityDetailer, countries *country.Catalogue) http.Handler {
	return getOne("get-entity", errEntityNotFound, store.EntityDetail, EntityView,
		func(d domain.EntityDetail) string { return dossier.EntityMarkdown(d, countries) })
}

func errEntityNotFound() error { return domain.Errorf(domain.ECodeNotFound, "Entity not found.") }

// EntityView is the get-one (and create) body of an entity.
func EntityView(d domain.EntityDetail) any {
	return entityView(d.Entity, d.Checks, d.Reviews)
}
