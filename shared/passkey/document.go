package passkey

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/evs-kyb/evs/shared/strictjson"
)

// DocumentDigest is the digest a decision's challenge is bound to: the hex
// SHA-256 of the decision document as signed.
func DocumentDigest(document []byte) string {
	sum := sha256.Sum256(document)
	return hex.EncodeToString(sum[:])
}

// Document is a decision document as signed: what decisions.DecisionDocument
// writes (the request as JSON, empty fields left out, the signature not in
// it). Its keys are the request's JSON names; a test of the decisions
// package holds the two to one list. It is its own type here because a
// verifier reads it with this package alone, and this package cannot
// import the decisions.
type Document struct {
	Action     string `json:"action"`
	AccountID  int64  `json:"account_id"`
	EntityID   int64  `json:"entity_id"`
	ReviewID   int64  `json:"review_id"`
	OperatorID int64  `json:"operator_id"`
	ActionID   string `json:"action_id"`
	Reason     string `json:"reason"`
	// The action's own fields (domain.ActionFields), read from Fields.
	AssigneeID       int64   `json:"assignee_id"`
	RiskLevel        string  `json:"risk_level"`
	MatchID          string  `json:"match_id"`
	Verdict          string  `json:"verdict"`
	WebsiteURL       *string `json:"website_url"`
	SocialURL        *string `json:"social_url"`
	ActivitySummary  *string `json:"business_activity_summary"`
	PartyOp          string  `json:"party_op"`
	PartyID          int64   `json:"party_id"`
	PartyKind        string  `json:"party_kind"`
	PartyName        *string `json:"party_name"`
	PartyRoles       *string `json:"party_roles"`
	PartyShares      *int64  `json:"party_shares"`
	PartyIDType      *string `json:"party_identity_type"`
	PartyIDNumber    *string `json:"party_identity_number"`
	PartyNationality *string `json:"party_nationality"`
	PartyBirthDate   *string `json:"party_birth_date"`
	PartySource      string  `json:"party_source"`
	PartyControls    *bool   `json:"party_controls"`
	Seen             string  `json:"seen"`
	// Fields is every key as given, its value's JSON: what a record's
	// after is compared with, field by field.
	Fields map[string]json.RawMessage `json:"-"`
}

// ReadDocument reads a decision document with the project's strict reader:
// a key given twice, a key in another case, a key no request has, a value
// of the wrong type are refused, so the document says one thing to every
// reader — the operator who signed it, the decision function, a verifier.
func ReadDocument(document string) (Document, error) {
	var d Document
	if err := strictjson.Decode([]byte(document), &d); err != nil {
		return Document{}, fmt.Errorf("the decision document is not one reading: %w", err)
	}
	// Read once more, as given: strictly read already, it holds each key
	// once and exactly as spelled.
	if err := json.Unmarshal([]byte(document), &d.Fields); err != nil || d.Fields == nil {
		return Document{}, fmt.Errorf("the decision document is not a JSON object")
	}
	return d, nil
}

// ParseUserHandleString reads a user handle as an assertion carries it
// (base64url without padding).
func ParseUserHandleString(s string) (accountID, operatorID int64, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, 0, false
	}
	return ParseUserHandle(b)
}
