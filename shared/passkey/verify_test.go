package passkey_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/evs-kyb/evs/shared/domain"
	"github.com/evs-kyb/evs/shared/passkey"
)

// VerifyRecord passes a signed decision's record and fails it once any
// single byte of what the signature binds is changed: the authenticator
// data, the client data, the signature, the nonce, the digest; or once
// the key, the RP id or the origins are another's. (The credential id and
// the user handle are not signed: CheckSigned binds them to the store.)
func TestVerifyRecordTamper(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	alice, bob := w.holder(t, "Alice"), w.holder(t, "Bob")
	digest := digestOf("decision document")
	a := w.signWith(t, alice, nil, passkey.PurposeDecision, digest)
	s, err := w.svc.CheckSigned(ctx, a, w.acct, passkey.PurposeDecision, digest)
	if err != nil {
		t.Fatal(err)
	}
	key, cfg := alice.pk.PublicKey, config()
	if err := passkey.VerifyRecord(key, cfg, a, s.Nonce, digest); err != nil {
		t.Fatalf("the record as signed: %v", err)
	}

	type record struct {
		key    []byte
		cfg    passkey.Config
		a      passkey.Assertion
		nonce  []byte
		digest string
	}
	type tamper struct {
		name string
		r    record
	}
	var cases []tamper
	add := func(name string, r record) { cases = append(cases, tamper{name, r}) }
	signedFields := []struct {
		name string
		get  func(*passkey.Assertion) *string
	}{
		{"authenticator_data", func(a *passkey.Assertion) *string { return &a.AuthenticatorData }},
		{"client_data_json", func(a *passkey.Assertion) *string { return &a.ClientDataJSON }},
		{"signature", func(a *passkey.Assertion) *string { return &a.Signature }},
	}
	for _, f := range signedFields {
		raw, err := base64.RawURLEncoding.DecodeString(*f.get(&a))
		if err != nil {
			t.Fatal(err)
		}
		for i := range raw {
			tampered := append([]byte{}, raw...)
			tampered[i] ^= 0x01
			b := a
			*f.get(&b) = base64.RawURLEncoding.EncodeToString(tampered)
			add(fmt.Sprintf("%s byte %d", f.name, i), record{key, cfg, b, s.Nonce, digest})
		}
	}
	for i := range s.Nonce {
		n := append([]byte{}, s.Nonce...)
		n[i] ^= 0x01
		add(fmt.Sprintf("nonce byte %d", i), record{key, cfg, a, n, digest})
	}
	for i := range digest {
		d := []byte(digest)
		d[i] ^= 0x01
		add(fmt.Sprintf("digest byte %d", i), record{key, cfg, a, s.Nonce, string(d)})
	}
	add("another operator's key", record{bob.pk.PublicKey, cfg, a, s.Nonce, digest})
	add("another RP id", record{key, passkey.Config{RPID: "evs.example.com", RPDisplayName: "EVS", Origins: []string{"https://evs.example.com"}}, a, s.Nonce, digest})
	add("another origin", record{key, passkey.Config{RPID: rpID, RPDisplayName: "EVS", Origins: []string{"http://localhost:4000"}}, a, s.Nonce, digest})
	add("no nonce", record{key, cfg, a, nil, digest})

	for _, tc := range cases {
		err := passkey.VerifyRecord(tc.r.key, tc.r.cfg, tc.r.a, tc.r.nonce, tc.r.digest)
		if err == nil {
			t.Errorf("%s: verified", tc.name)
			continue
		}
		if code := domain.ErrorCode(err); code != domain.ECodeSignatureRequired {
			t.Errorf("%s: %v, want signature_required", tc.name, err)
		}
	}
	t.Logf("%d tampered records refused", len(cases))
}
