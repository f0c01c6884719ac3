// Package console is the operator console: server-rendered pages under
// /console/ where operators sign in with their passkeys, work the queue of
// reviews, and decide on a review's dossier. Every decision is signed with
// the operator's passkey in the browser and handed to the decision
// workflow (Step Functions); the console never writes a decision itself,
// so a decision taken here is checked exactly as one taken anywhere else.
//
// A sign-in link (package portal) only enrols: it starts a session that
// may register a passkey and nothing more. Every other page needs a
// session started by a passkey. New returns one http.Handler for
// everything under /console/.
package console

import (
	"context"
	"embed"
	"fmt"
	"strconv"
	"time"

	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/country"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/queue"
	"github.com/evs-kyb/evs/shared/webpage"
	"github.com/evs-kyb/evs/shared/workflow"
)

// Portal is what the console needs of sessions (*portal.Service has it).
type Portal interface {
	// Redeem uses a link's token once and starts a session (an enrolment
	// one). portal.ErrLinkUnknown, ErrLinkUsed, ErrLinkExpired, or
	// validation_failed when the operator is disabled.
	Redeem(ctx context.Context, linkToken string) (sessionToken string, s portal.Session, err error)
	// StartSession starts a session for an operator who signed in with the
	// passkey credentialID. validation_failed: operator disabled.
	StartSession(ctx context.Context, accountID, operatorID int64, credentialID []byte) (string, portal.Session, error)
	// Session is the live session the token names; portal.ErrNoSession otherwise.
	Session(ctx context.Context, sessionToken string) (portal.Session, error)
	// End ends a session; ending an unknown one is no error.
	End(ctx context.Context, sessionToken string) error
}

// Queue is the home page's queue (*queue.Service has it).
type Queue interface {
	// validation_failed: a filter or the cursor.
	Page(ctx context.Context, accountID, operatorID int64, f queue.Filter, cursor string) (queue.Page, error)
	// not_found: nothing waiting; forbidden; conflict: others took all tried.
	ClaimNext(ctx context.Context, a domain.Actor, op domain.Operator, f queue.Filter) (domain.Review, error)
}

// Store is what the console reads, and the one thing it writes: removing a
// refused approval (*store.Store has it).
type Store interface {
	// not_found: no such review in the account.
	Review(ctx context.Context, accountID, id int64) (domain.Review, error)
	// not_found: no such entity in the account.
	Entity(ctx context.Context, accountID, id int64) (domain.Entity, error)
	// not_found: no such account. Its four-eyes settings tell a page which
	// decisions wait for a second operator.
	Account(ctx context.Context, id int64) (domain.Account, error)
	// not_found: the country is not configured for the account. Its intake
	// checks are what an approval needs completed.
	CountryConfig(ctx context.Context, accountID int64, code string) (domain.CountryConfig, error)
	// No codes; domain.ErrStale if the dossier moved past the revision read.
	Dossier(ctx context.Context, e domain.Entity) (domain.EntityDetail, error)
	// not_found; unavailable if the dossier kept moving while read.
	EntityDetail(ctx context.Context, accountID, id int64) (domain.EntityDetail, error)
	// No codes.
	AuditTrail(ctx context.Context, accountID, entityID int64) ([]domain.AuditRecord, error)
	// The account's own chain: the keys the trail's signatures are
	// checked with.
	passkey.ChainReader
	// not_found: no such check in the account (a check's answer page).
	Check(ctx context.Context, accountID, id int64) (domain.Check, error)
	// A check's kept provider answer (not_found: none kept).
	checks.EvidenceItems
	// No codes.
	Operators(ctx context.Context, accountID int64) ([]domain.Operator, error)
	// No codes.
	Passkeys(ctx context.Context, accountID, operatorID int64) ([]domain.Passkey, error)
	// No codes.
	PendingApprovals(ctx context.Context, accountID int64, now time.Time) ([]domain.PendingApproval, error)
	// not_found: none waits under this action id.
	PendingApproval(ctx context.Context, accountID int64, actionID string) (domain.PendingApproval, error)
	// No codes.
	DeletePendingApproval(ctx context.Context, accountID int64, actionID string) error
}

// Deps are what the console is built from. All are required but Countries
// and Blobs.
type Deps struct {
	Portal   Portal
	Passkeys *passkey.Service
	Queue    Queue
	Store    Store
	Workflow workflow.Workflow
	// Countries renders the dossier: it must be the API's catalogue, or
	// the Markdown shown is not the one the ETag names (nil: country.ISO()).
	Countries *country.Catalogue
	// Clock stamps ages and lists what still waits.
	Clock domain.Clock
	// Blobs reads the providers' answers kept outside their evidence item
	// (over domain.MaxInlineEvidence; nil: such an answer is not shown,
	// and the page says so).
	Blobs checks.BlobGetter
}

// handler serves the console's pages. Everything in it is set by Mount
// and only read afterwards.
type handler struct {
	d    Deps
	area *webpage.Area
}

//go:embed static templates
var files embed.FS

// Mount adds the console to the web function's server, under /console/.
// A required dependency missing is a wiring mistake: Mount panics, so it
// shows when the function starts rather than at an operator's first click.
func Mount(s *webpage.Server, d Deps) {
	if err := d.check(); err != nil {
		panic("console: " + err.Error())
	}
	if d.Countries == nil {
		d.Countries = country.ISO()
	}
	h := &handler{d: d}
	h.area = s.Mount(webpage.AreaSpec{
		Path: Path, Name: "console", Brand: "EVS console", Files: files, Pages: pageNames(), Funcs: funcs(),
		Scripts: scripts(), Nav: nav, SignInPage: true, EnrolPage: "/enrol/passkey",
		Back: webpage.NavLink{Label: "Back to the queue", Href: "/queue"},
	})
	h.routes()
}

// Path is where the console is served, under the stage prefix.
const Path = "/console"

// nav is the header's sections, for a session signed in with a passkey
// (an enrolment session sees none), and the settings area beside them,
// which the same session opens.
func nav(c *webpage.Call) []webpage.NavLink {
	if !webpage.IsFull(c.Session) {
		return nil
	}
	return []webpage.NavLink{
		{Section: "queue", Label: "Queue", Href: c.Base + "/queue"},
		{Section: "passkeys", Label: "Passkeys", Href: c.Base + "/passkeys"},
		{Label: "Settings", Href: webpage.StagePrefix(c.R) + "/settings/"},
	}
}

// check names the first required dependency missing.
func (d Deps) check() error {
	for _, dep := range []struct {
		name    string
		missing bool
	}{
		{"Portal", d.Portal == nil}, {"Passkeys", d.Passkeys == nil}, {"Queue", d.Queue == nil}, {"Store", d.Store == nil},
		{"Workflow", d.Workflow == nil}, {"Clock", d.Clock == nil},
	} {
		if dep.missing {
			return fmt.Errorf("the dependency %s is required", dep.name)
		}
	}
	return nil
}

// next is the script's answer to a finished ceremony: where to go.
type next struct {
	Next string `json:"next"`
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
