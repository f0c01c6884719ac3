// Package sim is the local provider simulator: it speaks both generations of
// the Wathq commercial-registration API (the current
// /commercial-registration/fullinfo with its status lookup, and the legacy
// v4 and v5 /commercialregistration/fullinfo), hands OpenSanctions yente's
// matching API to the real engine (Screening: yente over the project's
// listed-parties dataset) after the faults only a simulator can make, and
// posts signed screening webhooks the way a screening provider would.
//
// The registration number's last digit chooses what the register says and
// which faults the providers show (for a number the simulator is told it
// knows, Known, the register answers what it holds and nothing fails); the
// screening's outcome is the engine's reading of the names (RegisterName):
//
//	last digit  registry (Wathq)                        screening (yente)
//	0, 8, 9     active, an invented name                the engine's answer
//	1           active, a listed party's name           the engine's answer (a hit)
//	2           active, a listed party's near namesake  the engine's answer (the review band)
//	3           not found (404)                         the engine's answer (declared names only)
//	4           expired                                 the engine's answer
//	5           slow: answers after 30 s                slow: answers after 30 s
//	6           failing: 503                            failing: 500
//	7           suspended                               the engine's answer
//
// The register lists parties only where the tens digit is 4
// (RegisterParties): a partner who manages and a holding company (79…),
// the partner a listed person when the last digit is 8, five partners
// instead when the hundreds digit is 5.
package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/evs-kyb/evs/shared/capped"
	"github.com/evs-kyb/evs/shared/domain"
)

// Outcome is what the simulator answers for a registration number.
type Outcome string

const (
	Clear       Outcome = "clear"
	Hit         Outcome = "hit"
	NeedsReview Outcome = "needs_review"
	NotFound    Outcome = "not_found"
	Expired     Outcome = "expired"
	Slow        Outcome = "slow"
	Failing     Outcome = "failing"
	Suspended   Outcome = "suspended"
)

// OutcomeOf picks the outcome from the registration number's last digit.
func OutcomeOf(registrationNumber string) Outcome {
	if registrationNumber == "" {
		return Clear
	}
	switch registrationNumber[len(registrationNumber)-1] {
	case '1':
		return Hit
	case '2':
		return NeedsReview
	case '3':
		return NotFound
	case '4':
		return Expired
	case '5':
		return Slow
	case '6':
		return Failing
	case '7':
		return Suspended
	default:
		return Clear
	}
}

// SlowDelay is how long a "slow" outcome takes: longer than any check's timeout.
const SlowDelay = 30 * time.Second

// Simulator is an http.Handler serving both providers' APIs.
type Simulator struct {
	WathqAPIKey string // required in the apiKey header
	YenteAPIKey string // required as "Authorization: ApiKey <key>" when set
	// Latency added to every answer, per provider (for benchmarks).
	RegistryLatency  time.Duration
	ScreeningLatency time.Duration
	// Screening is the screening engine /match is handed to (EngineProxy
	// of yente); nil answers 503, as an engine that is down would.
	Screening http.Handler
	// RegistryPadding, when set, adds a field of that many bytes to every
	// registry answer (as a register's long history would): an answer over
	// the 350 KB an evidence item holds, for the evidence's blob store.
	RegistryPadding int
	// Known are the businesses the register knows as they are (the
	// demo's, seed.RegisterBook), by registration number: answered with
	// their own name and state, and neither provider shows a digit's
	// fault for them, so a demo check run again gets an answer that
	// agrees with the demo's story.
	Known map[string]Registration

	mu    sync.Mutex
	calls map[string]int // by provider
}

// Registration is what the register holds of a business: its legal name,
// its state (RegisterActive, RegisterExpired, …) and its parties.
type Registration struct {
	Name, Status string
	Parties      []domain.Party
}

// Calls reports how many requests a provider ("wathq", "opensanctions") got.
func (s *Simulator) Calls(provider string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[provider]
}

func (s *Simulator) count(provider string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[provider]++
}

func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/commercial-registration/lookup/status":
		if s.wathqKeyRefused(w, r) {
			return
		}
		writeJSON(w, http.StatusOK, WathqStatusLookup())
	case r.Method == http.MethodGet && r.URL.Path == "/commercial-registration/lookup/managerPositions":
		if s.wathqKeyRefused(w, r) {
			return
		}
		writeJSON(w, http.StatusOK, WathqPositionsLookup())
	case r.Method == http.MethodGet && r.URL.Path == "/commercial-registration/lookup/nationalities":
		if s.wathqKeyRefused(w, r) {
			return
		}
		writeJSON(w, http.StatusOK, WathqNationalitiesLookup())
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/commercial-registration/fullinfo/"):
		s.count("wathq")
		s.wathq(w, r, WathqCurrent, strings.TrimPrefix(r.URL.Path, "/commercial-registration/fullinfo/"))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v4/commercialregistration/fullinfo/"):
		s.count("wathq")
		s.wathq(w, r, WathqV4, strings.TrimPrefix(r.URL.Path, "/v4/commercialregistration/fullinfo/"))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v5/commercialregistration/fullinfo/"):
		s.count("wathq")
		s.wathq(w, r, WathqV5, strings.TrimPrefix(r.URL.Path, "/v5/commercialregistration/fullinfo/"))
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/match/"):
		s.count("opensanctions")
		s.yente(w, r, strings.TrimPrefix(r.URL.Path, "/match/"))
	default:
		http.NotFound(w, r)
	}
}

// wait sleeps for d, or until the caller gives up.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// wathqKeyRefused answers a request without the key as Wathq does.
func (s *Simulator) wathqKeyRefused(w http.ResponseWriter, r *http.Request) bool {
	if s.WathqAPIKey != "" && r.Header.Get("apiKey") != s.WathqAPIKey {
		writeJSON(w, http.StatusUnauthorized, WathqError("401.1.1", "Invalid apiKey"))
		return true
	}
	return false
}

func (s *Simulator) wathq(w http.ResponseWriter, r *http.Request, api, id string) {
	if s.wathqKeyRefused(w, r) {
		return
	}
	if known, ok := s.Known[id]; ok {
		if !wait(r, s.RegistryLatency) {
			return
		}
		writeJSON(w, http.StatusOK, WathqRegisterAnswer(api, id, known))
		return
	}
	outcome := OutcomeOf(id)
	delay := s.RegistryLatency
	if outcome == Slow {
		delay = SlowDelay
	}
	if !wait(r, delay) {
		return
	}
	status := RegisterActive
	switch outcome {
	case NotFound:
		writeJSON(w, http.StatusNotFound, WathqError("404.2.1", "Commercial registration not found"))
		return
	case Failing:
		writeJSON(w, http.StatusServiceUnavailable, WathqError("503.1.1", "Service temporarily unavailable"))
		return
	case Expired:
		status = RegisterExpired
	case Suspended:
		status = RegisterSuspended
	}
	answer := WathqRegisterAnswer(api, id, Registration{Name: RegisterName(id), Status: status, Parties: RegisterParties(id)})
	if s.RegistryPadding > 0 {
		answer["history"] = strings.Repeat("-", s.RegistryPadding)
	}
	writeJSON(w, http.StatusOK, answer)
}

type yenteQuery struct {
	Schema     string              `json:"schema"`
	Properties map[string][]string `json:"properties"`
}

// yente checks the key as the hosted API does, applies the faults a
// registration number asks for (slow, failing: what a real engine cannot be
// told to do), then hands the request to the real engine (Screening): the
// names decide what comes back, never a digit.
func (s *Simulator) yente(w http.ResponseWriter, r *http.Request, dataset string) {
	if s.YenteAPIKey != "" && r.Header.Get("Authorization") != "ApiKey "+s.YenteAPIKey {
		writeJSON(w, http.StatusForbidden, map[string]any{"detail": "Invalid API key"})
		return
	}
	var body struct {
		Queries map[string]yenteQuery `json:"queries"`
	}
	raw, _, _ := capped.Read(r.Body, 1<<20)
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Queries) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"detail": "No queries provided."})
		return
	}
	// A batch takes as long as its slowest query.
	delay := s.ScreeningLatency
	for _, q := range body.Queries {
		number := first(q.Properties["registrationNumber"])
		if _, known := s.Known[number]; known {
			continue
		}
		if o := OutcomeOf(number); o == Slow {
			delay = SlowDelay
		} else if o == Failing {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"detail": "Internal server error"})
			return
		}
	}
	if !wait(r, delay) {
		return
	}
	if s.Screening == nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"detail": "no screening engine: the simulator hands /match to yente (local/stack/stack.sh start yente)"})
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	r.ContentLength = int64(len(raw))
	r.Header.Del("Authorization") // a self-hosted yente takes none
	s.Screening.ServeHTTP(w, r)
}

// EngineProxy hands requests to the screening engine at base (yente's URL).
func EngineProxy(base string) (http.Handler, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("the screening engine's address %q is not a URL", base)
	}
	return httputil.NewSingleHostReverseProxy(u), nil
}

// Matches are the results yente returns for an outcome, in its format,
// each with the details a listing carries (aliases, where and when the
// party was registered, its address, identifiers, the programme it is
// listed under), as FollowTheMoney names them.
func Matches(o Outcome, name string) []map[string]any {
	if name == "" {
		name = "Unnamed Company"
	}
	result := func(id string, score float64, props map[string]any, datasets ...string) map[string]any {
		props["name"] = []string{name}
		props["alias"] = []string{name + " Co.", strings.ToUpper(name)}
		props["topics"] = []string{"sanction"}
		return map[string]any{
			"id": id, "caption": name, "schema": "Company", "score": score, "match": true,
			"datasets": datasets, "referents": []string{}, "target": true,
			"properties":   props,
			"explanations": map[string]any{"name_literal_match": map[string]any{"score": score}},
			"first_seen":   "2023-01-01T00:00:00", "last_seen": "2026-11-01T00:00:00",
		}
	}
	switch o {
	case Hit:
		return []map[string]any{result("NK-sim-hit", 0.97, map[string]any{
			"jurisdiction": []string{"ae"}, "address": []string{"Office 1204, Cluster J, Jumeirah Lake Towers, Dubai"},
			"incorporationDate": []string{"2014-02-11"}, "registrationNumber": []string{"DMCC-184467"},
			"program": []string{"SDGT", "EU 2580/2001"}, "sourceUrl": []string{"https://sanctionssearch.ofac.treas.gov/"},
		}, "us_ofac_sdn", "eu_fsf")}
	case NeedsReview:
		return []map[string]any{result("NK-sim-review", 0.78, map[string]any{
			"jurisdiction": []string{"gb"}, "address": []string{"71 Fenchurch Street, London EC3M 4BS"},
			"incorporationDate": []string{"2011-09-30"}, "registrationNumber": []string{"07790214"},
			"program": []string{"Russia"},
		}, "gb_hmt_sanctions")}
	}
	return nil
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}
