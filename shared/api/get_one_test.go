package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/dossier"
)

// detailStore serves one entity with one review; tests change it between
// requests.
type detailStore struct{ d domain.EntityDetail }

func (s *detailStore) EntityDetail(_ context.Context, _, id int64) (domain.EntityDetail, error) {
	if id != s.d.Entity.ID {
		return domain.EntityDetail{}, errEntityNotFound()
	}
	return s.d, nil
}

func (s *detailStore) Review(_ context.Context, _, id int64) (domain.Review, error) {
	if id != s.d.Reviews[0].ID {
		return domain.Review{}, errReviewNotFound()
	}
	return s.d.Reviews[0], nil
}

func (s *detailStore) Entity(context.Context, int64, int64) (domain.Entity, error) {
	return s.d.Entity, nil
}

// TestGetOneETag: every representation of both get-one endpoints carries a
// stable strong ETag of its own; If-None-Match naming it (alone, in a list,
// weak, or *) gets a 304 with no body and the tag; another tag gets the 200;
// a changed record gets a new tag.
func TestGetOneETag(t *testing.T) {
	store := &detailStore{d: domain.EntityDetail{
		Entity:  domain.Entity{ID: 5, AccountID: 1, LegalName: "Smith", CountryID: 682, Status: domain.EntityReadyForReview, UpdatedAt: at},
		Reviews: []domain.Review{{ID: 9, EntityID: 5, Purpose: domain.ReviewInitial, Status: domain.ReviewOpen, CreatedAt: at, UpdatedAt: at}},
	}}
	entity, review := NewGetEntity(store, countries), NewGetReview(store, countries)
	p := auth.Principal{AccountID: 1, Permissions: []string{domain.PermEntityView, domain.PermReviewView}}
	get := func(h http.Handler, path, accept, ifNoneMatch string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil).WithContext(auth.NewContext(context.Background(), p))
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if ifNoneMatch != "" {
			r.Header.Set("If-None-Match", ifNoneMatch)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	reps := []struct {
		name, path, accept, contentType string
		h                               http.Handler
	}{
		{"entity JSON", "/api/v1/entities/5", "", "application/json", entity},
		{"entity Markdown by Accept", "/api/v1/entities/5", "text/markdown", "text/markdown", entity},
		{"entity Markdown by .md", "/api/v1/entities/5.md", "", "text/markdown", entity},
		{"review JSON", "/api/v1/entity_reviews/9", "application/json", "application/json", review},
		{"review Markdown by Accept", "/api/v1/entity_reviews/9", "text/markdown, application/json;q=0.5", "text/markdown", review},
		{"review Markdown by .md", "/api/v1/entity_reviews/9.md", "", "text/markdown", review},
	}
	tags := map[string]string{}
	for _, rep := range reps {
		t.Run(rep.name, func(t *testing.T) {
			first := get(rep.h, rep.path, rep.accept, "")
			tag := first.Header().Get("ETag")
			if first.Code != 200 || !strings.HasPrefix(first.Header().Get("Content-Type"), rep.contentType) || len(tag) != 29 {
				t.Fatalf("%d %s ETag %q", first.Code, first.Header().Get("Content-Type"), tag)
			}
			if got := first.Header().Get("Vary"); got != "Accept" {
				t.Errorf("Vary %q", got)
			}
			if got := first.Header().Get("Cache-Control"); got != "private, no-cache" {
				t.Errorf("Cache-Control %q", got)
			}
			if again := get(rep.h, rep.path, rep.accept, "").Header().Get("ETag"); again != tag {
				t.Errorf("ETag not stable: %s then %s", tag, again)
			}
			tags[rep.name] = tag
			other := `"AAAAAAAAAAAAAAAAAAAAAAAAAAA"`
			for _, c := range []struct {
				ifNoneMatch string
				want        int
			}{
				{tag, 304}, {other + ", " + tag, 304}, {"W/" + tag, 304}, {"*", 304},
				{other, 200}, {strings.Trim(tag, `"`), 200},
			} {
				w := get(rep.h, rep.path, rep.accept, c.ifNoneMatch)
				if w.Code != c.want || w.Header().Get("ETag") != tag {
					t.Errorf("If-None-Match %s: %d ETag %q, want %d with %s", c.ifNoneMatch, w.Code, w.Header().Get("ETag"), c.want, tag)
				}
				if c.want == 304 && w.Body.Len() != 0 {
					t.Errorf("304 with a body: %q", w.Body.String())
				}
			}
		})
	}
	// The tag is of the bytes: Markdown by Accept and by .md are the same.
	for _, kind := range []string{"entity", "review"} {
		if tags[kind+" Markdown by Accept"] != tags[kind+" Markdown by .md"] {
			t.Errorf("%s Markdown: %s by Accept, %s by .md", kind, tags[kind+" Markdown by Accept"], tags[kind+" Markdown by .md"])
		}
	}
	if tags["entity JSON"] == tags["entity Markdown by .md"] || tags["review JSON"] == tags["review Markdown by .md"] {
		t.Error("JSON and Markdown share a tag")
	}
	if want := dossier.ETag(store.d, countries); tags["entity Markdown by .md"] != want {
		t.Errorf("entity Markdown ETag %s, dossier.ETag %s: decisions would compare another tag", tags["entity Markdown by .md"], want)
	}

	// Any change to what is shown changes the tags: a score on the entity,
	// and the review's status (shown in both the entity's and its own views).
	store.d.Entity.Score = &domain.Score{Value: 40}
	store.d.Reviews[0].Status = domain.ReviewInProgress
	for _, rep := range reps {
		w := get(rep.h, rep.path, rep.accept, tags[rep.name])
		if w.Code != 200 || w.Header().Get("ETag") == tags[rep.name] {
			t.Errorf("%s after a change: %d ETag %s (was %s)", rep.name, w.Code, w.Header().Get("ETag"), tags[rep.name])
		}
	}
}
