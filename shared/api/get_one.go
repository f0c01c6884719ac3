package api

import (
	"context"
	"net/http"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/deploy"
)

// getOne serves a function's GET of one record by its {id}, in JSON or, for
// a ".md" path or an Accept that prefers it, Markdown: an id that can name
// no record is notFound; read's errors answer as they are.
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
		w.Header().Add("Vary", "Accept")
		if md || wantsMarkdown(r.Header.Get("Accept")) {
			writeMarkdown(w, asMarkdown(v))
			return nil
		}
		writeJSON(w, http.StatusOK, asJSON(v))
		return nil
	})
}

func writeMarkdown(w http.ResponseWriter, doc string) {
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(doc))
}
