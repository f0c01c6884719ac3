package api

import (
	"context"
	"net/http"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
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
	return endpoint(deploy.MustRoute("get-review"), func(w http.ResponseWriter, r *http.Request, p auth.Principal, params map[string]string) error {
		id, md, ok := ParsePathID(params["id"])
		if !ok {
			return errReviewNotFound
		}
		rev, err := store.Review(r.Context(), p.AccountID, id)
		if err != nil {
			return err
		}
		e, err := store.Entity(r.Context(), p.AccountID, rev.EntityID)
		if err != nil {
			// A review always has its entity; losing it is a fault, not a 404.
			if domain.ErrorCode(err) == domain.ECodeNotFound {
				return errInconsistent{review: rev.ID}
			}
			return err
		}
		w.Header().Add("Vary", "Accept")
		if md || wantsMarkdown(r.Header.Get("Accept")) {
			writeMarkdown(w, ReviewMarkdown(rev, e, countries))
			return nil
		}
		writeJSON(w, http.StatusOK, reviewDetailView(rev, e))
		return nil
	})
}

var errReviewNotFound = domain.Errorf(domain.ECodeNotFound, "Review not found.")

type errInconsistent struct{ review int64 }

func (e errInconsistent) Error() string {
	return "review has no entity: " + ReviewPath(e.review)
}
