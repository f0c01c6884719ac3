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
	"io"
	"net"
	"net/http"
)

// maxProviderBody caps what is read of a provider's answer.
const maxProviderBody = 4 << 20

// ProviderError is a provider's failure to answer: a transport error, a
// timeout, or a status that is not an answer.
type ProviderError struct {
	Provider string
	// Status is what the check records as provider_status: "timeout",
	// "unreachable", or the HTTP status code.
	Status string
	Err    error
}

func (e *ProviderError) Error() string {
	return fmt.Sprintf("%s: %s: %v", e.Provider, e.Status, e.Err)
}

func (e *ProviderError) Unwrap() error { return e.Err }

// do sends req and reads the body, mapping transport failures and timeouts
// to ProviderErrors.
func do(ctx context.Context, client *http.Client, provider string, req *http.Request) (*http.Response, []byte, error) {
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, nil, transportError(ctx, provider, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProviderBody))
	if err != nil {
		return nil, nil, transportError(ctx, provider, err)
	}
	return resp, body, nil
}

func transportError(ctx context.Context, provider string, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &ProviderError{Provider: provider, Status: "timeout", Err: errors.New("no answer within the check's timeout")}
	}
	return &ProviderError{Provider: provider, Status: "unreachable", Err: err}
}

func statusError(provider string, code int, body []byte) error {
	snippet := string(body)
	if len(snippet) > 200 {
		snippet = snippet[:200]
	}
	return &ProviderError{Provider: provider, Status: fmt.Sprint(code), Err: fmt.Errorf("HTTP %d: %s", code, snippet)}
}
