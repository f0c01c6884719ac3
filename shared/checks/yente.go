package checks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/evs-kyb/evs/shared/domain"
)

// ProviderOpenSanctions is the provider key of OpenSanctions screening.
const ProviderOpenSanctions = "opensanctions"

// Yente is a client of OpenSanctions' yente matching API:
// POST {base}/match/{dataset} with a batch of query-by-example entities.
// The hosted API takes "Authorization: ApiKey <key>"; a self-hosted yente
// needs none (leave APIKey empty).
type Yente struct {
	BaseURL string
	APIKey  string
	Dataset string // "default" when empty
	// Threshold is the service's match line: a result scoring at or above
	// it is a match; 0.7 when zero.
	Threshold float64
	// HitScore separates a hit from a match that needs review: a match at or
	// above it is a hit; 0.9 when zero.
	HitScore float64
	// ReviewMargin widens "needs review" to near misses: a result scoring
	// within the margin below the threshold; 0.05 when zero. yente returns
	// nothing below the threshold it is sent, so the band's low edge
	// (Threshold − ReviewMargin) is what is sent, and the service's own
	// lines are applied to the scores.
	ReviewMargin float64
	// Algorithm is yente's scoring algorithm, recorded with every check:
	// scores are not comparable across algorithms. "logic-v2" (yente 5's
	// default and recommended one) when empty.
	Algorithm string
	Limit     int // results per query; 5 when zero
	Client    *http.Client
}

// ScreeningQuery is one organisation to screen.
type ScreeningQuery struct {
	// Reference names the query in the batch; yente's answer and a later
	// webhook carry it back.
	Reference string
	// Schema is the FollowTheMoney schema of the query: Company unless
	// set (Person for a natural person).
	Schema string
	// Names are the names sent (ScreeningNames: at most
	// MaxScreeningNames), each matched on its own by the provider; the
	// honorifics taken off them go as title where the schema has one.
	Names              []ScreenedName
	Jurisdiction       string // ISO alpha-2, lower case for yente
	RegistrationNumber string
	// BirthDate (YYYY-MM-DD, or a year) and Nationality (ISO alpha-2) of
	// a person: they tell namesakes apart.
	BirthDate, Nationality string
	// ExcludeEntityIDs are matches a person has dismissed as false positives.
	ExcludeEntityIDs []string
}

// ScreeningMatch is one candidate the provider returned.
type ScreeningMatch struct {
	ID         string          `json:"id"`
	Caption    string          `json:"caption"`
	Schema     string          `json:"schema"`
	Score      float64         `json:"score"`
	Match      bool            `json:"match"`
	Datasets   []string        `json:"datasets"`
	Properties MatchProperties `json:"properties"`
	// Explanations are yente's reasons for the score, per feature
	// (name_match, identifier matches…): which query value met which of
	// the candidate's.
	Explanations map[string]Explanation `json:"explanations,omitempty"`
}

// Explanation is one feature's part of a score, as yente explains it.
type Explanation struct {
	Score     float64 `json:"score"`
	Query     *string `json:"query"`
	Candidate *string `json:"candidate"`
}

// MatchedName is which of the names sent the match was found on (the
// query side of yente's name explanation), "" when no name matched.
func (m ScreeningMatch) MatchedName() string {
	best, name := 0.0, ""
	for k, e := range m.Explanations {
		if strings.Contains(k, "name") && e.Score > best && e.Query != nil {
			best, name = e.Score, *e.Query
		}
	}
	return name
}

// IdentifierOnly reports whether the match was found with no name in
// common: yente scores an exact registration number 0.85 whatever the
// names, above the match line. A match without explanations (an older
// provider's answer) is not said to be one.
func (m ScreeningMatch) IdentifierOnly() bool {
	if len(m.Explanations) == 0 {
		return false
	}
	for k, e := range m.Explanations {
		if strings.Contains(k, "name") && e.Score > 0 {
			return false
		}
	}
	return true
}

// MatchProperties are the properties of a result the service reads: its
// topics, which say what the match is (MatchClass).
type MatchProperties struct {
	Topics []string `json:"topics,omitempty"`
}

// Class is the match's class by its topics (ClassSanction, ClassPEP,
// ClassOtherRisk).
func (m ScreeningMatch) Class() string { return MatchClass(m.Properties.Topics) }

// ScreeningResult is the provider's answer for one query, with our reading of it.
type ScreeningResult struct {
	Reference string
	Status    domain.SanctionsStatus // clear, hit or needs_review
	Matched   bool                   // any result at or above the threshold
	Matches   []ScreeningMatch       // results at or above the threshold
	Results   []ScreeningMatch       // every result returned
	Total     int
	TopScore  float64
	Threshold float64
	Algorithm string
	Dataset   string
	// Query is the query as sent ({"schema", "properties"}), kept with the
	// check so that a reader sees what was asked as well as what came back.
	Query map[string]any
	// Evidence is the provider's answer as received (the whole batch's).
	Evidence *domain.Evidence
}

type yenteRequest struct {
	Queries map[string]yenteQuery `json:"queries"`
}

type yenteQuery struct {
	Schema     string              `json:"schema"`
	Properties map[string][]string `json:"properties"`
}

// YenteResponse is the body of POST /match/{dataset}.
type YenteResponse struct {
	Responses map[string]YenteQueryResponse `json:"responses"`
	Limit     int                           `json:"limit"`
}

// YenteQueryResponse is the answer to one query of a batch; screening
// webhooks carry the same shape.
type YenteQueryResponse struct {
	Status  int              `json:"status"`
	Results []ScreeningMatch `json:"results"`
	Total   struct {
		Value    int    `json:"value"`
		Relation string `json:"relation"`
	} `json:"total"`
}

func (y *Yente) dataset() string   { return firstNonEmpty(y.Dataset, "default") }
func (y *Yente) algorithm() string { return firstNonEmpty(y.Algorithm, DefaultAlgorithm) }

// DefaultAlgorithm is the yente algorithm used unless one is set.
const DefaultAlgorithm = "logic-v2"

// queryThreshold is the threshold sent: the review band's low edge, so that
// the near misses come back too.
func (y *Yente) queryThreshold() float64 {
	return math.Round((y.threshold()-y.reviewMargin())*1000) / 1000
}
func (y *Yente) threshold() float64 {
	if y.Threshold > 0 {
		return y.Threshold
	}
	return 0.7
}
func (y *Yente) hitScore() float64 {
	if y.HitScore > 0 {
		return y.HitScore
	}
	return 0.9
}
func (y *Yente) reviewMargin() float64 {
	if y.ReviewMargin > 0 {
		return y.ReviewMargin
	}
	return 0.05
}

// Screen screens one organisation.
func (y *Yente) Screen(ctx context.Context, q ScreeningQuery) (ScreeningResult, error) {
	schema := firstNonEmpty(q.Schema, "Company")
	props := map[string][]string{}
	for _, n := range q.Names {
		props["name"] = append(props["name"], n.Name)
		// Only a person has a title in FollowTheMoney: a company's query
		// with one would be refused.
		if n.Title != "" && schema == "Person" && !slices.Contains(props["title"], n.Title) {
			props["title"] = append(props["title"], n.Title)
		}
	}
	if q.Jurisdiction != "" {
		props["jurisdiction"] = []string{strings.ToLower(q.Jurisdiction)}
	}
	if q.RegistrationNumber != "" {
		props["registrationNumber"] = []string{q.RegistrationNumber}
	}
	if schema == "Person" {
		// A person's country is a nationality, not a jurisdiction.
		if j, ok := props["jurisdiction"]; ok {
			delete(props, "jurisdiction")
			props["country"] = j
		}
		if q.BirthDate != "" {
			props["birthDate"] = []string{q.BirthDate}
		}
		if q.Nationality != "" {
			props["nationality"] = []string{strings.ToLower(q.Nationality)}
		}
	}
	body, _ := json.Marshal(yenteRequest{Queries: map[string]yenteQuery{q.Reference: {Schema: schema, Properties: props}}})

	params := url.Values{}
	params.Set("threshold", strconv.FormatFloat(y.queryThreshold(), 'f', -1, 64))
	params.Set("algorithm", y.algorithm())
	params.Set("limit", strconv.Itoa(max(y.Limit, 5)))
	ids := q.ExcludeEntityIDs
	if len(ids) > 50 { // yente's limit; the most recent dismissals come last
		ids = ids[len(ids)-50:]
	}
	for _, id := range ids {
		params.Add("exclude_entity_ids", id)
	}
	u := strings.TrimSuffix(y.BaseURL, "/") + "/match/" + url.PathEscape(y.dataset()) + "?" + params.Encode()
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return ScreeningResult{}, &ProviderError{Provider: ProviderOpenSanctions, Status: "misconfigured", Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if y.APIKey != "" {
		req.Header.Set("Authorization", "ApiKey "+y.APIKey)
	}
	resp, raw, ev, err := do(ctx, y.Client, ProviderOpenSanctions, req)
	if err != nil {
		return ScreeningResult{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return ScreeningResult{}, statusError(ProviderOpenSanctions, resp.StatusCode, raw, ev)
	}
	var out YenteResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return ScreeningResult{}, &ProviderError{Provider: ProviderOpenSanctions, Status: "bad_response", Err: fmt.Errorf("unreadable answer: %v", err), Evidence: ev}
	}
	qr, ok := out.Responses[q.Reference]
	if !ok {
		return ScreeningResult{}, &ProviderError{Provider: ProviderOpenSanctions, Status: "bad_response", Err: fmt.Errorf("no response for query %q", q.Reference), Evidence: ev}
	}
	if qr.Status != 0 && qr.Status != http.StatusOK {
		return ScreeningResult{}, &ProviderError{Provider: ProviderOpenSanctions, Status: strconv.Itoa(qr.Status), Err: fmt.Errorf("query failed with status %d", qr.Status), Evidence: ev}
	}
	res := y.Read(q.Reference, qr)
	res.Evidence = ev
	res.Query = sentQuery(schema, props)
	return res, nil
}

// Read turns the provider's answer to one query into a result by the
// service's own lines, whatever yente's match flag says (it is set by the
// threshold sent, the band's low edge). Every result at or above the
// threshold is a match to judge, whatever its class; the status (the
// entity's sanctions_status) follows the sanction-class ones alone: none at
// or above the threshold is clear; one scoring at or above HitScore is a
// hit; a weaker one, or a sanction-class near miss within ReviewMargin of
// the threshold, needs review. A PEP or other-risk match leaves it clear
// and is judged all the same.
func (y *Yente) Read(reference string, qr YenteQueryResponse) ScreeningResult {
	r := ScreeningResult{
		Reference: reference, Results: qr.Results, Total: qr.Total.Value,
		Threshold: y.threshold(), Algorithm: y.algorithm(), Dataset: y.dataset(),
		Status: domain.SanctionsClear,
	}
	sort.SliceStable(r.Results, func(i, j int) bool { return r.Results[i].Score > r.Results[j].Score })
	for _, m := range r.Results {
		r.TopScore = max(r.TopScore, m.Score)
		sanction := m.Class() == ClassSanction
		switch {
		case m.Score >= r.Threshold:
			r.Matches = append(r.Matches, m)
			switch {
			case !sanction:
			case m.Score >= y.hitScore():
				r.Status = domain.SanctionsHit
			case r.Status != domain.SanctionsHit:
				r.Status = domain.SanctionsNeedsReview
			}
		case sanction && m.Score >= r.Threshold-y.reviewMargin() && r.Status == domain.SanctionsClear:
			r.Status = domain.SanctionsNeedsReview
		}
	}
	r.Matched = len(r.Matches) > 0
	return r
}

// sentQuery is a query as the check records it.
func sentQuery(schema string, props map[string][]string) map[string]any {
	p := map[string]any{}
	for k, vs := range props {
		l := make([]any, len(vs))
		for i, v := range vs {
			l[i] = v
		}
		p[k] = l
	}
	return map[string]any{"schema": schema, "properties": p}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
