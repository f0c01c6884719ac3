package seed

import (
	"time"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/domain"
)

// RegisterBook is what the simulated register knows of the demo's n
// businesses (sim.Simulator.Known): each under its name, in the state its
// latest answered lookup found (active when none was answered), with its
// parties. A demo
// check run again then answers as the demo's story has it — the same
// name, so the same screening — and a provider that failed the demo's
// check answers this time.
func RegisterBook(n int) map[string]sim.Registration {
	book := map[string]sim.Registration{}
	for _, d := range Demo(time.Now(), n) {
		reg := sim.Registration{Name: d.Entity.LegalName, Status: sim.RegisterActive, Parties: d.Entity.Parties}
		if last := latest(d.Checks, domain.CheckRegistryLookup, func(c domain.Check) bool { return c.Status == domain.CheckCompleted }); last != nil {
			reg.Status = last.ProviderStatus // the register's state, as planned (checks.go)
		}
		book[d.Entity.RegistrationNumber] = reg
	}
	return book
}
