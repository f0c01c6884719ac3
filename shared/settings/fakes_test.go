package settings_test

import (
	"context"
	"crypto/rand"
	"sync"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/portal"
	"github.com/evs-kyb/evs/shared/settings"
)

// The two edges built elsewhere at the same time get fakes; every other
// dependency is the real service over DynamoDB Local.
var (
	_ settings.Portal = portal.Portal(nil)
	_ settings.Tester = (*fakeTester)(nil)
)

// fakePortal keeps links and sessions in memory, by their tokens.
type fakePortal struct {
	mu       sync.Mutex
	links    map[string]*fakeLink
	sessions map[string]portal.Session
	ended    []string
}

type fakeLink struct {
	s    portal.Session
	used bool
}

func newFakePortal() *fakePortal {
	return &fakePortal{links: map[string]*fakeLink{}, sessions: map[string]portal.Session{}}
}

func (p *fakePortal) Session(_ context.Context, token string) (portal.Session, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.sessions[token]
	if !ok {
		return portal.Session{}, portal.ErrNoSession
	}
	return s, nil
}

func (p *fakePortal) End(_ context.Context, token string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.sessions, token)
	p.ended = append(p.ended, token)
	return nil
}

// link mints a link for s, as the administrator does; the settings area
// only forwards it, so only the console could use it.
func (p *fakePortal) link(s portal.Session, mark func(*fakeLink)) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := "link_" + rand.Text()
	l := &fakeLink{s: s}
	if mark != nil {
		mark(l)
	}
	p.links[t] = l
	return t
}

// start opens a session without a link.
func (p *fakePortal) start(s portal.Session) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := "sess_" + rand.Text()
	p.sessions[t] = s
	return t
}

// unused says a link is still there to be redeemed.
func (p *fakePortal) unused(token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.links[token]
	return ok && !l.used
}

func (p *fakePortal) live(token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.sessions[token]
	return ok
}

func (p *fakePortal) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sessions)
}

// fakeTester records the test events asked for and answers with send.
type fakeTester struct {
	mu    sync.Mutex
	calls []testCall
	send  func(a domain.Actor, endpointID int64) (domain.Delivery, error)
}

type testCall struct {
	Actor      domain.Actor
	EndpointID int64
}

func (f *fakeTester) SendTest(_ context.Context, a domain.Actor, endpointID int64) (domain.Delivery, error) {
	f.mu.Lock()
	f.calls = append(f.calls, testCall{a, endpointID})
	send := f.send
	f.mu.Unlock()
	return send(a, endpointID)
}

func (f *fakeTester) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *fakeTester) last() testCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[len(f.calls)-1]
}
