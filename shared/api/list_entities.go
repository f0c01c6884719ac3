package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
)

// Paging limits of GET /entities (contract section 8).
const (
	DefaultPerPage = 50
	MaxPerPage     = 200
)

// EntityLister lists an account's entities.
type EntityLister interface {
	ListEntities(ctx context.Context, accountID int64, f domain.EntityFilter, page, perPage int) (domain.EntityPage, error)
}

// NewListEntities serves GET /api/v1/entities.
func NewListEntities(store EntityLister, countries *country.Catalogue) http.Handler {
	route, _ := RouteFor("list-entities")
	return endpoint(route, func(w http.ResponseWriter, r *http.Request, p auth.Principal, _ map[string]string) error {
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
		if link := linkHeader(externalURL(r), q, totalPages); link != "" {
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

// parseListQuery reads the paging and filter parameters. Paging never fails:
// a nonsense page is 1 and a nonsense per_page is the default, a per_page over
// the maximum is the maximum. A filter that cannot be understood is refused
// (422), never ignored, because ignoring it would return the wrong entities.
func parseListQuery(v url.Values, countries *country.Catalogue) (listQuery, error) {
	q := listQuery{page: 1, perPage: DefaultPerPage, filterParams: url.Values{}}
	if n, err := strconv.Atoi(strings.TrimSpace(v.Get("page"))); err == nil && n >= 1 {
		q.page = n
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v.Get("per_page"))); err == nil && n >= 1 {
		q.perPage = min(n, MaxPerPage)
	}
	fields := map[string][]string{}
	if s := v.Get("registration_number"); s != "" {
		q.filter.RegistrationNumber = s
		q.filterParams.Set("registration_number", s)
	}
	if s := v.Get("country_code"); s != "" {
		c, ok := countries.ByAlpha2(s)
		if !ok {
			fields["country_code"] = []string{fmt.Sprintf("Country %q is not a country the service knows", s)}
		}
		q.filter.CountryCode = c.Alpha2
		q.filterParams.Set("country_code", s)
	}
	if s := v.Get("updated_since"); s != "" {
		t, err := ParseTimestamp(s)
		if err != nil {
			fields["updated_since"] = []string{"must be an ISO 8601 timestamp, such as 2026-01-31T09:30:00Z"}
		}
		q.filter.UpdatedSince = &t
		q.filterParams.Set("updated_since", s)
	}
	if len(fields) > 0 {
		return q, &domain.Error{Code: domain.ECodeInvalid, Message: "Validation failed.", Fields: fields}
	}
	return q, nil
}

// ParseTimestamp reads an ISO 8601 timestamp: RFC 3339 with any offset and
// optional fraction ("2026-01-31T09:30:00Z", "2026-01-31T12:30:00.5+03:00"),
// the basic form without separators ("20260131T093000Z"), or a date alone,
// meaning its midnight UTC. A time without an offset is ambiguous and refused.
func ParseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	layouts := []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "20060102T150405Z0700", "20060102T150405Z07:00", "2006-01-02"}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	// RFC 3339 requires "Z" or ±hh:mm; ISO 8601 also allows ±hhmm and ±hh.
	for _, l := range []string{"2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999Z07"} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not an ISO 8601 timestamp: %q", s)
}

// linkHeader builds the RFC 8288 Link header. As GitHub does, first and prev
// appear only after page 1, next and last only before the last page; a page
// past the end links back to the last page.
func linkHeader(base string, q listQuery, totalPages int) string {
	link := func(page int, rel string) string {
		v := url.Values{}
		for k, vs := range q.filterParams {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(page))
		v.Set("per_page", strconv.Itoa(q.perPage))
		return fmt.Sprintf("<%s?%s>; rel=%q", base, v.Encode(), rel)
	}
	var parts []string
	if q.page > 1 {
		parts = append(parts, link(1, "first"), link(min(q.page-1, max(totalPages, 1)), "prev"))
	}
	if q.page < totalPages {
		parts = append(parts, link(q.page+1, "next"), link(totalPages, "last"))
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
