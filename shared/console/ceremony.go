package console

// ceremony is what a page's passkey script needs: which ceremony, its
// endpoints and the CSRF token (empty before sign-in). StepUp is the
// step-up's options, for adding a passkey (kind "add"): the script
// confirms with a passkey the operator has before it asks for the
// registration's options.
type ceremony struct {
	Kind, Options, Submit, CSRF string
	StepUp                      string
}
