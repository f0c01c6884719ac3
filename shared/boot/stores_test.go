package boot

import (
	"github.com/evs-kyb/evs/shared/admin"
	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/delivery"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/reviewevents"
	"github.com/evs-kyb/evs/shared/screening"
	"github.com/evs-kyb/evs/shared/store"
	"github.com/evs-kyb/evs/shared/subscriptions"
)

// The store serves every consumer's interface. The check lives here, where
// they are wired, so that the consumers never import the store; in a test,
// so that no function links the consumers it does not run.
var (
	_ admin.Store              = (*store.Store)(nil)
	_ api.EntityCreator        = (*store.Store)(nil)
	_ api.DossierReader        = (*store.Store)(nil)
	_ api.EntityLister         = (*store.Store)(nil)
	_ api.ReviewReader         = (*store.Store)(nil)
	_ screening.Store          = (*store.Store)(nil)
	_ decisions.Store          = (*store.Store)(nil)
	_ decisions.SchedulerStore = (*store.Store)(nil)
	_ decisions.QueueRecounter = (*store.Store)(nil)
	_ delivery.Store           = (*store.Store)(nil)
	_ delivery.ViewStore       = (*store.Store)(nil)
	_ delivery.TestStore       = (*store.Store)(nil)
	_ portal.Store             = (*store.Store)(nil)
	_ reviewevents.Endpoints   = (*store.Store)(nil)
	_ subscriptions.Store      = (*store.Store)(nil)
)
