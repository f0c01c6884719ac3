package api

import (
	"context"
	"net/http"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/dossier"
	"github.com/evs-kyb/evs/shared/etag"
)

// A representation is a record rendered in one form, with its ETag.
type representation struct {
	body []byte // nil when not modified: not rendered
	tag  string
}

// fetchOne reads one record of the account and renders it in form f, unless
// the request's If-None-Match (ifNoneMatch) names its current tag: then body
// is left nil, and the record need not even be read whole. An id that names
// no record answers not_found.
type fetchOne func(ctx context.Context, accountID, id int64, f dossier.Form, ifNoneMatch string) (representation, error)

// getOne serves a function's GET of one record by its {id}, in JSON or, for
// a ".md" path or an Accept that prefers it, Markdown: an id that can name
// no record is notFound; fetch's errors answer as they are. Each answer
// carries the ETag of its representation, and an If-None-Match that names
// it gets a 304 with no body.
func getOne(function string, notFound func() error, fetch fetchOne) http.Handler {
	return endpoint(deploy.MustRoute(function), func(w http.ResponseWriter, r *http.Request, p auth.Principal, params map[string]string) error {
		id, md, ok := ParsePathID(params["id"])
		if !ok {
			return notFound()
		}
		form, contentType := dossier.FormJSON, "application/json; charset=utf-8"
		if md || wantsMarkdown(r.Header.Get("Accept")) {
			form, contentType = dossier.FormMarkdown, "text/markdown; charset=utf-8"
		}
		rep, err := fetch(r.Context(), p.AccountID, id, form, r.Header.Get("If-None-Match"))
		if err != nil {
			return err
		}
		h := w.Header()
		h.Add("Vary", "Accept")
		// private: the body is one account's; no-cache: a cache may keep it
		// but must ask again each time (cheaply, with If-None-Match), as a
		// check or a decision can change it at any moment.
		h.Set("Cache-Control", "private, no-cache")
		h.Set("ETag", rep.tag)
		if rep.body == nil {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		h.Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		w.Write(rep.body)
		return nil
	})
}

// ofBytes is the representation of a body whose tag is of its bytes, for
// records whose every read is needed to know their tag anyway.
func ofBytes(body []byte, ifNoneMatch string) representation {
	tag := etag.Of(body)
	if etag.Matches(ifNoneMatch, tag) {
		return representation{tag: tag}
	}
	return representation{body: body, tag: tag}
}
