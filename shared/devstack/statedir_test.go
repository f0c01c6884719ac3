package devstack

import "testing"

// TestDirBeside: a local store lives beside DynamoDB Local's data on disk,
// under the stack's memory folder when the tables are in memory (never in
// the working directory, whatever the stack script answers), and under
// the stack's folder when no server runs.
func TestDirBeside(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"tables on disk", "/repo/.local/data/dynamodb", "/repo/.local/data/records"},
		{"tables on disk, a trailing slash", "/repo/.local/data/dynamodb/", "/repo/.local/data/records"},
		{"tables in memory", InMemory, "/repo/.local/stack/memory/records"},
		{"no server running", "", "/repo/.local/stack/records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dirBeside(tc.data, "/repo/.local/stack", "records"); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
