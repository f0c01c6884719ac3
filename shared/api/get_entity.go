package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/etag"
)

// DossierReader reads an entity and its dossier.
type DossierReader interface {
	// not_found: no such entity in the account.
	Entity(ctx context.Context, accountID, id int64) (domain.Entity, error)
	// No codes; domain.ErrStale if the entity's dossier moved past the
	// revision read.
	Dossier(ctx context.Context, e domain.Entity) (domain.EntityDetail, error)
	// not_found: no such entity; unavailable if its dossier kept moving
	// while it was read.
	EntityDetail(ctx context.Context, accountID, id int64) (domain.EntityDetail, error)
}

// NewGetEntity serves GET /api/v1/entities/{id} and its Markdown form. The
// ETag is of the dossier's revision (dossier.ETag): an If-None-Match naming
// it is answered from the entity's item alone; otherwise the checks and
// reviews are read at that revision and rendered.
func NewGetEntity(store DossierReader, countries *country.Catalogue) http.Handler {
	return getOne("get-entity", errEntityNotFound, func(ctx context.Context, accountID, id int64, f dossier.Form, ifNoneMatch string) (representation, error) {
		e, err := store.Entity(ctx, accountID, id)
		if err != nil {
			return representation{}, err
		}
		if tag := dossier.ETag(e, f); etag.Matches(ifNoneMatch, tag) {
			return representation{tag: tag}, nil
		}
		d, err := store.Dossier(ctx, e)
		if errors.Is(err, domain.ErrStale) {
			// A write landed while it was read: the whole read again, at the
			// new revision (answered whole, even if that one was named).
			d, err = store.EntityDetail(ctx, accountID, id)
		}
		if err != nil {
			return representation{}, err
		}
		tag := dossier.ETag(d.Entity, f)
		if f == dossier.FormMarkdown {
			return representation{body: []byte(dossier.EntityMarkdown(d, countries)), tag: tag}, nil
		}
		return representation{body: marshalBody(EntityView(d)), tag: tag}, nil
	})
}

func errEntityNotFound() error { return domain.Errorf(domain.ECodeNotFound, "Entity not found.") }

// EntityView is the get-one (and create) body of an entity.
func EntityView(d domain.EntityDetail) any {
	return entityView(d.Entity, d.Checks, d.Reviews)
}
