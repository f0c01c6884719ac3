package passkey

import "encoding/binary"

// UserHandle is the WebAuthn user handle of an operator: 16 bytes, the
// account id then the operator id, big-endian. A discoverable sign-in
// brings it back, so the passkey it names is found with one read; it is
// not secret (ids are not), and names no person.
func UserHandle(accountID, operatorID int64) []byte {
	b := make([]byte, 0, 16)
	b = binary.BigEndian.AppendUint64(b, uint64(accountID))
	return binary.BigEndian.AppendUint64(b, uint64(operatorID))
}

// ParseUserHandle reads a UserHandle back; ok is false for anything else.
func ParseUserHandle(b []byte) (accountID, operatorID int64, ok bool) {
	if len(b) != 16 {
		return 0, 0, false
	}
	accountID, operatorID = int64(binary.BigEndian.Uint64(b[:8])), int64(binary.BigEndian.Uint64(b[8:]))
	if accountID <= 0 || operatorID <= 0 {
		return 0, 0, false
	}
	return accountID, operatorID, true
}
