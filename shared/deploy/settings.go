package deploy

// Setting is a non-secret environment variable of a function, set per
// deployment: a CDK context value or a SAM template parameter of the same
// name (Parameter), with a default.
type Setting struct {
	EnvVar    string
	Parameter string
	Default   string
	// Description is the template parameter's.
	Description string
	// DefaultsToStageURL: on a stage, the setting given no value is the
	// stage's own URL, https://<api id>.execute-api.<region>.<url
	// suffix>/<stage> without a trailing slash, which the CDK stack and
	// template.yaml build there (Default stays "", what a function's
	// environment holds anywhere else). Only for a function no API route
	// reaches: its environment waits for the API, which waits for the
	// functions it routes to.
	DefaultsToStageURL bool
}

// Secret is a credential a function reads at init from AWS Secrets Manager:
// EnvVar names the secret's ARN. The stack creates each secret (with a
// placeholder value an operator replaces); SecretID is its logical name.
// Locally the value itself may be given in the variable named by EnvVar
// without its _SECRET_ARN suffix.
type Secret struct {
	EnvVar   string // e.g. WATHQ_API_KEY_SECRET_ARN
	SecretID string // e.g. WathqApiKey (logical id WathqApiKeySecret)
	// Description says what the secret holds and who reads it.
	Description string
	// Holds names the value an operator puts in ("the Wathq API key").
	Holds string
}

// Secrets lists every secret of the service, each once, by SecretID.
func Secrets() []Secret {
	return eachOnce(func(f Function) []Secret { return f.Secrets }, func(s Secret) string { return s.SecretID })
}

// Settings lists every setting of the service, each once, by Parameter.
func Settings() []Setting {
	return eachOnce(func(f Function) []Setting { return f.Settings }, func(s Setting) string { return s.Parameter })
}

// eachOnce gathers what the functions list, in catalogue order, keeping the
// first of each key.
func eachOnce[T any](of func(Function) []T, key func(T) string) []T {
	seen := map[string]bool{}
	var out []T
	for _, f := range Functions() {
		for _, v := range of(f) {
			if k := key(v); !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out
}
