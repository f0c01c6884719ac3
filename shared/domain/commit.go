package domain

// CommitOptions is what a create brings to its commit besides the entity.
type CommitOptions struct {
	// ClaimToken names the create's claim on its registration number
	// (ClaimRegistration), which the commit turns into the entity's guard.
	// Without one (seed data, tests) the guard is created.
	ClaimToken string
	// Idempotency, when set, completes the request's Idempotency-Key record
	// with its answer in the same transaction: an entity is never committed
	// without the answer its retry replays.
	Idempotency *IdempotentAnswer
}

// IdempotentAnswer is the answer kept for a request's Idempotency-Key.
type IdempotentAnswer struct {
	Key, RequestHash string
	Status           int
	// Render makes the body from the committed entity (its ids are known
	// only at commit).
	Render func(EntityDetail) ([]byte, error)
}
