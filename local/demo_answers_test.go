package main

// The demo's screening answers are the engine's: each name the demo gives
// a business or party to be found (seed.Listings) is screened again by the
// running engine, through the service's yente client, and its answer must
// be the one the seed keeps (local/seed/engine_answers.json) and read as
// the listing says. go test ./local -run TestDemoAnswersAreTheEngines
// -record-demo-answers writes the recording afresh (after a change to the
// dataset, the engine or a listing).

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/devstack"
)

var recordDemoAnswers = flag.Bool("record-demo-answers", false, "write local/seed/engine_answers.json from the running engine's answers")

func TestDemoAnswersAreTheEngines(t *testing.T) {
	engineStack(t)
	recorded, err := seed.EngineAnswers()
	if err != nil {
		t.Fatal(err)
	}
	y := &checks.Yente{BaseURL: devstack.YenteURL(), Client: &http.Client{Timeout: 30 * time.Second}}
	fresh := seed.DemoAnswers{}
	for i, l := range seed.Listings() {
		t.Run(l.Name, func(t *testing.T) {
			// A number no listed party has: the answer is the name's.
			res, err := y.Screen(context.Background(), l.Query(fmt.Sprintf("demo-%d", i), "7099999990"))
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Status) != l.Outcome {
				t.Errorf("the engine's answer reads %s, the listing says %s (%+v)", res.Status, l.Outcome, res.Results)
			}
			if len(res.Matches) == 0 || res.Matches[0].ID != l.Listed {
				t.Errorf("the engine's first match %+v, the listing names %s", res.Matches, l.Listed)
			}
			live, err := rawResults(res.Evidence.Body)
			if err != nil {
				t.Fatal(err)
			}
			fresh[l.Name] = live
			if *recordDemoAnswers {
				return
			}
			if got, want := idsAndScores(live), idsAndScores(recorded[l.Name]); got != want {
				t.Errorf("the engine now answers %s; the demo keeps %s: go test ./local -run TestDemoAnswersAreTheEngines -record-demo-answers", got, want)
			}
		})
	}
	if *recordDemoAnswers && !t.Failed() {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", " ")
		if err := enc.Encode(fresh); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("seed/engine_answers.json", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rawResults are the results of the batch's one answer, as the engine sent
// them.
func rawResults(body []byte) ([]json.RawMessage, error) {
	var b struct {
		Responses map[string]struct {
			Results []json.RawMessage `json:"results"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("read the engine's answer: %w", err)
	}
	for _, r := range b.Responses {
		return r.Results, nil
	}
	return nil, fmt.Errorf("the engine's answer has no response: %s", body)
}

// idsAndScores is what must agree between two answers: each result's id
// and its score to three places.
func idsAndScores(rs []json.RawMessage) string {
	out := ""
	for _, r := range rs {
		var m struct {
			ID    string  `json:"id"`
			Score float64 `json:"score"`
		}
		if err := json.Unmarshal(r, &m); err != nil {
			return "unreadable: " + err.Error()
		}
		out += fmt.Sprintf("%s %.3f; ", m.ID, math.Round(m.Score*1000)/1000)
	}
	return out
}
