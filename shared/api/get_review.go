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
// Its ETag is of the exact bytes: a review's two reads (the review, then its
// entity) are needed to know either the body or a revision, so a tag of a
// revision would save nothing.
func NewGetReview(store ReviewReader, countries *country.Catalogue) http.Handler {
	return getOne("get-review", errReviewNotFound, func(ctx context.Context, accountID, id int64, f dossier.Form, ifNoneMatch string) (representation, error) {
		rev, err := store.Review(ctx, accountID, id)
		if err != nil {
			return representation{}, err
		}
		e, err := store.Entity(ctx, accountID, rev.EntityID)
		if err != nil {
			// A review always has its entity; losing it is a fault, not a 404.
			if domain.ErrorCode(err) == domain.ECodeNotFound {
				return representation{}, errInconsistent{review: rev.ID}
			}
			return representation{}, err
		}
		if f == dossier.FormMarkdown {
			return ofBytes([]byte(dossier.ReviewMarkdown(rev, e, countries)), ifNoneMatch), nil
		}
		return ofBytes(marshalBody(reviewDetailView(rev, e)), ifNoneMatch), nil
	})
}

func errReviewNotFound() error { return domain.Errorf(domain.ECodeNotFound, "Review not found.") }

type errInconsistent struct{ review int64 }

func (e errInconsistent) Error() string {
	return "review has no entity: " + ReviewPath(e.review)
}
