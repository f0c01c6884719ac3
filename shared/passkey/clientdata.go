package passkey

import (
	"encoding/base64"
	"encoding/json"
)

// ClientChallenge is the challenge a credential.toJSON() answer's
// clientDataJSON names, as the browser encoded it (base64url); "" when it
// names none. It verifies nothing: it lets a caller tie the answer to the
// ceremony it began (the console's sign-in cookie) before FinishLogin
// verifies the answer itself.
func ClientChallenge(response []byte) string {
	var r struct {
		Response struct {
			ClientDataJSON string `json:"clientDataJSON"`
		} `json:"response"`
	}
	if json.Unmarshal(response, &r) != nil {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(r.Response.ClientDataJSON)
	if err != nil {
		return ""
	}
	var cd struct {
		Challenge string `json:"challenge"`
	}
	if json.Unmarshal(raw, &cd) != nil {
		return ""
	}
	return cd.Challenge
}
