package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/domain"
)

// Paging limits of GET /entities (contract section 8).
const (
	DefaultPerPage = 50
	MaxPerPage     = 200
)

// EntityLister lists an account's entities.
type EntityLister interface {
	// No codes: an unknown account lists nothing.
	ListEntities(ctx context.Context, accountID int64, f domain.EntityFilter, page, perPage int) (domain.EntityPage, error)
}

// NewListEntities serves GET /api/v1/entities.
func NewListEntities(store EntityLister, countries *country.Catalogue) http.Handler {
	return endpoint(deploy.MustRoute("list-entities"), func(w http.ResponseWriter, r *http.Request, p auth.Principal, _ map[string]string) error {
		q, err := parseListQuery(r.URL.Query(), countries)
		if err != nil {
			return err
		}
		res, err := store.ListEntities(r.Context(), p.AccountID, q.filter, q.page, q.perPage)
		if err != nil {
			return err
		}
		totalPages := (res.Total + q.perPage - 1) / q.perPage
		body := entityListJSON{
			Entities: make([]entityJSON, 0, len(res.Entities)),
			Meta:     metaJSON{Page: q.page, PerPage: q.perPage, TotalCount: res.Total, TotalPages: totalPages},
		}
		for _, e := range res.Entities {
			// The list shows no checks or reviews; get-one does.
			body.Entities = append(body.Entities, entityView(e, nil, nil))
		}
		w.Header().Set("X-Total-Count", strconv.Itoa(res.Total))
		if link := linkHeader(externalURL(r), q, totalPages, res.Next); link != "" {
			w.Header().Set("Link", link)
		}
		writeJSON(w, http.StatusOK, body)
		return nil
	})
}

type listQuery struct {
	page, perPage int
	filter        domain.EntityFilter
	// the filters as the caller sent them, carried into the Link URLs
	filterParams url.Values
}

// linkHeader builds the RFC 8288 Link header. As GitHub does, first and prev
// appear only after page 1, next and last only before the last page; a page
// past the end links back to the last page. The next link carries the
// store's cursor, when it gave one, beside page and per_page: a walk that
// follows it continues where this page ended.
func linkHeader(base string, q listQuery, totalPages int, cursor string) string {
	link := func(page int, rel, cursor string) string {
		v := url.Values{}
		for k, vs := range q.filterParams {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(page))
		v.Set("per_page", strconv.Itoa(q.perPage))
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		return fmt.Sprintf("<%s?%s>; rel=%q", base, v.Encode(), rel)
	}
	var parts []string
	if q.page > 1 {
		parts = append(parts, link(1, "first", ""), link(min(q.page-1, max(totalPages, 1)), "prev", ""))
	}
	if q.page < totalPages {
		parts = append(parts, link(q.page+1, "next", cursor), link(totalPages, "last", ""))
	}
	return strings.Join(parts, ", ")
}

// externalURL is the URL the caller used, without its query: the scheme from
// X-Forwarded-Proto (API Gateway sets it), the host, and the path behind any
// prefix API Gateway removed (the stage), given in X-Forwarded-Prefix.
func externalURL(r *http.Request) string {
	scheme := "https"
	if p := r.Header.Get("X-Forwarded-Proto"); p != "" {
		scheme = strings.ToLower(strings.TrimSpace(strings.Split(p, ",")[0]))
	} else if r.TLS == nil && r.URL.Scheme == "http" {
		scheme = "http"
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	return scheme + "://" + host + strings.TrimSuffix(r.Header.Get("X-Forwarded-Prefix"), "/") + r.URL.Path
}
