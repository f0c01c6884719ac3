// Package deploy describes each function as it is deployed: its name, its
// CloudFormation logical id, its size, and exactly which DynamoDB actions it
// may take on which tables. The CDK stack builds its functions and IAM
// policies from it, the parity test holds template.yaml to it, and the
// runtime-emulator test gives each artifact the environment it describes.
package deploy

import (
	"sort"

	"github.com/evs-kyb/evs/shared/api"
	"github.com/evs-kyb/evs/shared/schema"
)

// Grant allows actions on a table (and, with Indexes, on its indexes, which
// Query needs when it reads one).
type Grant struct {
	Table   string // schema table id
	Actions []string
	Indexes bool
}

// Function is one Lambda function.
type Function struct {
	// Name is the directory under functions/ and under build/.
	Name string
	// LogicalID is the function's CloudFormation logical id, the same in the
	// CDK stack and in template.yaml.
	LogicalID      string
	Description    string
	MemoryMB       int
	TimeoutSeconds int
	Grants         []Grant
}

// Runtime, architecture and handler of every function: a Go binary named
// bootstrap on Amazon Linux 2023, arm64.
const (
	Runtime      = "provided.al2023"
	Architecture = "arm64"
	Handler      = "bootstrap"
)

// LogLevelVar is set on every function besides its tables.
const LogLevelVar = "LOG_LEVEL"

const (
	getItem      = "dynamodb:GetItem"
	query        = "dynamodb:Query"
	batchGetItem = "dynamodb:BatchGetItem"
)

// Functions lists every function of the service.
func Functions() []Function {
	return []Function{
		{
			Name: "authorizer", LogicalID: "AuthorizerFunction",
			Description: "REST API REQUEST authorizer: Bearer API key to account and permissions",
			MemoryMB:    256, TimeoutSeconds: 5,
			Grants: []Grant{{Table: schema.APIKeys, Actions: []string{getItem}}},
		},
		{
			Name: "list-entities", LogicalID: "ListEntitiesFunction",
			Description: "GET /api/v1/entities",
			MemoryMB:    512, TimeoutSeconds: 10,
			Grants: []Grant{
				{Table: schema.Accounts, Actions: []string{getItem}},
				{Table: schema.Entities, Actions: []string{query, batchGetItem}, Indexes: true},
			},
		},
		{
			Name: "get-entity", LogicalID: "GetEntityFunction",
			Description: "GET /api/v1/entities/{id} (JSON and Markdown)",
			MemoryMB:    512, TimeoutSeconds: 10,
			Grants: []Grant{
				{Table: schema.Entities, Actions: []string{getItem}},
				{Table: schema.Checks, Actions: []string{query}, Indexes: true},
				{Table: schema.Reviews, Actions: []string{query}, Indexes: true},
			},
		},
		{
			Name: "get-review", LogicalID: "GetReviewFunction",
			Description: "GET /api/v1/entity_reviews/{id} (JSON and Markdown)",
			MemoryMB:    512, TimeoutSeconds: 10,
			Grants: []Grant{
				{Table: schema.Reviews, Actions: []string{getItem}},
				{Table: schema.Entities, Actions: []string{getItem}},
			},
		},
	}
}

// Lookup returns the function named name.
func Lookup(name string) (Function, bool) {
	for _, f := range Functions() {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// TableIDs lists the tables the function uses, sorted.
func (f Function) TableIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range f.Grants {
		if !seen[g.Table] {
			seen[g.Table] = true
			out = append(out, g.Table)
		}
	}
	sort.Strings(out)
	return out
}

// EnvVarNames lists the environment variables the function is given: one per
// table it uses, and the log level.
func (f Function) EnvVarNames() []string {
	out := []string{LogLevelVar}
	for _, id := range f.TableIDs() {
		t, _ := schema.Lookup(id)
		out = append(out, t.EnvVar)
	}
	sort.Strings(out)
	return out
}

// Route is the API route the function serves, if it serves one.
func (f Function) Route() (api.Route, bool) { return api.RouteFor(f.Name) }

// TableLogicalID is a table's CloudFormation logical id, the same in the CDK
// stack and in template.yaml: "entities" is "EntitiesTable".
func TableLogicalID(id string) string {
	out := []byte{}
	upper := true
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c == '_' {
			upper = true
			continue
		}
		if upper && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		upper = false
		out = append(out, c)
	}
	return string(out) + "Table"
}
