// Package checks runs verification checks against external providers over
// real HTTP: the Saudi Ministry of Commerce's Wathq commercial-registration
// API and OpenSanctions' yente matching API. It turns their answers into
// check results (sanitised by an allow-list per check type), entity fields
// and a coverage score.
package checks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/evs-kyb/evs/shared/capped"
	"github.com/evs-kyb/evs/shared/domain"
)

// maxProviderBody caps what is read of a provider's answer: the largest
// body evidence keeps (domain.MaxEvidence). One byte more is read, so that
// an answer that goes on past it is known for what it is (its evidence not
// stored, and why), never taken for a whole answer of 4 MiB.
const maxProviderBody = domain.MaxEvidence

// ProviderError is a provider's failure to answer: a transport error, a
// timeout, or a status that is not an answer.
type ProviderError struct {
	Provider string
	// Status is what the check records as provider_status: "timeout",
	// "unreachable", or the HTTP status code.
	Status string
	Err    error
	// Evidence is the body of a failed answer (a 503's page, an unreadable
	// answer), kept like any other; nil when nothing came back (a timeout,
	// an unreachable provider).
	Evidence *domain.Evidence
}

func (e *ProviderError) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Provider, e.Status, e.Err)
}

func (e *ProviderError) Unwrap() error { return e.Err }

// do sends req and reads the body, mapping transport failures and timeouts
// to ProviderErrors. The evidence is taken here, at the client's edge: the
// hash is over exactly the bytes read, before anything parses them. The
// answer is asked for uncompressed: Go's transport would otherwise ask for
// gzip and inflate it unseen, and the hash would be of bytes no provider
// sent.
func do(ctx context.Context, client *http.Client, provider string, req *http.Request) (*http.Response, []byte, *domain.Evidence, error) {
	if client == nil {
		client = http.DefaultClient
	}
	if req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, nil, nil, transportError(ctx, provider, err)
	}
	defer resp.Body.Close()
	body, _, err := capped.Read(resp.Body, maxProviderBody+1)
	if err != nil {
		return nil, nil, nil, transportError(ctx, provider, err)
	}
	ev := domain.NewEvidence(provider, req.Method, RedactURL(req.URL), resp.StatusCode, body, time.Now())
	return resp, body, ev, nil
}

// secretParam reports whether a query parameter's name suggests a
// credential.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "password", "passwd", "auth", "signature", "sig", "credential", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// RedactURL is u as evidence records it: without user information and
// without the values of query parameters named like credentials (api_key,
// token, secret, signature…), which read "REDACTED". Our clients send keys
// in headers, never in URLs; this guards a base URL configured with one.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		q := c.Query()
		for name := range q {
			if secretParam(name) {
				q[name] = []string{"REDACTED"}
			}
		}
		c.RawQuery = q.Encode()
	}
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

func transportError(ctx context.Context, provider string, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &ProviderError{Provider: provider, Status: "timeout", Err: errors.New("no answer within the check's timeout")}
	}
	return &ProviderError{Provider: provider, Status: "unreachable", Err: err}
}

func statusError(provider string, code int, body []byte, ev *domain.Evidence) error {
	snippet := string(body)
	if len(snippet) > 200 {
		snippet = snippet[:200]
	}
	return &ProviderError{Provider: provider, Status: fmt.Sprint(code), Err: fmt.Errorf("HTTP %d: %s", code, snippet), Evidence: ev}
}
