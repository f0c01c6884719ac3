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

// detailStore serves one entity with one review as the store does: the
// entity's dossier revision moves with every change a test makes (change),
// and Dossier refuses an entity read at an older one. It counts the
// dossier reads a GET makes.
type detailStore struct {
	d       domain.EntityDetail
	dossier int // Dossier calls
	// moveOnce, when set, is a write landing while the next dossier is read.
	moveOnce func()
}

func (s *detailStore) change(edit func(*domain.EntityDetail)) {
	edit(&s.d)
	s.d.Entity.DossierRev++
}

func (s *detailStore) EntityDetail(ctx context.Context, accountID, id int64) (domain.EntityDetail, error) {
	e, err := s.Entity(ctx, accountID, id)
	if err != nil {
		return domain.EntityDetail{}, err
	}
	return s.Dossier(ctx, e)
}

func (s *detailStore) Dossier(_ context.Context, e domain.Entity) (domain.EntityDetail, error) {
	s.dossier++
	if move := s.moveOnce; move != nil {
		s.moveOnce = nil
		move()
	}
	if e.DossierRev != s.d.Entity.DossierRev {
		return domain.EntityDetail{}, domain.ErrStale
	}
	return s.d, nil
}

func (s *detailStore) Review(_ context.Context, _, id int64) (domain.Review, error) {
	if id != s.d.Reviews[0].ID {
		return domain.Review{}, errReviewNotFound()
	}
	return s.d.Reviews[0], nil
}

func (s *detailStore) Entity(_ context.Context, _, id int64) (domain.Entity, error) {
	if id != s.d.Entity.ID {
		return domain.Entity{}, errEntityNotFound()
	}
	return s.d.Entity, nil
}

// TestGetOneETag: every representation of both get-one endpoints carries a
// stable strong ETag of its own; If-None-Match naming it (alone, in a list,
// weak, or *) gets a 304 with no body and the tag; another tag gets the 200;
// a changed record gets a new tag.
func TestGetOneETag(t *testing.T) {
	store := &detailStore{d: domain.EntityDetail{
		Entity:  domain.Entity{ID: 5, AccountID: 1, LegalName: "Smith", CountryID: 682, Status: domain.EntityReadyForReview, UpdatedAt: at, DossierRev: 1},
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
	// Markdown by Accept and by .md are one representation, one tag.
	for _, kind := range []string{"entity", "review"} {
		if tags[kind+" Markdown by Accept"] != tags[kind+" Markdown by .md"] {
			t.Errorf("%s Markdown: %s by Accept, %s by .md", kind, tags[kind+" Markdown by Accept"], tags[kind+" Markdown by .md"])
		}
	}
	if tags["entity JSON"] == tags["entity Markdown by .md"] || tags["review JSON"] == tags["review Markdown by .md"] {
		t.Error("JSON and Markdown share a tag")
	}
	if want := dossier.ETag(store.d.Entity, dossier.FormMarkdown); tags["entity Markdown by .md"] != want {
		t.Errorf("entity Markdown ETag %s, dossier.ETag %s: decisions would compare another tag", tags["entity Markdown by .md"], want)
	}

	// An entity's 304 is answered from the entity alone: its dossier (checks
	// and reviews) is not read.
	store.dossier = 0
	if w := get(entity, "/api/v1/entities/5.md", "", tags["entity Markdown by .md"]); w.Code != 304 || store.dossier != 0 {
		t.Errorf("entity 304: %d after %d dossier reads", w.Code, store.dossier)
	}

	// Any change to what is shown changes the tags: a score on the entity,
	// and the review's status (shown in both the entity's and its own views).
	store.change(func(d *domain.EntityDetail) {
		d.Entity.Score = &domain.Score{Value: 40}
		d.Reviews[0].Status = domain.ReviewInProgress
	})
	for _, rep := range reps {
		w := get(rep.h, rep.path, rep.accept, tags[rep.name])
		if w.Code != 200 || w.Header().Get("ETag") == tags[rep.name] {
			t.Errorf("%s after a change: %d ETag %s (was %s)", rep.name, w.Code, w.Header().Get("ETag"), tags[rep.name])
		}
	}
}

// TestGetEntityWhileItChanges: a write landing while the dossier is read
// is never served under the older revision's tag: the GET reads again and
// answers the new body with the new tag.
func TestGetEntityWhileItChanges(t *testing.T) {
	store := &detailStore{d: domain.EntityDetail{
		Entity: domain.Entity{ID: 5, AccountID: 1, LegalName: "Smith", CountryID: 682, Status: domain.EntityReadyForReview, UpdatedAt: at, DossierRev: 3},
	}}
	before := dossier.ETag(store.d.Entity, dossier.FormJSON)
	store.moveOnce = func() { store.change(func(d *domain.EntityDetail) { d.Entity.LegalName = "Smith & Sons" }) }
	r := httptest.NewRequest("GET", "/api/v1/entities/5", nil).WithContext(auth.NewContext(context.Background(),
		auth.Principal{AccountID: 1, Permissions: []string{domain.PermEntityView}}))
	w := httptest.NewRecorder()
	NewGetEntity(store, countries).ServeHTTP(w, r)
	after := dossier.ETag(store.d.Entity, dossier.FormJSON)
	if w.Code != 200 || w.Header().Get("ETag") != after || after == before || !strings.Contains(w.Body.String(), `Smith \u0026 Sons`) {
		t.Fatalf("%d ETag %s (before %s, after %s): %s", w.Code, w.Header().Get("ETag"), before, after, w.Body.String())
	}
}
