package seed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"

	"github.com/evs-kyb/evs/local/sim"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/domain"
)

// Evidence: a demo check that got an answer from its provider carries it, as
// a real one does. The answer (providers.go) goes through the real clients of
// shared/checks over an in-process transport, so the evidence (request,
// status, hash, size) and the result read from it are what intake records
// for those bytes; only received_at is set from the check's own times.

// Where the answers come from: the deployment's default base URLs
// (shared/deploy), so demo evidence names the real providers' APIs.
const (
	wathqBase = "https://api.wathq.sa"
	yenteBase = "https://api.opensanctions.org"
)

// answerAll gives each check that got an answer its evidence; k, the check's
// place among the entity's, names its screening query.
func answerAll(cs []domain.Check, e domain.Entity) {
	for k := range cs {
		answer(&cs[k], e, k)
	}
}

// answer replaces a check's planned result by the one read from its
// provider's answer, and keeps the answer as its evidence. A check the
// provider has not answered (pending, running, timed out) is left alone.
func answer(ch *domain.Check, e domain.Entity, k int) {
	status, ok := answerStatus(*ch)
	if !ok {
		return
	}
	var (
		result map[string]any
		ev     *domain.Evidence
	)
	if ch.Type == domain.CheckRegistryLookup {
		result, ev = lookup(*ch, e, status)
	} else {
		result, ev = screen(*ch, e, k, status)
	}
	if result["status"] != ch.Result["status"] {
		// The answer is made from the plan: reading another outcome from it
		// is a bug here, and would leave the entity's story incoherent.
		panic(fmt.Sprintf("seed: %s planned %v, its answer reads %v", ch.Type, ch.Result["status"], result["status"]))
	}
	ev.ReceivedAt = *ch.CheckedAt
	result["evidence"] = ev.ResultMap()
	ch.Result, ch.Evidence = checks.Sanitize(ch.Type, result), ev
}

// answerStatus is the HTTP status the provider answered the check with:
// 200 when it completed, the status a failed check records (503, 429);
// false for a check with no answer (not yet run, or a timeout).
func answerStatus(ch domain.Check) (int, bool) {
	switch ch.Status {
	case domain.CheckCompleted:
		return http.StatusOK, true
	case domain.CheckFailed:
		code, err := strconv.Atoi(ch.ProviderStatus)
		return code, err == nil
	}
	return 0, false
}

// lookup asks the Wathq client, as intake does.
func lookup(ch domain.Check, e domain.Entity, status int) (map[string]any, *domain.Evidence) {
	p := failing(status, wathqFailure(status))
	if status == http.StatusOK {
		p = wathqProvider(sim.Registration{Name: e.LegalName, Status: ch.Result["status"].(string), Parties: e.Parties})
	}
	w := checks.Wathq{BaseURL: wathqBase, Client: p.client(), Clock: domain.FixedClock(*ch.CheckedAt)}
	rec, err := w.Lookup(context.Background(), e.RegistrationNumber)
	if err != nil {
		return failed(ch, err)
	}
	return checks.RegistryResult(rec), rec.Evidence
}

// screen asks the yente client, as intake does: the organisation by name,
// country and number; a party (a Person) by its name.
func screen(ch domain.Check, e domain.Entity, k, status int) (map[string]any, *domain.Evidence) {
	p := failing(status, yenteFailure(status))
	if status == http.StatusOK {
		p = yenteProvider(ch.Result["status"].(string))
	}
	q := Listing{Name: e.LegalName, Country: e.CountryCode}.Query(demoReference(e, k), e.RegistrationNumber)
	if ch.SubjectDisplayName != nil {
		q = Listing{Name: *ch.SubjectDisplayName, Person: true}.Query(demoReference(e, k), "")
	}
	y := checks.Yente{BaseURL: yenteBase, Client: p.client()}
	res, err := y.Screen(context.Background(), q)
	if err != nil {
		return failed(ch, err)
	}
	return checks.ScreeningResultMap(res), res.Evidence
}

// demoReference names a screening query. A real one names the check's id
// (checks.ScreeningReference), which the store assigns only after the
// answer's bytes are hashed; the entity's number and the check's place are
// known before.
func demoReference(e domain.Entity, k int) string {
	return fmt.Sprintf("evs-demo-%s-%d", e.RegistrationNumber, k+1)
}

// failed keeps the failed check's own result, with the error answer the
// client took as evidence.
func failed(ch domain.Check, err error) (map[string]any, *domain.Evidence) {
	var pe *checks.ProviderError
	if ch.Status != domain.CheckFailed || !errors.As(err, &pe) || pe.Evidence == nil {
		panic(fmt.Sprintf("seed: the made-up answer to a %s check was not read as planned: %v", ch.Type, err))
	}
	return maps.Clone(ch.Result), pe.Evidence
}
