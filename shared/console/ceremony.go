package console

// ceremony is what a page's passkey script needs: which ceremony, its two
// endpoints and the CSRF token (empty before sign-in).
type ceremony struct {
	Kind, Options, Submit, CSRF string
}
