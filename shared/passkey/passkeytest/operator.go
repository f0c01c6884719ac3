package passkeytest

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// Operator is an operator holding a passkey on a software authenticator,
// enrolled through the real registration ceremony: for tests that sign
// decisions without a browser.
type Operator struct {
	domain.Operator
	Auth *Authenticator
	svc  *passkey.Service
}

// Enrol registers a passkey for op on a new authenticator for the
// service's relying party (its first origin). Enrolling the same operator
// again gives them another passkey, on another authenticator, as a second
// device would.
func Enrol(ctx context.Context, svc *passkey.Service, op domain.Operator) (*Operator, error) {
	if len(svc.Config.Origins) == 0 {
		return nil, fmt.Errorf("passkeytest: the relying party has no origin")
	}
	o := &Operator{Operator: op, Auth: New(svc.Config.Origins[0], svc.Config.RPID), svc: svc}
	return o, o.register(ctx, "Test key")
}

func (o *Operator) register(ctx context.Context, name string) error {
	options, err := o.svc.BeginRegistration(ctx, o.Operator)
	if err != nil {
		return fmt.Errorf("passkeytest: begin registration: %w", err)
	}
	response, err := o.Auth.Register(options)
	if err != nil {
		return fmt.Errorf("passkeytest: authenticator: %w", err)
	}
	actor := domain.Actor{AccountID: o.AccountID, OperatorID: o.ID, ActionID: "passkeytest-" + base64.RawURLEncoding.EncodeToString(o.Auth.Credentials()[0].ID)}
	if _, err := o.svc.FinishRegistration(ctx, actor, o.Operator, name, response); err != nil {
		return fmt.Errorf("passkeytest: finish registration: %w", err)
	}
	return nil
}

// Sign signs a decision document's digest for purpose (decision or
// approval) in a ceremony the service begins.
func (o *Operator) Sign(ctx context.Context, purpose, digest string) (passkey.Assertion, error) {
	options, err := o.svc.BeginSigning(ctx, o.Operator, purpose, digest)
	if err != nil {
		return passkey.Assertion{}, fmt.Errorf("passkeytest: begin signing: %w", err)
	}
	response, err := o.Auth.Get(options)
	if err != nil {
		return passkey.Assertion{}, fmt.Errorf("passkeytest: authenticator: %w", err)
	}
	return passkey.AssertionFromResponse(response)
}

// SignRecord signs a decision document for purpose (decision or approval)
// and checks it as the decision function does, giving the signature as an
// audit record keeps it, in role (domain.SignatureMaker or
// SignatureSecond). The ceremony is left untaken, as a record written
// without the decision function leaves it.
func (o *Operator) SignRecord(ctx context.Context, role, purpose, document string) (domain.DecisionSignature, error) {
	digest := passkey.DocumentDigest([]byte(document))
	a, err := o.Sign(ctx, purpose, digest)
	if err != nil {
		return domain.DecisionSignature{}, err
	}
	s, err := o.svc.CheckSigned(ctx, a, o.AccountID, purpose, digest)
	if err != nil {
		return domain.DecisionSignature{}, fmt.Errorf("passkeytest: check the signature: %w", err)
	}
	return domain.DecisionSignature{Role: role, OperatorID: o.ID, CredentialID: a.CredentialID, AuthenticatorData: a.AuthenticatorData,
		ClientDataJSON: a.ClientDataJSON, Signature: a.Signature, UserHandle: a.UserHandle,
		Nonce: base64.RawURLEncoding.EncodeToString(s.Nonce), Digest: digest}, nil
}
