package portal_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/schema"
	"github.com/evs-kyb/evs/shared/store"
)

// These tests run the service over the real store on DynamoDB Local.

// clock is a clock the test moves. It starts at the wall clock's time:
// DynamoDB Local, like DynamoDB, removes items whose TTL has passed.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type world struct {
	st    *store.Store
	names schema.Names
	clock *clock
	p     *portal.Service
	acct  int64
	sara  domain.Operator // active: settings and endpoints
	omar  domain.Operator // active: reviews only
	seq   int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	db := devstack.DB()
	names := devstacktest.Tables(t, db)
	st := store.New(db, names)
	c := &clock{t: time.Now().UTC().Truncate(time.Second)}
	acct, err := st.CreateAccount(ctx, "Portal "+t.Name(), c.now())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{st: st, names: names, clock: c, acct: acct.ID, p: &portal.Service{Store: st, Clock: c.now}}
	if w.sara, err = st.CreateOperator(ctx, acct.ID, "Sara", []string{domain.PermAccountSettingsManage, domain.PermWebhookEndpointEdit}, c.now()); err != nil {
		t.Fatal(err)
	}
	if w.omar, err = st.CreateOperator(ctx, acct.ID, "Omar", []string{domain.PermReviewDecide}, c.now()); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) admin() domain.Actor {
	w.seq++
	return domain.Actor{AccountID: w.acct, Admin: "ops@example.com", ActionID: fmt.Sprintf("mint-%d", w.seq), RequestID: "req-1"}
}

func (w *world) mint(t *testing.T, op domain.Operator) portal.Link {
	t.Helper()
	l, err := w.p.Mint(context.Background(), w.admin(), op.ID)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (w *world) redeem(t *testing.T, l portal.Link) (string, portal.Session) {
	t.Helper()
	token, s, err := w.p.Redeem(context.Background(), l.Token)
	if err != nil {
		t.Fatal(err)
	}
	return token, s
}

// disable disables (or enables again) an operator.
func (w *world) disable(t *testing.T, id int64, off bool) {
	t.Helper()
	ctx := context.Background()
	op, err := w.st.Operator(ctx, w.acct, id)
	if err != nil {
		t.Fatal(err)
	}
	op.DisabledAt = nil
	if off {
		at := w.clock.now()
		op.DisabledAt = &at
	}
	w.seq++
	if err := w.st.UpdateOperator(ctx, op, domain.AuditRecord{AccountID: w.acct, ActionID: fmt.Sprintf("op-%d", w.seq), Action: domain.ActionOperatorUpdate, At: w.clock.now()}); err != nil {
		t.Fatal(err)
	}
}

// passkey stores a passkey of op's under the credential id, as a
// registration would (the portal reads only that it exists).
func (w *world) passkey(t *testing.T, op domain.Operator, credential string) []byte {
	t.Helper()
	w.seq++
	p := domain.Passkey{AccountID: w.acct, OperatorID: op.ID, ID: []byte(credential), PublicKey: []byte("key"), Name: credential, CreatedAt: w.clock.now()}
	audit := domain.AuditRecord{AccountID: w.acct, ActionID: fmt.Sprintf("passkey-%d", w.seq), Action: domain.ActionPasskeyAdd, OperatorID: op.ID, At: w.clock.now()}
	if err := w.st.AddPasskey(context.Background(), p, audit); err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// items are the portal table's items as stored.
func (w *world) items(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := w.st.DB().Table(w.names[schema.PortalTokens]).Scan().Consistent(true).All(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func (w *world) sessions(t *testing.T) int {
	n := 0
	for _, it := range w.items(t) {
		if it["kind"] == "session" {
			n++
		}
	}
	return n
}

func TestSignInAndOut(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	start := w.clock.now()
	a := w.admin()
	l, err := w.p.Mint(ctx, a, w.sara.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(l.Token, portal.LinkPrefix) || len(l.Token) != len(portal.LinkPrefix)+43 ||
		l.AccountID != w.acct || l.OperatorID != w.sara.ID || !l.ExpiresAt.Equal(start.Add(portal.LinkTTL)) {
		t.Errorf("link = %+v", l)
	}
	rec, err := w.st.AuditRecord(ctx, w.acct, a.ActionID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Action != domain.ActionPortalLink || rec.OperatorID != 0 || rec.OperatorName != "ops@example.com" || rec.Actor != "ops@example.com" ||
		rec.RequestID != "req-1" || rec.After["operator_id"] != float64(w.sara.ID) || rec.After["operator_name"] != "Sara" ||
		!strings.HasPrefix(fmt.Sprint(rec.After["link_id"]), "lnk_") || !rec.At.Equal(start) {
		t.Errorf("mint audit = %+v", rec)
	}

	w.clock.add(3 * time.Minute)
	token, s, err := w.p.Redeem(ctx, l.Token)
	if err != nil {
		t.Fatal(err)
	}
	signedIn := start.Add(3 * time.Minute)
	if !strings.HasPrefix(token, portal.SessionPrefix) || s.AccountID != w.acct || s.Operator.ID != w.sara.ID ||
		!s.StartedAt.Equal(signedIn) || !s.ExpiresAt.Equal(signedIn.Add(portal.SessionAbsolute)) || !s.IdleUntil.Equal(signedIn.Add(portal.SessionIdle)) ||
		!s.Can(domain.PermAccountSettingsManage) || s.Can(domain.PermReviewDecide) {
		t.Errorf("session = %+v", s)
	}
	trail, err := w.st.AccountAudit(ctx, w.acct, 0)
	if err != nil {
		t.Fatal(err)
	}
	var signIn *domain.AuditRecord
	for i := range trail {
		if trail[i].Action == domain.ActionPortalSignIn {
			signIn = &trail[i]
		}
	}
	if signIn == nil || signIn.OperatorID != w.sara.ID || signIn.OperatorName != "Sara" || signIn.After["link_id"] != rec.After["link_id"] ||
		!strings.HasPrefix(fmt.Sprint(signIn.After["session_id"]), "ses_") {
		t.Errorf("sign-in audit = %+v", signIn)
	}

	w.clock.add(10 * time.Minute)
	got, err := w.p.Session(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if got.Operator.ID != w.sara.ID || !got.StartedAt.Equal(signedIn) || !got.IdleUntil.Equal(w.clock.now().Add(portal.SessionIdle)) {
		t.Errorf("session after 10 minutes = %+v", got)
	}

	if err := w.p.End(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, err := w.p.Session(ctx, token); !errors.Is(err, portal.ErrNoSession) {
		t.Errorf("after sign-out: %v, want ErrNoSession", err)
	}
	for _, tok := range []string{token, "", "garbage", portal.SessionPrefix + strings.Repeat("A", 43)} {
		if err := w.p.End(ctx, tok); err != nil {
			t.Errorf("End(%q) = %v, want nil", tok, err)
		}
	}
	// The link is still stored, used: signing out does not free it.
	if _, _, err := w.p.Redeem(ctx, l.Token); !errors.Is(err, portal.ErrLinkUsed) {
		t.Errorf("the link after sign-out: %v, want ErrLinkUsed", err)
	}
}

func TestMintRefusals(t *testing.T) {
	w := newWorld(t)
	gone, err := w.st.CreateOperator(context.Background(), w.acct, "Gone", nil, w.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	w.disable(t, gone.ID, true)
	used := w.admin()
	if _, err := w.p.Mint(context.Background(), used, w.sara.ID); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		actor    func() domain.Actor
		operator int64
		want     string
	}{
		{"an operator as the actor", func() domain.Actor { a := w.admin(); a.OperatorID = w.sara.ID; return a }, w.omar.ID, domain.ECodeForbidden},
		{"no account", func() domain.Actor { a := w.admin(); a.AccountID = 0; return a }, w.sara.ID, domain.ECodeInvalid},
		{"no action id", func() domain.Actor { a := w.admin(); a.ActionID = " "; return a }, w.sara.ID, domain.ECodeInvalid},
		{"no operator", w.admin, 0, domain.ECodeInvalid},
		{"an unknown operator", w.admin, 987654, domain.ECodeNotFound},
		{"another account's operator", func() domain.Actor { a := w.admin(); a.AccountID = w.acct + 1; return a }, w.sara.ID, domain.ECodeNotFound},
		{"a disabled operator", w.admin, gone.ID, domain.ECodeInvalid},
		{"a used action id", func() domain.Actor { return used }, w.sara.ID, domain.ECodeConflict},
	}
	before := len(w.items(t))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := w.p.Mint(context.Background(), tc.actor(), tc.operator)
			if domain.ErrorCode(err) != tc.want || l.Token != "" {
				t.Errorf("Mint = %+v, %v; want %s", l, err, tc.want)
			}
		})
	}
	if after := len(w.items(t)); after != before {
		t.Errorf("refused mints stored %d items", after-before)
	}
}

func TestRedeemRefusals(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	used := w.mint(t, w.sara)
	w.redeem(t, used)
	expired := w.mint(t, w.sara)
	usedThenExpired := w.mint(t, w.sara)
	w.redeem(t, usedThenExpired)
	w.clock.add(portal.LinkTTL - time.Minute)
	// Minted 14 minutes after the others: still valid when they end.
	forOmar := w.mint(t, w.omar)
	w.disable(t, w.omar.ID, true)
	fresh := w.mint(t, w.sara)
	w.clock.add(time.Minute) // the first links end now
	tests := []struct {
		name  string
		token string
		want  error
		code  string
	}{
		{"empty", "", portal.ErrLinkUnknown, ""},
		{"garbage", "not a token", portal.ErrLinkUnknown, ""},
		{"a session's prefix", portal.SessionPrefix + fresh.Token[len(portal.LinkPrefix):], portal.ErrLinkUnknown, ""},
		{"well-formed, never minted", portal.LinkPrefix + strings.Repeat("x", 43), portal.ErrLinkUnknown, ""},
		{"one character changed", fresh.Token[:len(fresh.Token)-1] + flip(fresh.Token[len(fresh.Token)-1]), portal.ErrLinkUnknown, ""},
		{"used", used.Token, portal.ErrLinkUsed, ""},
		{"at its end", expired.Token, portal.ErrLinkExpired, ""},
		{"used, then past its end", usedThenExpired.Token, portal.ErrLinkUsed, ""},
		{"its operator disabled", forOmar.Token, nil, domain.ECodeInvalid},
	}
	sessions := w.sessions(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			token, s, err := w.p.Redeem(ctx, tc.token)
			if token != "" || s.Operator.ID != 0 {
				t.Errorf("a session was started: %q %+v", token, s)
			}
			if tc.code != "" {
				if domain.ErrorCode(err) != tc.code {
					t.Errorf("err = %v, want %s", err, tc.code)
				}
			} else if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if n := w.sessions(t); n != sessions {
		t.Errorf("refused redemptions started %d sessions", n-sessions)
	}
	// The disabled operator's link was not spent: enabled again, it signs in.
	w.disable(t, w.omar.ID, false)
	if _, s := w.redeem(t, forOmar); s.Operator.ID != w.omar.ID {
		t.Errorf("session = %+v", s)
	}
	// A link minted later lasts its own 15 minutes.
	if _, s := w.redeem(t, fresh); s.Operator.ID != w.sara.ID {
		t.Errorf("session = %+v", s)
	}
}

// hash is a token's SHA-256 in hex, as the store keys it.
func hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

// Of redemptions of one link at once, exactly one starts a session; the
// others are told it was used.
func TestRedeemConcurrently(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	for round := range 3 {
		l := w.mint(t, w.sara)
		const n = 8
		var (
			wg     sync.WaitGroup
			start  = make(chan struct{})
			tokens = make([]string, n)
			errs   = make([]error, n)
		)
		before := w.sessions(t)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				tokens[i], _, errs[i] = w.p.Redeem(ctx, l.Token)
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil && tokens[i] != "":
				won++
				if _, err := w.p.Session(ctx, tokens[i]); err != nil {
					t.Errorf("round %d: the winner's session: %v", round, err)
				}
			case errors.Is(err, portal.ErrLinkUsed) && tokens[i] == "":
			default:
				t.Errorf("round %d, redemption %d: %q, %v", round, i, tokens[i], err)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d redemptions won, want 1", round, won)
		}
		if n := w.sessions(t) - before; n != 1 {
			t.Errorf("round %d: %d sessions stored, want 1", round, n)
		}
	}
}

// storedIdle is the session's idle end as stored.
func (w *world) storedIdle(t *testing.T, token string) time.Time {
	t.Helper()
	for _, it := range w.items(t) {
		if it["kind"] == "session" {
			if at, err := domain.ParseTime(fmt.Sprint(it["idle_until"])); err == nil && it["token_hash"] == hash(token) {
				return at
			}
		}
	}
	t.Fatalf("no session stored for the token")
	return time.Time{}
}

func TestSessionLifetime(t *testing.T) {
	ctx := context.Background()
	// Each step moves the clock on, then uses the session.
	type step struct {
		after    time.Duration
		live     bool
		idleFrom time.Duration // stored idle end - SessionIdle, from the sign-in
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"idle for less than 30 minutes", []step{{29 * time.Minute, true, 29 * time.Minute}}},
		{"idle for 30 minutes", []step{{30 * time.Minute, false, 0}}},
		{"used within a minute: not written again", []step{{59 * time.Second, true, 0}, {time.Second, true, time.Minute}}},
		{"kept alive, then idle", []step{{20 * time.Minute, true, 20 * time.Minute}, {20 * time.Minute, true, 40 * time.Minute}, {30 * time.Minute, false, 0}}},
		{"kept alive to its absolute end", func() []step {
			var s []step
			for at := 25 * time.Minute; at < portal.SessionAbsolute; at += 25 * time.Minute {
				s = append(s, step{25 * time.Minute, true, min(at, portal.SessionAbsolute-portal.SessionIdle)})
			}
			return append(s, step{portal.SessionAbsolute - time.Duration(len(s))*25*time.Minute, false, 0})
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			token, s := w.redeem(t, w.mint(t, w.sara))
			for i, st := range tc.steps {
				w.clock.add(st.after)
				got, err := w.p.Session(ctx, token)
				if !st.live {
					if !errors.Is(err, portal.ErrNoSession) {
						t.Fatalf("step %d: %+v, %v; want ErrNoSession", i, got, err)
					}
					if n := w.sessions(t); n != 0 {
						t.Errorf("step %d: the dead session is still stored", i)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				want := s.StartedAt.Add(st.idleFrom + portal.SessionIdle)
				if stored := w.storedIdle(t, token); !stored.Equal(want) || !got.IdleUntil.Equal(want) {
					t.Errorf("step %d: idle until %s (stored %s), want %s", i, got.IdleUntil, stored, want)
				}
				if got.IdleUntil.After(s.ExpiresAt) {
					t.Errorf("step %d: idles past the absolute end", i)
				}
			}
		})
	}
}

// A session carries its operator as they are at each request; disabling
// the operator ends it for good.
func TestSessionFollowsItsOperator(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	token, _ := w.redeem(t, w.mint(t, w.sara))
	op, err := w.st.Operator(ctx, w.acct, w.sara.ID)
	if err != nil {
		t.Fatal(err)
	}
	op.Permissions = []string{domain.PermWebhookDeliveryView}
	if err := w.st.UpdateOperator(ctx, op, domain.AuditRecord{AccountID: w.acct, ActionID: "perms", Action: domain.ActionOperatorUpdate, At: w.clock.now()}); err != nil {
		t.Fatal(err)
	}
	s, err := w.p.Session(ctx, token)
	if err != nil || s.Can(domain.PermAccountSettingsManage) || !s.Can(domain.PermWebhookDeliveryView) {
		t.Errorf("session after a change of permissions = %+v, %v", s, err)
	}

	w.disable(t, w.sara.ID, true)
	if _, err := w.p.Session(ctx, token); !errors.Is(err, portal.ErrNoSession) {
		t.Errorf("operator disabled: %v, want ErrNoSession", err)
	}
	if n := w.sessions(t); n != 0 {
		t.Errorf("%d sessions stored after the operator was disabled", n)
	}
	w.disable(t, w.sara.ID, false)
	if _, err := w.p.Session(ctx, token); !errors.Is(err, portal.ErrNoSession) {
		t.Errorf("operator enabled again: %v; the ended session must stay ended", err)
	}
}

// Tokens are stored as their SHA-256 alone: no item of the portal or the
// audit table holds a token or its random part; every item has its TTL.
func TestTokensNeverStoredInClear(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	var secrets []string
	l := w.mint(t, w.sara)
	token, _ := w.redeem(t, l)
	other := w.mint(t, w.omar) // left unused
	secrets = append(secrets, l.Token, token, other.Token)

	var audit []map[string]any
	if err := w.st.DB().Table(w.names[schema.Audit]).Scan().Consistent(true).All(ctx, &audit); err != nil {
		t.Fatal(err)
	}
	items := w.items(t)
	if len(items) != 3 {
		t.Fatalf("%d portal items, want 2 links and a session", len(items))
	}
	hashes := map[any]bool{}
	for _, it := range items {
		hashes[it["token_hash"]] = true
		end, err := domain.ParseTime(fmt.Sprint(it["ends_at"]))
		if err != nil {
			t.Fatalf("ends_at of %v: %v", it, err)
		}
		ttl, _ := it["expires_at"].(float64)
		want := end
		if it["kind"] == "link" {
			want = end.Add(24 * time.Hour)
		}
		if int64(ttl) != want.Unix() {
			t.Errorf("%s item: expires_at %v, want %d", it["kind"], it["expires_at"], want.Unix())
		}
	}
	for _, s := range secrets {
		if !hashes[hash(s)] {
			t.Errorf("no item keyed by the hash of a %.12s… token", s)
		}
	}
	for _, it := range append(items, audit...) {
		text := fmt.Sprint(it)
		for _, s := range secrets {
			// The random part is base64url, which may hold '_' itself.
			random := strings.TrimPrefix(strings.TrimPrefix(s, portal.LinkPrefix), portal.SessionPrefix)
			if strings.Contains(text, s) || strings.Contains(text, random[:16]) {
				t.Errorf("an item holds a token in clear: %v", it)
			}
		}
	}
}
