package domain

// Consistency says how current a read must be.
type Consistency int

const (
	// ReadStrong sees every write acknowledged before the read: for a
	// caller that may read its own write (the zero value, the safe one).
	ReadStrong Consistency = iota
	// ReadEventual may miss the writes of the last second or so, at half
	// the cost: for a hot path that tolerates it.
	ReadEventual
)
