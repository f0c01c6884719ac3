package console

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/evs-kyb/evs/shared/webpage"
)

// staleView says that the dossier a decision was made on is no longer the
// entity's, what changed since it was seen, and where the fresh one is.
type staleView struct {
	Base               string // the console's path, for the link
	ReviewID, EntityID int64
	// Seen is the ETag decided on, Now the dossier's.
	Seen, Now string
	// Since is when the dossier was seen (zero: unknown, and the latest
	// changes are listed).
	Since   time.Time
	Changes []change
}

// change is one thing that moved in a dossier.
type change struct {
	At   time.Time
	What string
	Who  string
}

// latestChanges is how many changes a stale view lists when it does not
// know when the dossier was seen.
const latestChanges = 5

// staleViewOf lists what changed in the entity's dossier since: its
// audited actions and its checks' updates, newest first.
func (h *handler) staleViewOf(c *webpage.Call, reviewID, entityID int64, seen string, since time.Time) (staleView, error) {
	ctx, accountID := c.R.Context(), c.Session.AccountID
	d, err := h.loadDossier(ctx, accountID, entityID)
	if err != nil {
		return staleView{}, err
	}
	trail, err := h.d.Store.AuditTrail(ctx, accountID, entityID)
	if err != nil {
		return staleView{}, err
	}
	v := staleView{Base: c.Base, ReviewID: reviewID, EntityID: entityID, Seen: seen, Now: d.ETag, Since: since}
	for _, a := range trail {
		if since.IsZero() || a.At.After(since) {
			what := actionLabel(a.Action)
			if a.ReviewID != nil {
				what += fmt.Sprintf(" (review %d)", *a.ReviewID)
			}
			if a.Reason != "" {
				what += ": " + a.Reason
			}
			v.Changes = append(v.Changes, change{At: a.At, What: what, Who: a.OperatorName})
		}
	}
	for _, ch := range d.Checks {
		if !since.IsZero() && ch.UpdatedAt.After(since) {
			v.Changes = append(v.Changes, change{At: ch.UpdatedAt, What: fmt.Sprintf("Check %d (%s) is %s", ch.ID, label(ch.Type), ch.Status)})
		}
	}
	slices.SortFunc(v.Changes, func(a, b change) int { return b.At.Compare(a.At) })
	if since.IsZero() && len(v.Changes) > latestChanges {
		v.Changes = v.Changes[:latestChanges]
	}
	return v, nil
}

// parseSince reads a page's viewed_at; zero when absent or garbled.
func parseSince(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// showStale renders the stale view of a review's dossier (409: the
// decision cannot go on as it stands).
func (h *handler) showStale(c *webpage.Call, reviewID, entityID int64, seen string, since time.Time) {
	v, err := h.staleViewOf(c, reviewID, entityID, seen, since)
	if err != nil {
		c.Fail(err)
		return
	}
	c.Render(http.StatusConflict, "stale", "The dossier changed", "queue", v)
}
