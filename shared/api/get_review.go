package api

import (
	"context"
	"net/http"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
)

// ReviewReader reads a review and the entity it decides on.
type ReviewReader interface {
	// not_found: no such review in the account.
	Review(ctx context.Context, accountID, id int64) (domain.Review, error)
	// not_found: no such entity in the account.
	Entity(ctx context.Context, accountID, id int64) (domain.Entity, error)
}

// NewGetReview serves GET /api/v1/entity_reviews/{id} and its Markdown form.
func NewGetReview(store ReviewReader, countries *country.Catalogue) http.Handler {
	read := func(ctx context.Context, accountID, id int64) (reviewOfEntity, error) {
		rev, err := store.Review(ctx, accountID, id)
		if err != nil {
			return reviewOfEntity{}, err
		}
		e, err := store.Entity(ctx, accountID, rev.EntityID)
		if err != nil {
			// A review always has its entity; losing it is a fault, not a 404.
			if domain.ErrorCode(err) == domain.ECodeNotFound {
				return reviewOfEntity{}, errInconsistent{review: rev.ID}
			}
			return reviewOfEntity{}, err
		}
		return reviewOfEntity{rev, e}, nil
	}
	return getOne("get-review", errReviewNotFound, read,
		func(v reviewOfEntity) any { return reviewDetailView(v.review, v.entity) },
		func(v reviewOfEntity) string { return dossier.ReviewMarkdown(v.review, v.entity, countries) })
}

// reviewOfEntity is a review with the entity it decides on.
type reviewOfEntity struct {
	review domain.Review
	entity domain.Entity
}

func errReviewNotFound() error { return domain.Errorf(domain.ECodeNotFound, "Review not found.") }

type errInconsistent struct{ review int64 }

func (e errInconsistent) Error() string {
	return "review has no entity: " + ReviewPath(e.review)
}
