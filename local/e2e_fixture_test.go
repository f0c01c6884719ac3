package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

type fixture struct {
	srv                      *httptest.Server
	st                       *store.Store
	keyA, keyAViewOnly, keyB string
	keyANoView, revokedKey   string
	a, b                     []domain.EntityDetail // in creation order
}

var base = time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)

// quietLogger discards the functions' logs, unless EVS_TEST_LOG is set
// (then they go to stderr): what a refused call or a fault said.
func quietLogger() *slog.Logger {
	if os.Getenv("EVS_TEST_LOG") != "" {
		return slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewJSONHandler(io.Discard, nil))
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st := devstacktest.Store(t)
	e := &env{store: st, log: quietLogger()}
	f := &fixture{st: st}

	acctA := mustAccount(t, e, "Account A", "SA", "AE")
	acctB := mustAccount(t, e, "Account B", "SA")
	f.keyA = mustKey(t, e, acctA, domain.PermEntityView, domain.PermReviewView)
	f.keyAViewOnly = mustKey(t, e, acctA, domain.PermEntityView)
	f.keyANoView = mustKey(t, e, acctA, domain.PermEntityCreate)
	f.keyB = mustKey(t, e, acctB, domain.PermEntityView, domain.PermReviewView)
	f.revokedKey = mustKey(t, e, acctA, domain.PermEntityView)
	if err := st.RevokeAPIKey(ctx, auth.HashKey(f.revokedKey), time.Now()); err != nil {
		t.Fatal(err)
	}

	// Account A: 7 entities, the 5th (index 4) fully populated.
	for i := 0; i < 7; i++ {
		country, number := "SA", fmt.Sprintf("70000000%02d", i)
		if i == 2 || i == 5 {
			country, number = "AE", fmt.Sprintf("CN-00%02d", i)
		}
		d := detail(country, number, base.Add(time.Duration(i)*time.Hour))
		if i == 4 {
			d = richDetail(number)
		}
		created, err := st.CreateEntity(ctx, withAccount(d, acctA))
		if err != nil {
			t.Fatal(err)
		}
		f.a = append(f.a, created)
	}
	created, err := st.CreateEntity(ctx, withAccount(detail("SA", "7999999999", base), acctB))
	if err != nil {
		t.Fatal(err)
	}
	f.b = append(f.b, created)

	f.srv = httptest.NewServer(newGateway(st, quietLogger(), providers{}))
	t.Cleanup(f.srv.Close)
	return f
}

// mustAccount opens an account that accepts declared decisions, as the
// demo does: the tests of who decides set it off themselves.
func mustAccount(t testing.TB, e *env, name string, codes ...string) int64 {
	t.Helper()
	acct, err := createDeclaredAccount(context.Background(), e, name, codes)
	if err != nil {
		t.Fatal(err)
	}
	return acct.ID
}

func mustKey(t *testing.T, e *env, acct int64, perms ...string) string {
	t.Helper()
	key, err := createKey(context.Background(), e, acct, perms)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func withAccount(d domain.EntityDetail, acct int64) domain.EntityDetail {
	d.Entity.AccountID = acct
	return d
}

func detail(country, number string, at time.Time) domain.EntityDetail {
	numeric := map[string]int{"SA": 682, "AE": 784}[country]
	return domain.EntityDetail{Entity: domain.Entity{
		RegistrationNumber: number, LegalName: "Entity " + number, CountryCode: country, CountryID: numeric,
		Status: domain.EntityDraft, RegistrationStatus: domain.RegistrationUnknown, SanctionsStatus: domain.SanctionsNotRun,
		CreatedAt: at, UpdatedAt: at,
	}}
}

// richDetail has checks and reviews in several states, a score and a risk
// assessment.
func richDetail(number string) domain.EntityDetail {
	at := base.Add(4 * time.Hour)
	d := detail("SA", number, at)
	d.Entity.LegalName = "Al Noor | Trading *Co*"
	d.Entity.Status = domain.EntityReadyForReview
	d.Entity.RegistrationStatus = domain.RegistrationValid
	d.Entity.SanctionsStatus = domain.SanctionsClear
	d.Entity.Score = &domain.Score{Value: 70, Breakdown: []domain.ScoreComponent{{Key: "registry", Label: "Registry record", Points: 40, Max: 40}, {Key: "screening", Label: "Sanctions screening", Points: 30, Max: 30}}}
	d.Entity.Risk = &domain.RiskAssessment{Level: domain.RiskMedium, AssessedAt: at.Add(time.Hour)}
	d.Entity.DocumentsCount = 3
	// Two current parties and a former one: the count is of the current.
	d.Entity.Parties = []domain.Party{
		{Kind: domain.PartyPerson, Name: "Owner One", Roles: []domain.PartyRole{domain.RoleOwner}, Source: domain.PartyFromRegister, Current: true},
		{Kind: domain.PartyPerson, Name: "Manager Two", Roles: []domain.PartyRole{domain.RoleManager}, Source: domain.PartyFromRegister, Current: true},
		{Kind: domain.PartyPerson, Name: "Former Three", Roles: []domain.PartyRole{domain.RoleManager}, Source: domain.PartyDeclared},
	}
	checked := at.Add(time.Minute)
	d.Checks = []domain.Check{
		{Type: domain.CheckRegistryLookup, ProviderKey: "wathq", Status: domain.CheckCompleted, ProviderStatus: "active", TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "active"}, CheckedAt: &checked, CreatedAt: at, UpdatedAt: checked},
		{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckCompleted, ProviderStatus: "200", TriggeringReason: domain.TriggerIntake,
			Result: map[string]any{"status": "clear", "matched": false, "matches_count": 0}, CheckedAt: &checked, CreatedAt: at.Add(2 * time.Second), UpdatedAt: checked},
		{Type: domain.CheckOrganizationScreening, ProviderKey: "opensanctions", Status: domain.CheckPending, TriggeringReason: domain.TriggerOperatorRequested,
			Result: map[string]any{"status": "pending"}, CreatedAt: at.Add(3 * time.Hour), UpdatedAt: at.Add(3 * time.Hour)},
	}
	approved, reason := domain.OutcomeApproved, "documents_verified"
	done := at.Add(2 * time.Hour)
	user, name := int64(11), "Sara Operator"
	d.Reviews = []domain.Review{
		{Purpose: domain.ReviewInitial, Status: domain.ReviewCompleted, Outcome: &approved, OutcomeReason: &reason, StartedAt: &at, CompletedAt: &done, NotesCount: 2, CreatedAt: at, UpdatedAt: done},
		{Purpose: domain.ReviewPeriodic, Status: domain.ReviewInProgress, AssignedUserID: &user, AssignedUserName: &name, StartedAt: &done, CreatedAt: done, UpdatedAt: done},
	}
	return d
}

// cliStore is a store on tables of the test's own, which the commands run
// in the test (runCaptured) use too: EVS_TABLE_PREFIX names them.
func cliStore(t *testing.T) (*store.Store, schema.Names) {
	t.Helper()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	t.Setenv("EVS_TABLE_PREFIX", strings.TrimSuffix(names[schema.Accounts], schema.Accounts))
	return store.New(db, names), names
}

// syncBuffer collects what several writers write (an emulator's two
// streams, a function's log).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
