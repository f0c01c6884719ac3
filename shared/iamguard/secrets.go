package iamguard

import (
	"context"
	"slices"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go/middleware"
)

// Secret allows or refuses secretsmanager:GetSecretValue on the secret
// whose ARN is arn: the role may read the secrets its catalogue entry names
// (their ARNs, as its environment gives them), no other.
func (r *Role) Secret(arn string) error {
	if arn != "" && slices.Contains(r.secrets, arn) {
		return nil
	}
	return r.denied("AccessDeniedException", "secretsmanager:GetSecretValue", arn)
}

// WithSecrets gives the role the ARNs of its catalogue's secrets (read from
// its environment by the variables the catalogue names).
func (r *Role) WithSecrets(arns ...string) *Role {
	for _, a := range arns {
		if a != "" {
			r.secrets = append(r.secrets, a)
		}
	}
	return r
}

// APIOption is the middleware that puts the role in front of a Secrets
// Manager client's reads (aws.Config.APIOptions): a function reads its
// secrets at init, by the variables its catalogue entry gives it.
func (r *Role) APIOption(s *middleware.Stack) error {
	return s.Initialize.Add(middleware.InitializeMiddlewareFunc("iamguard-secrets", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if awsmiddleware.GetServiceID(ctx) == secretsmanager.ServiceID {
			if v, ok := in.Parameters.(*secretsmanager.GetSecretValueInput); ok {
				if err := r.Secret(deref(v.SecretId)); err != nil {
					return middleware.InitializeOutput{}, middleware.Metadata{}, err
				}
			}
		}
		return next.HandleInitialize(ctx, in)
	}), middleware.Before)
}
