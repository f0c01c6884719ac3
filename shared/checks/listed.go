package checks

import (
	"encoding/json"
	"sort"
)

// ListedParty is one result of a screening answer as the provider sent it:
// the listed party's id, caption and score, the lists it is on, and its
// properties (FollowTheMoney's: name, alias, address, incorporationDate,
// registrationNumber, program, topics, …), each a list of strings.
type ListedParty struct {
	ID         string
	Caption    string
	Schema     string
	Score      float64
	Datasets   []string
	FirstSeen  string
	LastSeen   string
	Properties map[string][]string
}

// listedResult is a result of yente's answer, read loosely: a property
// value that is not a string (a nested entity) is left out.
type listedResult struct {
	ID         string                       `json:"id"`
	Caption    string                       `json:"caption"`
	Schema     string                       `json:"schema"`
	Score      float64                      `json:"score"`
	Datasets   []string                     `json:"datasets"`
	FirstSeen  string                       `json:"first_seen"`
	LastSeen   string                       `json:"last_seen"`
	Properties map[string][]json.RawMessage `json:"properties"`
}

// screeningBody is either shape a screening answer is kept in: yente's
// batch answer to POST /match (responses by query) or a screening webhook
// (one query's response under data).
type screeningBody struct {
	Responses map[string]struct {
		Results []listedResult `json:"results"`
	} `json:"responses"`
	Data struct {
		Response struct {
			Results []listedResult `json:"results"`
		} `json:"response"`
	} `json:"data"`
}

// ListedParties reads the results of a kept screening answer (a check's
// evidence body), by id. A body that is neither shape, or not JSON, has
// none: the caller shows what the check recorded instead.
func ListedParties(body []byte) map[string]ListedParty {
	var b screeningBody
	if json.Unmarshal(body, &b) != nil {
		return nil
	}
	out := map[string]ListedParty{}
	add := func(rs []listedResult) {
		for _, r := range rs {
			if r.ID != "" {
				out[r.ID] = r.party()
			}
		}
	}
	// Sorted, so a batch that names one party twice is read the same
	// way every time.
	refs := make([]string, 0, len(b.Responses))
	for ref := range b.Responses {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	for _, ref := range refs {
		add(b.Responses[ref].Results)
	}
	add(b.Data.Response.Results)
	return out
}

func (r listedResult) party() ListedParty {
	p := ListedParty{ID: r.ID, Caption: r.Caption, Schema: r.Schema, Score: r.Score, Datasets: r.Datasets,
		FirstSeen: r.FirstSeen, LastSeen: r.LastSeen, Properties: map[string][]string{}}
	for k, vs := range r.Properties {
		for _, v := range vs {
			var s string
			if json.Unmarshal(v, &s) == nil && s != "" {
				p.Properties[k] = append(p.Properties[k], s)
			}
		}
	}
	return p
}
