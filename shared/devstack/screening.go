package devstack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// The local screening engine: OpenSanctions' yente over a single-node
// OpenSearch, both run by the stack script (local/stack/stack.sh, services
// opensearch and yente; local/screening), indexing the fictional listed
// parties of local/screening/listed-parties.ftm.json.

// YenteURL is YENTE_URL, or the stack's yente on 127.0.0.1 at YENTE_PORT
// (8765).
func YenteURL() string {
	if v := os.Getenv("YENTE_URL"); v != "" {
		return strings.TrimRight(v, "/")
	}
	return "http://127.0.0.1:" + envOr("YENTE_PORT", "8765")
}

// YenteCanaryID is the dataset's fixture entity, a company named
// YenteCanaryName, that /match/default finds once yente has indexed the
// dataset: the stack script waits for it as Ensure does, since /readyz can
// answer before the index is in place.
const (
	YenteCanaryID   = "evs-co-canary"
	YenteCanaryName = "EVS Canary Screening Fixture Ltd"
)

// yenteAnswers reports whether Ensure can use the yente YenteURL names. A
// yente named by YENTE_URL is someone's own (a server elsewhere, a
// stand-in): that it answers HTTP is enough, and Ensure starts nothing for
// it. The stack's yente must be ready (yenteReady).
func yenteAnswers(ctx context.Context) bool {
	if os.Getenv("YENTE_URL") != "" {
		return answers(YenteURL())
	}
	return yenteReady(ctx, YenteURL()) == nil
}

// yenteReady is nil once the yente at base answers /readyz and its
// /match/default finds the canary entity.
func yenteReady(ctx context.Context, base string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	status, _, err := yenteCall(ctx, http.MethodGet, base+"/readyz", nil)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s/readyz: HTTP %d", base, status)
	}
	query := map[string]any{"queries": map[string]any{"canary": map[string]any{
		"schema": "Company", "properties": map[string][]string{"name": {YenteCanaryName}}}}}
	body, _ := json.Marshal(query)
	status, answer, err := yenteCall(ctx, http.MethodPost, base+"/match/default", body)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("POST %s/match/default: HTTP %d", base, status)
	}
	var got struct {
		Responses map[string]struct {
			Results []struct {
				ID string `json:"id"`
			} `json:"results"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(answer, &got); err != nil {
		return fmt.Errorf("POST %s/match/default: %w", base, err)
	}
	for _, r := range got.Responses["canary"].Results {
		if r.ID == YenteCanaryID {
			return nil
		}
	}
	return fmt.Errorf("POST %s/match/default: the canary %s is not found (the index is not in place yet?)", base, YenteCanaryID)
}

func yenteCall(ctx context.Context, method, url string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, answer, nil
}

// errYenteNotReady says what Ensure found after starting the stack.
func errYenteNotReady(ctx context.Context) error {
	if os.Getenv("YENTE_URL") != "" {
		if answers(YenteURL()) {
			return nil
		}
		return errors.New("local stack started, but the yente YENTE_URL names does not answer at " + YenteURL())
	}
	if err := yenteReady(ctx, YenteURL()); err != nil {
		return fmt.Errorf("local stack started, but yente is not ready (see the yente log under the stack's logs/): %w", err)
	}
	return nil
}
