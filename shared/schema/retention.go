package schema

// Retention: an entity's items carry no expiry while its relationship
// lasts; when it ends each gets ExpiresAt (the TTL attribute of every table
// that keeps them), and a legal hold moves it aside into HeldExpiresAt and
// back (store/retention.go).
const (
	ExpiresAt     = "expires_at"
	HeldExpiresAt = "held_expires_at"
)

// RetentionAttributes are what dating an item of the table changes, with
// its key: an IAM grant limited to them lets a role set an item's expiry
// and nothing else of it.
func RetentionAttributes(id string) []string {
	t, ok := Lookup(id)
	if !ok {
		return nil
	}
	attrs := []string{t.PartitionKey.Name}
	if t.SortKey != nil {
		attrs = append(attrs, t.SortKey.Name)
	}
	return append(attrs, ExpiresAt, HeldExpiresAt)
}
