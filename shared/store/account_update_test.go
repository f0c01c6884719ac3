package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/guregu/dynamo/v2"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// accountWorld is a store over fresh tables, with the raw tables beside it
// to look at (and age) the account item as DynamoDB holds it.
type accountWorld struct {
	st    *store.Store
	db    *dynamo.DB
	names schema.Names
}

func newAccountWorld(t *testing.T) accountWorld {
	t.Helper()
	devstacktest.Stack(t)
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	return accountWorld{st: store.New(db, names), db: db, names: names}
}

func (w accountWorld) open(t *testing.T, countries ...string) domain.Account {
	t.Helper()
	var cfgs []domain.CountryConfig
	for _, c := range countries {
		cfgs = append(cfgs, domain.DefaultCountryConfig(0, c, map[string]int{"SA": 682, "AE": 784, "BH": 48}[c], t0))
	}
	a, err := w.st.OpenAccount(context.Background(), domain.Account{Name: "Acme " + t.Name(), CreatedAt: t0}, cfgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// raw is the account item as stored.
func (w accountWorld) raw(t *testing.T, id int64) map[string]any {
	t.Helper()
	var m map[string]any
	err := w.db.Table(w.names[schema.Accounts]).Get("account_id", id).Range("sk", dynamo.Equal, "ACCOUNT").Consistent(true).One(context.Background(), &m)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (w accountWorld) countries(t *testing.T, id int64) map[string]domain.CountryConfig {
	t.Helper()
	cs, err := w.st.CountryConfigs(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]domain.CountryConfig{}
	for _, c := range cs {
		out[c.CountryCode] = c
	}
	return out
}

func accountAudit(accountID int64, actionID string) domain.AuditRecord {
	return domain.AuditRecord{AccountID: accountID, ActionID: actionID, Action: domain.ActionAccountUpdate, OperatorName: "test", At: t0}
}

// TestUpdateAccountRace: two updates made from the same read of an account,
// each setting its own countries, run at once. One wins; the other is
// refused as a Conflict, writes nothing (no country, no audit record), and
// the account holds the winner's name and countries at the next version.
func TestUpdateAccountRace(t *testing.T) {
	ctx := context.Background()
	w := newAccountWorld(t)
	for round := range 3 {
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
			acct := w.open(t, "SA")
			read, err := w.st.Account(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			type side struct {
				name, pattern, extra, action string
				err                          error
			}
			sides := []*side{
				{name: "Alpha", pattern: "^A[0-9]{4}$", extra: "AE", action: "race-a"},
				{name: "Beta", pattern: "^B[0-9]{4}$", extra: "BH", action: "race-b"},
			}
			existing := w.countries(t, acct.ID)
			var start, done sync.WaitGroup
			start.Add(1)
			for _, s := range sides {
				done.Add(1)
				go func() {
					defer done.Done()
					a := read
					a.Name = s.name
					sa := existing["SA"]
					sa.RegistrationPattern, sa.RegistrationMessage = s.pattern, "must be "+s.pattern
					extra := domain.DefaultCountryConfig(acct.ID, s.extra, map[string]int{"AE": 784, "BH": 48}[s.extra], t0)
					start.Wait()
					s.err = w.st.UpdateAccount(ctx, a, []domain.CountryConfig{sa, extra}, accountAudit(acct.ID, s.action))
				}()
			}
			start.Done()
			done.Wait()

			var win, lose *side
			switch {
			case sides[0].err == nil && sides[1].err != nil:
				win, lose = sides[0], sides[1]
			case sides[1].err == nil && sides[0].err != nil:
				win, lose = sides[1], sides[0]
			default:
				t.Fatalf("errors %v and %v: want exactly one update to win", sides[0].err, sides[1].err)
			}
			if domain.ErrorCode(lose.err) != domain.ECodeConflict ||
				domain.ErrorMessage(lose.err) != fmt.Sprintf("Account %d changed since it was read; read it again and retry.", acct.ID) {
				t.Errorf("loser: %v, want the conflict", lose.err)
			}

			got, err := w.st.Account(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != win.name || got.Version != read.Version+1 {
				t.Errorf("stored %q at version %d, want %q at %d", got.Name, got.Version, win.name, read.Version+1)
			}
			cs := w.countries(t, acct.ID)
			codes := make([]string, 0, len(cs))
			for c := range cs {
				codes = append(codes, c)
			}
			slices.Sort(codes)
			want := []string{"SA", win.extra}
			slices.Sort(want)
			if !slices.Equal(codes, want) || cs["SA"].RegistrationPattern != win.pattern {
				t.Errorf("stored countries %v (SA %q), want the winner's %v (SA %q)", codes, cs["SA"].RegistrationPattern, want, win.pattern)
			}
			if _, err := w.st.AuditRecord(ctx, acct.ID, win.action); err != nil {
				t.Errorf("the winner's audit record: %v", err)
			}
			if _, err := w.st.AuditRecord(ctx, acct.ID, lose.action); domain.ErrorCode(err) != domain.ECodeNotFound {
				t.Errorf("the loser's audit record: %v, want none", err)
			}
		})
	}
}

// TestUpdateAccountVersion: an item written before versions (no version
// attribute) or with version 0 updates at 0; each update moves the
// version on, and one made at a version the account has left is refused
// as a Conflict; creates do not move it, PutAccountSettings does.
func TestUpdateAccountVersion(t *testing.T) {
	ctx := context.Background()
	w := newAccountWorld(t)

	t.Run("no version attribute", func(t *testing.T) {
		acct := w.open(t, "SA")
		if _, ok := w.raw(t, acct.ID)["version"]; ok {
			t.Fatalf("a new account item has a version: %v", w.raw(t, acct.ID))
		}
		read, err := w.st.Account(ctx, acct.ID)
		if err != nil || read.Version != 0 {
			t.Fatalf("read %+v %v: want version 0", read, err)
		}
		read.Name = "renamed"
		if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(acct.ID, "v-1")); err != nil {
			t.Fatal(err)
		}
		if got, _ := w.st.Account(ctx, acct.ID); got.Version != 1 || got.Name != "renamed" {
			t.Errorf("stored %+v", got)
		}
		// The same read again: the account has moved on.
		read.Name = "stale"
		if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(acct.ID, "v-2")); domain.ErrorCode(err) != domain.ECodeConflict {
			t.Errorf("an update at version 0 of an account at 1: %v, want a conflict", err)
		}
		if got, _ := w.st.Account(ctx, acct.ID); got.Version != 1 || got.Name != "renamed" {
			t.Errorf("stored %+v after the stale update", got)
		}
	})

	t.Run("version 0 stored", func(t *testing.T) {
		acct := w.open(t, "SA")
		if err := w.db.Table(w.names[schema.Accounts]).Update("account_id", acct.ID).Range("sk", "ACCOUNT").Set("version", 0).Run(ctx); err != nil {
			t.Fatal(err)
		}
		read, _ := w.st.Account(ctx, acct.ID)
		read.Settings.ReviewIntervalDays = 30
		if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(acct.ID, "z-1")); err != nil {
			t.Fatal(err)
		}
		if got, _ := w.st.Account(ctx, acct.ID); got.Version != 1 || got.Settings.ReviewIntervalDays != 30 {
			t.Errorf("stored %+v", got)
		}
	})

	t.Run("versions move, creates leave them", func(t *testing.T) {
		acct := w.open(t, "SA")
		read, _ := w.st.Account(ctx, acct.ID)
		for i := 1; i <= 3; i++ {
			read.Name = fmt.Sprint("name ", i)
			if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(acct.ID, fmt.Sprint("m-", i))); err != nil {
				t.Fatal(err)
			}
			if read, _ = w.st.Account(ctx, acct.ID); read.Version != int64(i) {
				t.Fatalf("version %d after %d updates", read.Version, i)
			}
		}
		if _, err := w.st.CreateEntity(ctx, sampleEntity(acct.ID, "SA", "7001234567", t0)); err != nil {
			t.Fatal(err)
		}
		if got, _ := w.st.Account(ctx, acct.ID); got.Version != 3 {
			t.Errorf("version %d after a create, want 3", got.Version)
		}
		// An update read before the create still applies.
		read.Name = "after the create"
		if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(acct.ID, "m-4")); err != nil {
			t.Errorf("an update read before a create: %v", err)
		}
		read, _ = w.st.Account(ctx, acct.ID)
		if err := w.st.PutAccountSettings(ctx, acct.ID, domain.AccountSettings{ReviewIntervalDays: 7}); err != nil {
			t.Fatal(err)
		}
		if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(acct.ID, "m-5")); domain.ErrorCode(err) != domain.ECodeConflict {
			t.Errorf("an update read before PutAccountSettings: %v, want a conflict", err)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		acct := w.open(t, "SA")
		read, _ := w.st.Account(ctx, acct.ID)
		if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(acct.ID, "r-1")); err != nil {
			t.Fatal(err)
		}
		read, _ = w.st.Account(ctx, acct.ID)
		// The same action id again, at the current version: a duplicate.
		if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(acct.ID, "r-1")); !errors.Is(err, domain.ErrDuplicateAction) {
			t.Errorf("a used action id: %v, want ErrDuplicateAction", err)
		}
		gone := domain.Account{ID: acct.ID + 1000, Name: "nobody"}
		err := w.st.UpdateAccount(ctx, gone, nil, accountAudit(gone.ID, "r-2"))
		if domain.ErrorCode(err) != domain.ECodeNotFound || !strings.Contains(domain.ErrorMessage(err), "Account not found") {
			t.Errorf("an update of no account: %v, want not found", err)
		}
	})
}

// TestAccountExtendedRetention: the account's extended retention is
// written by OpenAccount, UpdateAccount and PutAccountSettings and read
// back as written; 0 leaves no attribute (a create omits it, an update
// removes it), and an update of another setting keeps it.
func TestAccountExtendedRetention(t *testing.T) {
	ctx := context.Background()
	w := newAccountWorld(t)
	update := func(years int) func(t *testing.T, id int64) {
		return func(t *testing.T, id int64) {
			read, err := w.st.Account(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			read.Settings.ExtendedRetentionYears = years
			if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(id, fmt.Sprint("ext-", read.Version))); err != nil {
				t.Fatal(err)
			}
		}
	}
	put := func(set domain.AccountSettings) func(t *testing.T, id int64) {
		return func(t *testing.T, id int64) {
			if err := w.st.PutAccountSettings(ctx, id, set); err != nil {
				t.Fatal(err)
			}
		}
	}
	rename := func(t *testing.T, id int64) {
		read, _ := w.st.Account(ctx, id)
		read.Name = "renamed"
		if err := w.st.UpdateAccount(ctx, read, nil, accountAudit(id, "ext-rename")); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		created int
		then    []func(t *testing.T, id int64)
		want    int
	}{
		{"created without", 0, nil, 0},
		{"created with 7", 7, nil, 7},
		{"updated to 10", 0, []func(*testing.T, int64){update(10)}, 10},
		{"updated from 7 to 0", 7, []func(*testing.T, int64){update(0)}, 0},
		{"kept by a rename", 8, []func(*testing.T, int64){rename}, 8},
		{"put with 6", 0, []func(*testing.T, int64){put(domain.AccountSettings{ExtendedRetentionYears: 6})}, 6},
		{"put without", 9, []func(*testing.T, int64){put(domain.AccountSettings{DeclaredDecisions: true})}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := w.st.OpenAccount(ctx, domain.Account{Name: "Acme " + tc.name, CreatedAt: t0,
				Settings: domain.AccountSettings{ExtendedRetentionYears: tc.created}}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.then {
				f(t, a.ID)
			}
			got, err := w.st.Account(ctx, a.ID)
			if err != nil || got.Settings.ExtendedRetentionYears != tc.want {
				t.Errorf("read %+v (%v), want extended retention %d", got.Settings, err, tc.want)
			}
			raw, present := w.raw(t, a.ID)["extended_retention_years"]
			if present != (tc.want != 0) || (present && fmt.Sprint(raw) != fmt.Sprint(tc.want)) {
				t.Errorf("stored extended_retention_years %v (present %v), want %d, absent when 0", raw, present, tc.want)
			}
			if accts, err := w.st.ListAccounts(ctx); err != nil || !slices.ContainsFunc(accts, func(l domain.Account) bool {
				return l.ID == a.ID && l.Settings.ExtendedRetentionYears == tc.want
			}) {
				t.Errorf("ListAccounts does not show %d: %v", tc.want, err)
			}
		})
	}
}
