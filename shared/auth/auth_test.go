package auth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evs-kyb/evs/shared/auth"
	"github.com/evs-kyb/evs/shared/devstack/devstacktest"
	"github.com/evs-kyb/evs/shared/domain"
)

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc ", "abc", true},
		{"Basic abc", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"", "", false},
		{"abc", "", false},
	}
	for _, tt := range tests {
		token, ok := auth.BearerToken(tt.header)
		if token != tt.token || ok != tt.ok {
			t.Errorf("BearerToken(%q) = %q, %v", tt.header, token, ok)
		}
	}
}

func TestNewKey(t *testing.T) {
	key, rec, err := auth.NewKey(7, []string{domain.PermEntityView}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !auth.WellFormed(key) || !strings.HasPrefix(key, "evs_") {
		t.Errorf("key %q is not well formed", key)
	}
	if rec.Hash != auth.HashKey(key) || strings.Contains(rec.Hash, key) || len(rec.Hash) != 64 {
		t.Errorf("record keeps %q, want the SHA-256 only", rec.Hash)
	}
	if !strings.HasPrefix(key, rec.Prefix) || len(rec.Prefix) >= len(key)/2 {
		t.Errorf("prefix %q reveals too much or does not match", rec.Prefix)
	}
	other, _, _ := auth.NewKey(7, []string{domain.PermEntityView}, time.Now())
	if other == key {
		t.Error("two keys are equal")
	}
	for _, perms := range [][]string{nil, {"entity.delete"}, {domain.PermEntityView, "admin"}} {
		if _, _, err := auth.NewKey(7, perms, time.Now()); domain.ErrorCode(err) != domain.ECodeInvalid {
			t.Errorf("NewKey(%v) err = %v, want validation error", perms, err)
		}
	}
	// The GitHub-style known answer pins the hash function.
	if got := auth.HashKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashKey(abc) = %s", got)
	}
}

func TestAuthorizerContextRoundTrip(t *testing.T) {
	p := auth.Principal{AccountID: 42, KeyPrefix: "evs_abcdef", Permissions: []string{domain.PermEntityView, domain.PermReviewView}}
	got, err := auth.PrincipalFromAuthorizer(p.AuthorizerContext())
	if err != nil || got.AccountID != 42 || !got.Can(domain.PermReviewView) || got.Can(domain.PermEntityCreate) {
		t.Errorf("round trip = %+v, %v", got, err)
	}
	// Some tools deliver numbers as numbers.
	got, err = auth.PrincipalFromAuthorizer(map[string]any{"account_id": float64(42), "permissions": ""})
	if err != nil || got.AccountID != 42 || len(got.Permissions) != 0 {
		t.Errorf("numeric account = %+v, %v", got, err)
	}
	for _, m := range []map[string]any{{}, {"account_id": "x"}, {"account_id": "0"}, {"account_id": true}} {
		if _, err := auth.PrincipalFromAuthorizer(m); err == nil {
			t.Errorf("PrincipalFromAuthorizer(%v) accepted", m)
		}
	}
}

// TestAuthorizer runs the Lambda handler against keys stored in DynamoDB Local.
func TestAuthorizer(t *testing.T) {
	ctx := context.Background()
	st := devstacktest.Store(t)
	acct, err := st.CreateAccount(ctx, "Acme", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	key, rec, _ := auth.NewKey(acct.ID, []string{domain.PermEntityView}, time.Now())
	if err := st.PutAPIKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	revoked, rrec, _ := auth.NewKey(acct.ID, []string{domain.PermEntityView}, time.Now())
	if err := st.PutAPIKey(ctx, rrec); err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeAPIKey(ctx, rrec.Hash, time.Now()); err != nil {
		t.Fatal(err)
	}
	unknown, _, _ := auth.NewKey(acct.ID, []string{domain.PermEntityView}, time.Now())

	a := &auth.Authorizer{Keys: st, Clock: domain.SystemClock}
	arn := "arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/v1/entities"
	tests := []struct {
		name    string
		headers map[string]string
		ok      bool
	}{
		{"valid key", map[string]string{"Authorization": "Bearer " + key}, true},
		{"header name in lower case", map[string]string{"authorization": "Bearer " + key}, true},
		{"missing header", map[string]string{}, false},
		{"wrong scheme", map[string]string{"Authorization": "Basic " + key}, false},
		{"malformed key", map[string]string{"Authorization": "Bearer not-a-key"}, false},
		{"unknown key", map[string]string{"Authorization": "Bearer " + unknown}, false},
		{"revoked key", map[string]string{"Authorization": "Bearer " + revoked}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := a.Handle(ctx, events.APIGatewayCustomAuthorizerRequestTypeRequest{Type: "REQUEST", MethodArn: arn, Headers: tt.headers})
			if !tt.ok {
				if !errors.Is(err, auth.ErrUnauthorized) || err.Error() != "Unauthorized" {
					t.Fatalf("err = %v, want Unauthorized", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			st := resp.PolicyDocument.Statement
			if len(st) != 1 || st[0].Effect != "Allow" || st[0].Resource[0] != "arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*" {
				t.Errorf("policy = %+v, want Allow on the whole stage", resp.PolicyDocument)
			}
			p, err := auth.PrincipalFromAuthorizer(resp.Context)
			if err != nil || p.AccountID != acct.ID || !p.Can(domain.PermEntityView) {
				t.Errorf("context = %v (%v)", resp.Context, err)
			}
			for _, v := range resp.Context {
				if s, ok := v.(string); ok && strings.Contains(s, key) {
					t.Errorf("the key leaked into the context")
				}
			}
		})
	}
}
