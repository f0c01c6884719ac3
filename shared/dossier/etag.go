package dossier

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/etag"
)

// Form is one representation of an entity's dossier.
type Form string

const (
	FormJSON     Form = "json"     // GET /api/v1/entities/{id}
	FormMarkdown Form = "markdown" // its .md form, or Accept: text/markdown
)

// RenderVersion names the way both forms are rendered from an entity, its
// checks and its reviews. A change to what either form shows for the same
// records (a field added, a label, the layout) must come with a new
// RenderVersion, or clients would keep the old bytes under a tag that still
// matches: TestRenderVersionPinsTheRendering (shared/api) fails until it
// does. Version 2: whole numbers in check results (read back as float64)
// print as integers, not in exponent form. Version 3: nested values in
// check results read as text (a match as its name, then score, lists, id),
// not in Go's map syntax. Version 4: each review's triggering_reason in the
// JSON form (what opened it when no person did). Version 5: the entity's
// names, with where each came from, in the JSON form.
const RenderVersion = 5

// ETag is the strong entity tag of the entity's dossier in form f: a digest
// of the account, the entity (and its creation time, so an id used again
// after an import was undone starts a tag sequence of its own), its dossier
// revision (domain.Entity.DossierRev,
// which every write to the entity, its checks or its reviews moves), the form
// and RenderVersion. Every input of the rendering is named by these, so one
// tag never stands for two different bodies, and a GET answers
// If-None-Match with a 304 from the entity's item alone, without reading
// the checks and reviews. GET /api/v1/entities/{id} answers it and
// decisions compare the Markdown one with the tag an operator saw
// (decisions.Request.Seen): both compute it here, the one way.
func ETag(e domain.Entity, f Form) string {
	return etag.Of(fmt.Appendf(nil, "evs-dossier/v%d\n%s\n%d\n%d\n%s\n%d", RenderVersion, f, e.AccountID, e.ID, domain.FormatTime(e.CreatedAt), e.DossierRev))
}

// Snapshot is the dossier's Markdown and its lower-case hex SHA-256: what
// an operator decided on, which a decision's audit record keeps beside the
// ETag, so the dossier can be shown to be the one decided on without
// trusting the revision counter. It is the API's Markdown view followed by
// the people behind the business (PeopleMarkdown), which the operator reads
// in the console and the API shows only as a count.
func Snapshot(d domain.EntityDetail, countries *country.Catalogue) (markdown, sum string) {
	markdown = EntityMarkdown(d, countries) + PeopleMarkdown(PeopleOf(d.Entity, d.Checks))
	return markdown, SHA256(markdown)
}

// SHA256 is the lower-case hex SHA-256 of a dossier's Markdown as kept.
func SHA256(markdown string) string {
	sum := sha256.Sum256([]byte(markdown))
	return hex.EncodeToString(sum[:])
}
