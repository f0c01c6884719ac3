package auth

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/logging"
)

// ErrUnauthorized is the error API Gateway turns into a 401 (its
// UNAUTHORIZED gateway response): the message must be exactly "Unauthorized".
var ErrUnauthorized = errors.New("Unauthorized")

// KeyFinder finds a stored key by its hash.
type KeyFinder interface {
	APIKeyByHash(ctx context.Context, hash string) (domain.APIKey, error)
}

// Authorizer is the REQUEST authorizer of the REST API.
type Authorizer struct {
	Keys KeyFinder
	// Clock decides whether a revoked key's overlap has ended.
	Clock domain.Clock
}

// Authenticate maps an Authorization header value to the key's principal.
// Missing, malformed, unknown and revoked keys are all ErrUnauthorized, so a
// caller learns nothing about which keys exist.
func (a *Authorizer) Authenticate(ctx context.Context, header string) (Principal, error) {
	log := logging.From(ctx)
	token, ok := BearerToken(header)
	if !ok || !WellFormed(token) {
		log.Info("authorizer: refused", "reason", "missing or malformed bearer key")
		return Principal{}, ErrUnauthorized
	}
	key, err := a.Keys.APIKeyByHash(ctx, HashKey(token))
	if domain.ErrorCode(err) == domain.ECodeNotFound {
		log.Info("authorizer: refused", "reason", "unknown key", "key_prefix", token[:len(keyPrefix)+6])
		return Principal{}, ErrUnauthorized
	}
	if err != nil {
		return Principal{}, err
	}
	if !key.ActiveAt(a.Clock.Now()) {
		log.Info("authorizer: refused", "reason", "revoked key", "key_prefix", key.Prefix, "account_id", key.AccountID)
		return Principal{}, ErrUnauthorized
	}
	return Principal{AccountID: key.AccountID, KeyPrefix: key.Prefix, Permissions: key.Permissions}, nil
}

// Handle is the Lambda handler. API Gateway caches its answer by the
// Authorization header for every route, so an accepted key is allowed on
// the whole API and each function checks its own permission.
func (a *Authorizer) Handle(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	ctx = logging.WithLogger(ctx, logging.From(ctx).With("request_id", req.RequestContext.RequestID))
	p, err := a.Authenticate(ctx, headerValue(req.Headers, "Authorization"))
	if err != nil {
		if !errors.Is(err, ErrUnauthorized) {
			logging.From(ctx).Error("authorizer: key lookup failed", "error", err)
		}
		return events.APIGatewayCustomAuthorizerResponse{}, err
	}
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: p.KeyPrefix,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
			Version: "2012-10-17",
			Statement: []events.IAMPolicyStatement{{
				Action:   []string{"execute-api:Invoke"},
				Effect:   "Allow",
				Resource: []string{wholeAPI(req.MethodArn)},
			}},
		},
		Context: p.AuthorizerContext(),
	}, nil
}

// wholeAPI turns a method ARN (arn:...:api-id/stage/GET/api/v1/entities) into
// one that covers every method and path of the stage, as the cached policy is
// reused for other routes.
func wholeAPI(methodARN string) string {
	parts := strings.SplitN(methodARN, "/", 3)
	if len(parts) < 2 {
		return methodARN
	}
	return parts[0] + "/" + parts[1] + "/*"
}

// headerValue finds a header regardless of case, as API Gateway passes
// headers as the client sent them.
func headerValue(h map[string]string, name string) string {
	if v, ok := h[name]; ok {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
