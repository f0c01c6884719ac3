package domain

// Deref is *p, or T's zero value when p is nil: an optional field read
// where absent and empty mean the same (audit snapshots, event detection).
// Packages that use the AWS SDK read theirs with aws.ToString and kin.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
