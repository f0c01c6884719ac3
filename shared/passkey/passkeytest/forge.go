package passkeytest

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ForgeFlags rewrites the flags byte of an AuthenticationResponseJSON's
// authenticator data, setting set and clearing clear, without signing
// again: what a client claiming a verification that never happened (UV
// set on an assertion signed with UV clear) presents. The signature no
// longer covers the data.
func ForgeFlags(response []byte, set, clear byte) ([]byte, error) {
	var r authenticationJSON
	if err := json.Unmarshal(response, &r); err != nil {
		return nil, fmt.Errorf("passkeytest: authentication response: %w", err)
	}
	ad, err := b64.DecodeString(r.Response.AuthenticatorData)
	if err != nil || len(ad) < 37 {
		return nil, errors.New("passkeytest: authentication response: authenticatorData is malformed")
	}
	ad[32] = (ad[32] | set) &^ clear
	r.Response.AuthenticatorData = b64.EncodeToString(ad)
	return json.Marshal(r)
}
