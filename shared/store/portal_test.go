package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/store"
)

// pt0 is the portal tests' start: the wall clock's time, since DynamoDB
// Local, like DynamoDB, removes items whose TTL (expires_at) has passed.
var pt0 = time.Now().UTC().Truncate(time.Second)

// portalWorld is an account with an active and a disabled operator.
type portalWorld struct {
	st               *store.Store
	acct             int64
	active, disabled int64
	seq              int
}

func newPortalWorld(t *testing.T) *portalWorld {
	t.Helper()
	ctx := context.Background()
	st := devstacktest.Store(t)
	w := &portalWorld{st: st, acct: newAccount(t, st)}
	op, err := st.CreateOperator(ctx, w.acct, "Active", nil, pt0)
	if err != nil {
		t.Fatal(err)
	}
	w.active = op.ID
	gone, err := st.CreateOperator(ctx, w.acct, "Disabled", nil, pt0)
	if err != nil {
		t.Fatal(err)
	}
	gone.DisabledAt = &pt0
	if err := st.UpdateOperator(ctx, gone, domain.AuditRecord{AccountID: w.acct, ActionID: "disable", Action: domain.ActionOperatorDisable, At: pt0}); err != nil {
		t.Fatal(err)
	}
	w.disabled = gone.ID
	return w
}

func (w *portalWorld) hash(prefix string) string {
	w.seq++
	return fmt.Sprintf("%s%058d", prefix, w.seq) // 64 characters, like a SHA-256 in hex
}

func (w *portalWorld) audit(action domain.Action) domain.AuditRecord {
	w.seq++
	return domain.AuditRecord{AccountID: w.acct, ActionID: fmt.Sprintf("%s-%d", action, w.seq), Action: action, At: pt0}
}

// link stores a link for operator, valid from pt0 for 15 minutes.
func (w *portalWorld) link(t *testing.T, operator int64) domain.PortalLink {
	t.Helper()
	l := domain.PortalLink{Hash: w.hash("l"), AccountID: w.acct, OperatorID: operator, CreatedAt: pt0, ExpiresAt: pt0.Add(15 * time.Minute)}
	if err := w.st.CreatePortalLink(context.Background(), l, w.audit(domain.ActionPortalLink)); err != nil {
		t.Fatal(err)
	}
	return l
}

// session is a session of the link's operator starting at.
func (w *portalWorld) session(l domain.PortalLink, at time.Time) domain.PortalSession {
	return domain.PortalSession{Hash: w.hash("s"), AccountID: l.AccountID, OperatorID: l.OperatorID,
		StartedAt: at, ExpiresAt: at.Add(12 * time.Hour), IdleUntil: at.Add(30 * time.Minute)}
}

func TestPortalLinkRoundTrip(t *testing.T) {
	ctx := context.Background()
	w := newPortalWorld(t)
	audit := w.audit(domain.ActionPortalLink)
	l := domain.PortalLink{Hash: w.hash("l"), AccountID: w.acct, OperatorID: w.active, CreatedAt: pt0, ExpiresAt: pt0.Add(15 * time.Minute)}
	if err := w.st.CreatePortalLink(ctx, l, audit); err != nil {
		t.Fatal(err)
	}
	got, err := w.st.PortalLink(ctx, l.Hash)
	if err != nil || !reflect.DeepEqual(got, l) {
		t.Errorf("stored\n got %+v (%v)\nwant %+v", got, err, l)
	}
	if rec, err := w.st.AuditRecord(ctx, w.acct, audit.ActionID); err != nil || rec.Action != domain.ActionPortalLink {
		t.Errorf("audit %+v (%v)", rec, err)
	}
	again := l
	again.Hash = w.hash("l")
	if err := w.st.CreatePortalLink(ctx, again, audit); !errors.Is(err, domain.ErrDuplicateAction) {
		t.Errorf("a used action id: %v, want ErrDuplicateAction", err)
	}
	if _, err := w.st.PortalLink(ctx, again.Hash); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("the refused link was stored: %v", err)
	}

	// A session's hash is no link, and a link's no session.
	s := w.session(l, pt0.Add(time.Minute))
	if err := w.st.RedeemPortalLink(ctx, l.Hash, s, w.audit(domain.ActionPortalSignIn)); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"link by a session's hash": func() error { _, err := w.st.PortalLink(ctx, s.Hash); return err }(),
		"session by a link's hash": func() error { _, err := w.st.PortalSession(ctx, l.Hash); return err }(),
		"unknown link":             func() error { _, err := w.st.PortalLink(ctx, w.hash("x")); return err }(),
		"unknown session":          func() error { _, err := w.st.PortalSession(ctx, w.hash("x")); return err }(),
	} {
		if domain.ErrorCode(err) != domain.ECodeNotFound {
			t.Errorf("%s: %v, want not_found", name, err)
		}
	}
}

func TestRedeemPortalLink(t *testing.T) {
	ctx := context.Background()
	w := newPortalWorld(t)
	used := w.link(t, w.active)
	if err := w.st.RedeemPortalLink(ctx, used.Hash, w.session(used, pt0.Add(time.Minute)), w.audit(domain.ActionPortalSignIn)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		link func() domain.PortalLink
		at   time.Duration // after pt0
		edit func(*domain.PortalSession)
		want error
		code string
	}{
		{"a fresh link", func() domain.PortalLink { return w.link(t, w.active) }, time.Minute, nil, nil, ""},
		{"the last millisecond", func() domain.PortalLink { return w.link(t, w.active) }, 15*time.Minute - time.Millisecond, nil, nil, ""},
		{"a used link", func() domain.PortalLink { return used }, 2 * time.Minute, nil, domain.ErrStale, ""},
		{"at its end", func() domain.PortalLink { return w.link(t, w.active) }, 15 * time.Minute, nil, domain.ErrStale, ""},
		{"an unknown link", func() domain.PortalLink {
			return domain.PortalLink{Hash: w.hash("l"), AccountID: w.acct, OperatorID: w.active}
		}, time.Minute, nil, domain.ErrStale, ""},
		{"another operator than the link's", func() domain.PortalLink { return w.link(t, w.active) }, time.Minute,
			func(s *domain.PortalSession) { s.OperatorID = w.disabled }, domain.ErrStale, ""},
		{"a disabled operator", func() domain.PortalLink { return w.link(t, w.disabled) }, time.Minute, nil, nil, domain.ECodeInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.link()
			s := w.session(l, pt0.Add(tc.at))
			if tc.edit != nil {
				tc.edit(&s)
			}
			audit := w.audit(domain.ActionPortalSignIn)
			before, _ := w.st.PortalLink(ctx, l.Hash)
			err := w.st.RedeemPortalLink(ctx, l.Hash, s, audit)
			if tc.code != "" {
				if domain.ErrorCode(err) != tc.code {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
			} else if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			got, serr := w.st.PortalSession(ctx, s.Hash)
			_, aerr := w.st.AuditRecord(ctx, w.acct, audit.ActionID)
			if err != nil {
				// Nothing written: no session, no audit, the link as it was.
				if domain.ErrorCode(serr) != domain.ECodeNotFound || domain.ErrorCode(aerr) != domain.ECodeNotFound {
					t.Errorf("a refused redemption wrote: session %v, audit %v", serr, aerr)
				}
				if after, _ := w.st.PortalLink(ctx, l.Hash); !reflect.DeepEqual(after, before) {
					t.Errorf("the link changed\n got %+v\nwant %+v", after, before)
				}
				return
			}
			if serr != nil || !reflect.DeepEqual(got, s) || aerr != nil {
				t.Errorf("session\n got %+v (%v)\nwant %+v; audit %v", got, serr, s, aerr)
			}
			after, err := w.st.PortalLink(ctx, l.Hash)
			if err != nil || after.UsedAt == nil || !after.UsedAt.Equal(s.StartedAt) {
				t.Errorf("link after = %+v (%v), want used at %s", after, err, s.StartedAt)
			}
		})
	}
}

// Of redemptions of one link at once, exactly one starts a session.
func TestRedeemPortalLinkConcurrently(t *testing.T) {
	ctx := context.Background()
	w := newPortalWorld(t)
	for round := range 3 {
		l := w.link(t, w.active)
		const n = 6
		var (
			wg       sync.WaitGroup
			start    = make(chan struct{})
			errs     = make([]error, n)
			sessions = make([]domain.PortalSession, n)
			audits   = make([]domain.AuditRecord, n)
		)
		for i := range n {
			sessions[i], audits[i] = w.session(l, pt0.Add(time.Minute)), w.audit(domain.ActionPortalSignIn)
		}
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = w.st.RedeemPortalLink(ctx, l.Hash, sessions[i], audits[i])
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i, err := range errs {
			_, serr := w.st.PortalSession(ctx, sessions[i].Hash)
			switch {
			case err == nil && serr == nil:
				won++
			case errors.Is(err, domain.ErrStale) && domain.ErrorCode(serr) == domain.ECodeNotFound:
			default:
				t.Errorf("round %d, redemption %d: %v (session: %v)", round, i, err, serr)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d sessions, want 1 (%v)", round, won, errs)
		}
	}
}

func TestPortalSessionTouchAndEnd(t *testing.T) {
	ctx := context.Background()
	w := newPortalWorld(t)
	l := w.link(t, w.active)
	s := w.session(l, pt0.Add(time.Minute))
	if err := w.st.RedeemPortalLink(ctx, l.Hash, s, w.audit(domain.ActionPortalSignIn)); err != nil {
		t.Fatal(err)
	}
	later := s.IdleUntil.Add(5 * time.Minute)
	tests := []struct {
		name string
		hash string
		to   time.Time
		want error
	}{
		{"moved on", s.Hash, later, nil},
		{"not moved back", s.Hash, s.IdleUntil, domain.ErrStale},
		{"not to where it is", s.Hash, later, domain.ErrStale},
		{"not a link", l.Hash, later.Add(time.Hour), domain.ErrStale},
		{"not an unknown session", w.hash("s"), later, domain.ErrStale},
	}
	for _, tc := range tests {
		if err := w.st.TouchPortalSession(ctx, tc.hash, tc.to); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if got, err := w.st.PortalSession(ctx, s.Hash); err != nil || !got.IdleUntil.Equal(later) {
		t.Errorf("session after = %+v (%v), idle until %s wanted", got, err, later)
	}
	if _, err := w.st.PortalLink(ctx, l.Hash); err != nil {
		t.Errorf("the link after a touch by its hash: %v", err)
	}

	// Ending: the session goes; again, or an unknown one, is no error; a
	// link's hash ends nothing.
	for _, h := range []string{s.Hash, s.Hash, w.hash("s"), l.Hash} {
		if err := w.st.EndPortalSession(ctx, h); err != nil {
			t.Errorf("end %s: %v", h, err)
		}
	}
	if _, err := w.st.PortalSession(ctx, s.Hash); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("the ended session: %v", err)
	}
	if _, err := w.st.PortalLink(ctx, l.Hash); err != nil {
		t.Errorf("ending by a link's hash removed the link: %v", err)
	}
	if err := w.st.TouchPortalSession(ctx, s.Hash, later.Add(time.Hour)); !errors.Is(err, domain.ErrStale) {
		t.Errorf("touch an ended session: %v, want ErrStale", err)
	}
	if _, err := w.st.PortalSession(ctx, s.Hash); domain.ErrorCode(err) != domain.ECodeNotFound {
		t.Errorf("a touch brought the ended session back: %v", err)
	}
}
