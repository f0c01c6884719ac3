package api

import (
	"context"
	"net/http"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/etag"
)

// getOne serves a function's GET of one record by its {id}, in JSON or, for
// a ".md" path or an Accept that prefers it, Markdown: an id that can name
// no record is notFound; read's errors answer as they are. Each answer
// carries the ETag of its exact bytes, and an If-None-Match that names it
// gets a 304 with no body: the record must still be read to know.
func getOne[T any](function string, notFound func() error, read func(ctx context.Context, accountID, id int64) (T, error),
	asJSON func(T) any, asMarkdown func(T) string) http.Handler {
	return endpoint(deploy.MustRoute(function), func(w http.ResponseWriter, r *http.Request, p auth.Principal, params map[string]string) error {
		id, md, ok := ParsePathID(params["id"])
		if !ok {
			return notFound()
		}
		v, err := read(r.Context(), p.AccountID, id)
		if err != nil {
			return err
		}
		h := w.Header()
		h.Add("Vary", "Accept")
		// private: the body is one account's; no-cache: a cache may keep it
		// but must ask again each time (cheaply, with If-None-Match), as a
		// check or a decision can change it at any moment.
		h.Set("Cache-Control", "private, no-cache")
		body, contentType := marshalBody(asJSON(v)), "application/json; charset=utf-8"
		if md || wantsMarkdown(r.Header.Get("Accept")) {
			body, contentType = []byte(asMarkdown(v)), "text/markdown; charset=utf-8"
		}
		tag := etag.Of(body)
		h.Set("ETag", tag)
		if etag.Matches(r.Header.Get("If-None-Match"), tag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		h.Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		return nil
	})
}
