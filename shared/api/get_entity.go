package api

import (
	"context"
	"net/http"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// EntityDetailer reads an entity with its checks and reviews.
type EntityDetailer interface {
	// not_found: no such entity in the account.
	EntityDetail(ctx context.Context, accountID, id int64) (domain.EntityDetail, error)
}

// NewGetEntity serves GET /api/v1/entities/{id} and its Markdown form.
func NewGetEntity(store EntityDetailer, countries *country.Catalogue) http.Handler {
	return endpoint(deploy.MustRoute("get-entity"), func(w http.ResponseWriter, r *http.Request, p auth.Principal, params map[string]string) error {
		id, md, ok := ParsePathID(params["id"])
		if !ok {
			return errEntityNotFound
		}
		d, err := store.EntityDetail(r.Context(), p.AccountID, id)
		if err != nil {
			return err
		}
		w.Header().Add("Vary", "Accept")
		if md || wantsMarkdown(r.Header.Get("Accept")) {
			writeMarkdown(w, EntityMarkdown(d, countries))
			return nil
		}
		writeJSON(w, http.StatusOK, EntityView(d))
		return nil
	})
}

var errEntityNotFound = domain.Errorf(domain.ECodeNotFound, "Entity not found.")

// EntityView is the get-one (and create) body of an entity.
func EntityView(d domain.EntityDetail) any {
	return entityView(d.Entity, d.Checks, d.Reviews)
}

func writeMarkdown(w http.ResponseWriter, doc string) {
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(doc))
}
