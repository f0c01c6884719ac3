package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/evs-kyb/evs/"

// layout is the module's packages outside tests: each one's imports of the
// module's own, and whether it is test support (named …test: only tests
// may import it).
type layout struct {
	imports map[string][]string
	support map[string]bool
}

func readLayout(t *testing.T) layout {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	l := layout{imports: map[string][]string{}, support: map[string]bool{}}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		l.imports[pkg] = nil
		l.support[pkg] = strings.HasSuffix(filepath.Base(pkg), "test")
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) {
				l.imports[pkg] = append(l.imports[pkg], strings.TrimPrefix(imp, module))
			}
		}
	}
	return l
}

// layer is a package's place: 1 for one that imports none of the
// module's packages, else one more than the highest it imports.
func (l layout) layer(pkg string, memo map[string]int) int {
	if n, ok := memo[pkg]; ok {
		return n
	}
	n := 1
	for _, imp := range l.imports[pkg] {
		n = max(n, l.layer(imp, memo)+1)
	}
	memo[pkg] = n
	return n
}

// figures are what shared/README.md's "Layout in figures" states, counted
// over the production packages (test support apart).
func (l layout) figures() map[string]int {
	f := map[string]int{}
	memo := map[string]int{}
	for pkg, imps := range l.imports {
		if l.support[pkg] {
			f["test-support packages"]++
			continue
		}
		f["production packages"]++
		f["layers"] = max(f["layers"], l.layer(pkg, memo))
		for _, imp := range imps {
			f["imports between them"]++
			outer := strings.HasPrefix(imp, "local") || strings.HasPrefix(imp, "infra")
			if strings.HasPrefix(pkg, "shared/") && outer || l.support[imp] {
				f["imports running upward"]++
			}
		}
	}
	return f
}

// The layout's figures in shared/README.md are the code's: a package or an
// import added or removed shows there; nothing in shared/ imports local/
// or infra/, and no production package imports test support.
func TestLayoutFiguresAreTheReadmes(t *testing.T) {
	got := readLayout(t).figures()
	if got["imports running upward"] != 0 {
		l := readLayout(t)
		for pkg, imps := range l.imports {
			for _, imp := range imps {
				if !l.support[pkg] && (strings.HasPrefix(pkg, "shared/") && (strings.HasPrefix(imp, "local") || strings.HasPrefix(imp, "infra")) || l.support[imp]) {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
	}
	readme, err := os.ReadFile("../shared/README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| (production packages|test-support packages|layers|imports between them|imports running upward|import cycles) \| (\d+) \|`)
	stated := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		var n int
		fmt.Sscan(m[2], &n)
		stated[m[1]] = n
	}
	got["import cycles"] = 0 // go list refuses a module with one
	var names []string
	for name := range got {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if stated[name] != got[name] {
			t.Errorf("shared/README.md states %d %s; the code has %d", stated[name], name, got[name])
		}
	}
}
