package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/evs-kyb/evs/local/seed"
	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/checks"
	"github.com/evs-kyb/evs/shared/decisions"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
)

// demoState is what `up` remembers between runs (git-ignored), so a second
// run reuses the demo account and key instead of seeding again.
type demoState struct {
	TablePrefix string `json:"table_prefix"`
	AccountID   int64  `json:"account_id"`
	Key         string `json:"key"`
	// OperatorID is the demo operator, who signs in to the settings area.
	OperatorID int64 `json:"operator_id"`
	// Seed is the demo data's generation (seed.Generation): a demo
	// seeded by another is seeded again, in a new account, so its
	// entities agree with what the simulated register knows of them.
	Seed string `json:"seed,omitempty"`
}

// ensureDemo reuses the demo account when its key still works against these
// tables, and otherwise creates it: an account with Saudi Arabia and the UAE
// enabled, the demo entities, and a key with every permission.
func ensureDemo(ctx context.Context, e *env, n int) (*demoState, error) {
	path, err := demoStatePath()
	if err != nil {
		return nil, err
	}
	if st, err := readDemoState(path); err == nil && st.TablePrefix == tablePrefix() && st.Seed == seed.Generation {
		p, err := (&auth.Authorizer{Keys: e.store, Clock: domain.SystemClock}).Authenticate(ctx, "Bearer "+st.Key)
		if err == nil && p.AccountID == st.AccountID {
			e.log.Info("reusing demo account", "account_id", st.AccountID)
			if st.OperatorID == 0 { // a state written before the settings area
				if st.OperatorID, err = demoOperator(ctx, e, st.AccountID); err != nil {
					return nil, err
				}
				return st, writeDemoState(path, st)
			}
			return st, nil
		}
	}
	st, err := seedDemo(ctx, e, n)
	if err != nil {
		return nil, err
	}
	if err := writeDemoState(path, st); err != nil {
		return nil, err
	}
	return st, nil
}

// seedDemo creates the demo account as make local has it: Saudi Arabia and
// the UAE enabled, declared decisions accepted, n demo entities, a key with
// every permission and the Demo Operator.
func seedDemo(ctx context.Context, e *env, n int) (*demoState, error) {
	// The demo accepts declared decisions, so `go run ./local decide` works
	// as written; a real account signs every decision in the console.
	acct, err := createDeclaredAccount(ctx, e, "Demo Merchants", []string{"SA", "AE"})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if _, err := e.store.ImportEntities(ctx, acct.ID, seed.Demo(domain.Now(), n)); err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	e.log.Info("demo data seeded", "account_id", acct.ID, "entities", n, "ms", time.Since(start).Milliseconds())
	key, err := createKey(ctx, e, acct.ID, domain.APIKeyPermissions())
	if err != nil {
		return nil, err
	}
	op, err := demoOperator(ctx, e, acct.ID)
	if err != nil {
		return nil, err
	}
	return &demoState{TablePrefix: tablePrefix(), AccountID: acct.ID, Key: key, OperatorID: op, Seed: seed.Generation}, nil
}

// demoOperator adds the demo account's operator, with every permission.
func demoOperator(ctx context.Context, e *env, accountID int64) (int64, error) {
	op, err := e.store.CreateOperator(ctx, accountID, "Demo Operator", domain.OperatorPermissions(), domain.Now())
	if err != nil {
		return 0, fmt.Errorf("demo operator: %w", err)
	}
	return op.ID, nil
}

// enrolmentLink mints the Demo Operator's enrolment link to the console,
// as an administrator's portal.link does: their first passkey is
// registered there.
func enrolmentLink(ctx context.Context, e *env, demo *demoState, base string) (string, error) {
	p := &portal.Service{Store: e.store, Clock: domain.SystemClock}
	l, err := p.Mint(ctx, domain.Actor{AccountID: demo.AccountID, Admin: "make local", ActionID: "up-console-" + randomID()}, demo.OperatorID)
	if err != nil {
		return "", fmt.Errorf("console enrolment link: %w", err)
	}
	return portal.LinkURL(base, l.Token)
}

func demoStatePath() (string, error) {
	dir, err := demoDir()
	return filepath.Join(dir, "demo.json"), err
}

// demoDir holds the demo's state and names: EVS_DEMO_DIR, else .local in
// the repository (a test's up keeps its own).
func demoDir() (string, error) {
	if v := os.Getenv("EVS_DEMO_DIR"); v != "" {
		return v, nil
	}
	root, err := devstack.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".local"), nil
}

func readDemoState(path string) (*demoState, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st demoState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	if st.Key == "" || st.AccountID == 0 {
		return nil, errors.New("incomplete demo state")
	}
	return &st, nil
}

func writeDemoState(path string, st *demoState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	// The key is a secret: readable by its owner only.
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// demoPicks are what the README's first steps act on, found afresh at each
// start (a reader may have decided last time's): the newest open review of
// an entity whose screening came back clear and which the decision policy
// lets an operator approve (risk assessed, its intake checks completed:
// decisions.ApproveBlockers), and of one with a sanctions hit, with the id
// of its first match. The newest: the console's Take the next one hands out
// the oldest first, so a reader who walks the console before the front page
// leaves these to it. Zero where the data holds none.
type demoPicks struct {
	Review    domain.QueueEntry
	HitReview domain.QueueEntry
	HitMatch  string
	// Other is the next open review of a clear screening, for the area
	// READMEs' examples (the front page decides Review).
	Other domain.QueueEntry
	// ScreeningRef is the provider's reference of Review's entity's
	// newest screening: what a screening webhook names; ScreeningCheck
	// that check's id, whose evidence the records README reads.
	ScreeningRef   string
	ScreeningCheck int64
}

func findDemoPicks(ctx context.Context, e *env, accountID int64) (demoPicks, error) {
	var p demoPicks
	// newest is the n-th (0, 1) newest open review of the sanctions status;
	// of a clear one, one the policy lets an operator approve. The queue
	// reads oldest first: all of it is read (the demo's is a few dozen).
	newest := func(s domain.SanctionsStatus, n int) (domain.QueueEntry, error) {
		var got []domain.QueueEntry
		q := domain.QueueQuery{AccountID: accountID, Limit: 50, Status: domain.ReviewOpen, Sanctions: s}
		for {
			page, err := e.store.QueuePage(ctx, q)
			if err != nil {
				return domain.QueueEntry{}, err
			}
			for _, en := range page.Entries {
				ok := s != domain.SanctionsClear
				if !ok {
					if ok, err = demoApprovable(ctx, e, accountID, en.Review.EntityID); err != nil {
						return domain.QueueEntry{}, err
					}
				}
				if ok {
					got = append(got, en)
				}
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
		if len(got) <= n {
			return domain.QueueEntry{}, nil
		}
		return got[len(got)-1-n], nil
	}
	var err error
	if p.Review, err = newest(domain.SanctionsClear, 0); err != nil {
		return p, fmt.Errorf("demo: an open review: %w", err)
	}
	if p.Other, err = newest(domain.SanctionsClear, 1); err != nil {
		return p, fmt.Errorf("demo: another open review: %w", err)
	}
	if p.Review.Review.ID != 0 {
		d, err := e.store.EntityDetail(ctx, accountID, p.Review.Review.EntityID)
		if err != nil {
			return p, fmt.Errorf("demo: the review's entity: %w", err)
		}
		for _, c := range d.Checks { // newest first
			if c.Type == domain.CheckOrganizationScreening {
				p.ScreeningRef, p.ScreeningCheck = checks.ScreeningReference(accountID, c.ID), c.ID
				break
			}
		}
	}
	if p.HitReview, err = newest(domain.SanctionsHit, 0); err != nil || p.HitReview.Review.ID == 0 {
		return p, err
	}
	d, err := e.store.EntityDetail(ctx, accountID, p.HitReview.Review.EntityID)
	if err != nil {
		return p, fmt.Errorf("demo: the hit's entity: %w", err)
	}
	p.HitMatch = firstMatch(d.Checks)
	return p, nil
}

// demoApprovable reports whether nothing blocks approving a review of the
// entity under the decision policy.
func demoApprovable(ctx context.Context, e *env, accountID, entityID int64) (bool, error) {
	d, err := e.store.EntityDetail(ctx, accountID, entityID)
	if err != nil {
		return false, fmt.Errorf("demo: entity %d: %w", entityID, err)
	}
	cfg, err := e.store.CountryConfig(ctx, accountID, d.Entity.CountryCode)
	if err != nil {
		return false, fmt.Errorf("demo: entity %d's country: %w", entityID, err)
	}
	return len(decisions.ApproveBlockers(d.Entity, d.Checks, cfg)) == 0, nil
}

// firstMatch is the id of the first match of the entity's own newest
// screening that reported one ("" when none did; a party's screening is
// not the entity's); checks come newest first.
func firstMatch(cs []domain.Check) string {
	for _, c := range cs {
		if c.Type != domain.CheckOrganizationScreening || c.SubjectType != nil {
			continue
		}
		matches, _ := c.Result["matches"].([]any)
		for _, m := range matches {
			if mm, ok := m.(map[string]any); ok {
				if id, ok := mm["id"].(string); ok && id != "" {
					return id
				}
			}
		}
	}
	return ""
}

// demoEnvPath is where up writes the demo's names as shell variables
// (EVS_API, EVS_KEY, …: the names the README's examples use); it holds
// the demo key, so only its owner may read it.
func demoEnvPath() (string, error) {
	dir, err := demoDir()
	return filepath.Join(dir, "demo.env"), err
}

// demoEnv is the demo's names as `export NAME=value` lines.
func demoEnv(api string, demo *demoState, p demoPicks) string {
	lines := []struct {
		name string
		v    any
	}{
		{"EVS_API", api}, {"EVS_KEY", demo.Key}, {"EVS_ACCOUNT", demo.AccountID}, {"EVS_OPERATOR", demo.OperatorID},
		{"EVS_REVIEW", p.Review.Review.ID}, {"EVS_ENTITY", p.Review.Review.EntityID},
		{"EVS_HIT_REVIEW", p.HitReview.Review.ID}, {"EVS_HIT_ENTITY", p.HitReview.Review.EntityID}, {"EVS_HIT_MATCH", p.HitMatch},
		{"EVS_OTHER_REVIEW", p.Other.Review.ID}, {"EVS_OTHER_ENTITY", p.Other.Review.EntityID}, {"EVS_SCREENING_REF", p.ScreeningRef}, {"EVS_SCREENING_CHECK", p.ScreeningCheck},
		// Where the examples' webhook receiver listens (EVS_RECEIVER_PORT
		// moves it; the docs' test gives it a free port).
		{"EVS_RECEIVER_PORT", envDefault("EVS_RECEIVER_PORT", "4000")},
	}
	out := "# make local's demo, written at each start: . .local/demo.env\n"
	for _, l := range lines {
		out += fmt.Sprintf("export %s=%v\n", l.name, l.v)
	}
	return out
}

// printDemo writes to w what the demo holds and how to act on it, and writes
// the same names to demo.env.
func printDemo(ctx context.Context, w io.Writer, e *env, demo *demoState, api, consoleBase string) error {
	p, err := findDemoPicks(ctx, e, demo.AccountID)
	if err != nil {
		return err
	}
	enrol, err := enrolmentLink(ctx, e, demo, consoleBase)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Console:  %s%s/ — the Demo Operator (operator %d) enrols a passkey here, once, within 15 minutes:\n", consoleBase, deploy.ConsolePath, demo.OperatorID)
	fmt.Fprintf(w, "          %s\n", enrol)
	fmt.Fprintf(w, "          a new link: go run ./local portal link --operator %d\n", demo.OperatorID)
	fmt.Fprintf(w, "Demo key: %s\n", demo.Key)
	fmt.Fprintf(w, "Operator: %d (the Demo Operator, every permission: go run ./local decide … --operator %d)\n", demo.OperatorID, demo.OperatorID)
	if r := p.Review; r.Review.ID != 0 {
		fmt.Fprintf(w, "Review:   %d, open (entity %d, %s, screening clear): go run ./local decide start --review %d --operator %d\n",
			r.Review.ID, r.Review.EntityID, r.LegalName, r.Review.ID, demo.OperatorID)
	}
	if r := p.HitReview; r.Review.ID != 0 {
		match := ""
		if p.HitMatch != "" { // none in data seeded before matches were kept
			match = ", match " + p.HitMatch
		}
		fmt.Fprintf(w, "Hit:      %d, open (entity %d, %s, a sanctions hit%s)\n", r.Review.ID, r.Review.EntityID, r.LegalName, match)
	}
	path, err := demoEnvPath()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(demoEnv(api, demo, p)), 0o600); err != nil {
		return fmt.Errorf("demo names: %w", err)
	}
	fmt.Fprintf(w, "Names:    . .local/demo.env (EVS_API, EVS_KEY, EVS_OPERATOR, EVS_REVIEW, EVS_HIT_REVIEW, …: the names the READMEs' examples use)\n")
	fmt.Fprintf(w, "Try:      curl -H 'Authorization: Bearer %s' '%s/entities?per_page=5'\n", demo.Key, api)
	return nil
}
