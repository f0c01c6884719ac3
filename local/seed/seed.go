// Package seed generates demo and benchmark data: entities with their checks
// and reviews, shaped for store.ImportEntities (every id zero; the store
// assigns ids, links checks to each entity's first review and sets the
// counts). Demo checks their provider answered carry the answer as evidence,
// in the provider's wire format, with the result read from it as intake
// reads a real one (evidence.go).
//
// Generation is deterministic: a fixed PCG seed, and nothing read from the
// clock but the now passed in. In Demo every entity draws from a generator of
// its own, seeded by its position, so entity i has the same content whatever
// n is (only its timestamps depend on n): the first 120 entities cover every
// value of the contract, so any n >= 120 does too.
package seed

import (
	"math/rand/v2"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Generation names what Demo generates; it changes when the same position
// would give another story (make local seeds a demo of another generation
// again).
const Generation = "2026-12-07 listed names, register book, parties"

// Window is how far back Demo and Bulk spread creation times.
const Window = 120 * 24 * time.Hour

// The newest entity is created at least this long before now, so that every
// entity has room for a little history after its creation.
const newestGap = time.Hour

// Entities live at least this long between creation and last change (unless
// created very recently).
const minLife = 10 * time.Minute

const (
	demoSeed uint64 = 0x5eedde40a11ce001
	bulkSeed uint64 = 0x5eedb01cb0b00002
)

// Country identity of generated entities.
const (
	saCode    = "SA"
	saNumeric = 682
	aeCode    = "AE"
	aeNumeric = 784
)

// Provider keys of the two check types.
const (
	providerRegistry  = "wathq"
	providerScreening = "opensanctions"
)

// Demo returns the demo data set: n entities (n >= 120 gives full coverage),
// created over the 120 days before now, oldest first (the store assigns
// increasing ids in slice order, so the last one is the newest).
//
// Each entity's checks are in creation order (oldest first, so that their ids
// grow with creation) and its reviews start with the initial review, the one
// the store links the checks to. The store returns both in display order.
func Demo(now time.Time, n int) []domain.EntityDetail {
	if n <= 0 {
		return []domain.EntityDetail{}
	}
	now = now.UTC().Truncate(time.Millisecond)
	out := make([]domain.EntityDetail, n)
	turns := listingTurns{}
	for i := range out {
		r := rand.New(rand.NewPCG(demoSeed, mix(uint64(i))))
		out[i] = demoEntity(r, now, i, createdAt(now, i, n, r.Float64()), turns)
	}
	return out
}

// mix is splitmix64's finaliser: it turns consecutive positions into
// unrelated generator streams.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
