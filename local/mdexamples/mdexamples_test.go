package mdexamples_test

import (
	"strings"
	"testing"

	"github.com/evs-kyb/evs/local/mdexamples"
)

func TestParse(t *testing.T) {
	doc := strings.Join([]string{
		"# Title",
		"```sh",
		"echo one",
		"```",
		"",
		"```text output",
		"one",
		"```",
		"```sh norun: needs an AWS account",
		"cdk deploy",
		"```",
		"```go",
		"fmt.Println()",
		"```",
		"````sh",
		"cat <<'X'",
		"```",
		"X",
		"````",
		"- in a list:",
		"    ```sh",
		"    echo nested",
		"    ```",
	}, "\n")
	got, err := mdexamples.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []mdexamples.Example{
		{Line: 2, Code: "echo one", Output: "one", HasOutput: true},
		{Line: 9, Code: "cdk deploy", NoRun: "needs an AWS account"},
		{Line: 15, Code: "cat <<'X'\n```\nX"},
		{Line: 21, Code: "echo nested"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("example %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"norun without a reason", "```sh norun\nx\n```", "without a reason"},
		{"an unclosed fence", "```sh\nx\n", "never closes"},
		{"output after no example", "text\n```text output\nx\n```", "follows no example"},
		{"output after prose", "```sh\nx\n```\nsome words\n```text output\nx\n```", "follows no example"},
		{"a bash block", "```bash\nx\n```", "mark shell examples sh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := mdexamples.Parse(tt.doc); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name, want, got string
		ok              bool
	}{
		{"the same", "a\nb", "a\nb\n", true},
		{"a line differs", "a\nc", "a\nb", false},
		{"within a line", "id 1000000… open", "id 1000000042 open", true},
		{"within a line, not found", "id …x", "id 12", false},
		{"any lines", "first\n…\nlast", "first\n2\n3\nlast", true},
		{"any lines, none", "first\n…\nlast", "first\nlast", true},
		{"more output than said", "first", "first\nsecond", false},
		{"trailing output after …", "first\n…", "first\nsecond", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ok, missing := mdexamples.Match(tt.want, tt.got); ok != tt.ok {
				t.Errorf("Match(%q, %q) = %t (missing %q), want %t", tt.want, tt.got, ok, missing, tt.ok)
			}
		})
	}
}
