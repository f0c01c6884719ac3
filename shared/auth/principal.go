package auth

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Principal is who is calling: the account the key belongs to and what the
// key may do.
type Principal struct {
	AccountID   int64
	KeyPrefix   string
	Permissions []string
}

// Can reports whether the principal holds perm.
func (p Principal) Can(perm string) bool {
	for _, q := range p.Permissions {
		if q == perm {
			return true
		}
	}
	return false
}

// Authorizer context keys, as API Gateway passes them to the functions (and,
// for the account and the key prefix, writes them in the access log).
const (
	AuthorizerAccountID = "account_id"
	AuthorizerKeyPrefix = "key_prefix"
	ctxAccountID        = AuthorizerAccountID
	ctxPermissions      = "permissions"
	ctxKeyPrefix        = AuthorizerKeyPrefix
)

// AuthorizerContext is the context the authorizer returns for p. API Gateway
// allows only flat string, number and boolean values, so permissions travel
// comma-separated.
func (p Principal) AuthorizerContext() map[string]any {
	return map[string]any{
		ctxAccountID:   strconv.FormatInt(p.AccountID, 10),
		ctxPermissions: strings.Join(p.Permissions, ","),
		ctxKeyPrefix:   p.KeyPrefix,
	}
}

// PrincipalFromAuthorizer reads the principal from the authorizer context of a
// proxy request (values arrive as strings, or as numbers from some tools).
func PrincipalFromAuthorizer(m map[string]any) (Principal, error) {
	var p Principal
	switch v := m[ctxAccountID].(type) {
	case string:
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return p, fmt.Errorf("authorizer context: bad account_id %q", v)
		}
		p.AccountID = id
	case float64:
		p.AccountID = int64(v)
	default:
		return p, errors.New("authorizer context: no account_id")
	}
	if p.AccountID <= 0 {
		return p, fmt.Errorf("authorizer context: bad account_id %d", p.AccountID)
	}
	if s, ok := m[ctxPermissions].(string); ok && s != "" {
		p.Permissions = strings.Split(s, ",")
	}
	p.KeyPrefix, _ = m[ctxKeyPrefix].(string)
	return p, nil
}

type ctxKey struct{}

// NewContext returns a context carrying the principal.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the principal of the request, if it was authenticated.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok
}
