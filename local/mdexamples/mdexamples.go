// Package mdexamples reads the examples a Markdown document shows, so that
// a test can run them as a reader would and hold their output to what the
// text says (local/docs_examples_test.go runs every shipped document's).
//
// An example is a fenced block whose info string starts with "sh": it is
// run, in the order shown, in one shell per document. "sh norun: <reason>"
// shows a command that cannot run here (a deployment to AWS, a command that
// runs until stopped) and must say why. A block whose info string is
// "text output", right after an example (blank lines between at most),
// is what the example prints, line by line ("…" stands for any text within
// a line, and a line that is only "…" for any number of lines).
//
// Why a runner of our own rather than testscript's txtar: the examples must
// read as ordinary Markdown to a person (GitHub renders "sh" blocks), and
// they act on a running local system, which testscript's sandbox is not.
package mdexamples

import (
	"fmt"
	"strings"
)

// Example is one shell block of a document.
type Example struct {
	// Line is where its fence opens (1-based).
	Line int
	Code string
	// NoRun is why it is shown and not run ("" when it is run).
	NoRun string
	// Output is what it must print, when the document says (HasOutput).
	Output    string
	HasOutput bool
}

// Parse reads a document's examples in order. A "sh norun" without a reason,
// or an unclosed fence, is an error: an example nobody checks must say why.
func Parse(doc string) ([]Example, error) {
	lines := strings.Split(doc, "\n")
	var out []Example
	for i := 0; i < len(lines); i++ {
		fence, info, ok := opening(lines[i])
		if !ok {
			continue
		}
		end := closing(lines, i+1, fence)
		if end < 0 {
			return nil, fmt.Errorf("line %d: a fence that never closes", i+1)
		}
		body := dedent(lines[i+1:end], indentOf(lines[i]))
		start := i
		i = end
		switch {
		case shellLike(info):
			return nil, fmt.Errorf("line %d: a %q block: mark shell examples sh (run) or sh norun: <why>", start+1, info)
		case info == "sh" || strings.HasPrefix(info, "sh "):
			ex := Example{Line: start + 1, Code: body}
			if rest, ok := strings.CutPrefix(info, "sh norun"); ok {
				ex.NoRun = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
				if ex.NoRun == "" {
					return nil, fmt.Errorf("line %d: sh norun without a reason", start+1)
				}
			}
			out = append(out, ex)
		case info == "text output":
			if len(out) == 0 || out[len(out)-1].HasOutput || !onlyBlank(lines, lastEnd(lines, start), start) {
				return nil, fmt.Errorf("line %d: an output block that follows no example", start+1)
			}
			out[len(out)-1].Output, out[len(out)-1].HasOutput = body, true
		}
	}
	return out, nil
}

// shellLike are info strings of shell blocks that are not marked sh: an
// example nobody runs by mistake.
func shellLike(info string) bool {
	first, _, _ := strings.Cut(info, " ")
	switch first {
	case "bash", "shell", "console", "zsh", "shell-session":
		return true
	}
	return false
}

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// dedent takes a fence's own indentation (a block in a list item) off its
// lines.
func dedent(lines []string, n int) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l[min(n, indentOf(l)):]
	}
	return strings.Join(out, "\n")
}

// opening reads a fence's first line: its fence (``` or more) and info. A
// fence may be indented as deep as a list item nests it.
func opening(line string) (fence, info string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(t, "```") {
		return "", "", false
	}
	n := len(t) - len(strings.TrimLeft(t, "`"))
	return t[:n], strings.TrimSpace(t[n:]), true
}

func closing(lines []string, from int, fence string) int {
	for j := from; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == fence {
			return j
		}
	}
	return -1
}

// lastEnd is the line of the fence that closes the block before start.
func lastEnd(lines []string, start int) int {
	for j := start - 1; j >= 0; j-- {
		if strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
			return j
		}
	}
	return -1
}

func onlyBlank(lines []string, from, to int) bool {
	if from < 0 {
		return false
	}
	for j := from + 1; j < to; j++ {
		if strings.TrimSpace(lines[j]) != "" {
			return false
		}
	}
	return true
}

// Match says whether output is what want says, line by line: "…" within
// a line stands for any text, a line that is only "…" for any number of
// lines (none included); nothing else may be printed. It returns the
// first wanted line not found.
func Match(want, output string) (bool, string) {
	got := strings.Split(strings.TrimRight(output, "\n"), "\n")
	return match(strings.Split(strings.TrimRight(want, "\n"), "\n"), got)
}

func match(want, got []string) (bool, string) {
	if len(want) == 0 {
		if len(got) > 0 {
			return false, "(the end of the output; it goes on: " + got[0] + ")"
		}
		return true, ""
	}
	if strings.TrimSpace(want[0]) == "…" {
		for k := 0; k <= len(got); k++ {
			if ok, _ := match(want[1:], got[k:]); ok {
				return true, ""
			}
		}
		_, missing := match(want[1:], nil)
		return false, missing
	}
	if len(got) == 0 || !lineMatches(want[0], got[0]) {
		return false, want[0]
	}
	return match(want[1:], got[1:])
}

// lineMatches: the parts between "…" appear in order, the first at the
// start and the last at the end.
func lineMatches(want, got string) bool {
	parts := strings.Split(strings.TrimRight(want, " "), "…")
	got = strings.TrimRight(got, " ")
	if len(parts) == 1 {
		return got == parts[0]
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}
