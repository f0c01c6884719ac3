// Package clientgen generates package apiclient, the Go client of the
// public API, from its OpenAPI 3.1 description (shared/api/openapi.yaml):
// Prepare makes the document loadable by oapi-codegen, which go.mod pins as
// a tool (go tool oapi-codegen), and Generate runs it. make generate writes
// the result (cmd/genclient); apiclient's TestClientIsGenerated fails when
// the checked-in client is not what Generate writes.
package clientgen

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Generate returns the Go source oapi-codegen writes from the OpenAPI
// document at spec, once prepared, with the configuration at config. It
// runs `go tool oapi-codegen` in config's directory, so the paths the
// configuration names (its overlay) are relative to it, and the go
// command finds the module, and the pinned version, from there. It needs
// the module cache (make tools), not the network.
func Generate(ctx context.Context, spec, config string) ([]byte, error) {
	doc, err := os.ReadFile(spec)
	if err != nil {
		return nil, err
	}
	prepared, _, err := Prepare(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	tmp, err := os.MkdirTemp("", "clientgen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	in, out := filepath.Join(tmp, "openapi.yaml"), filepath.Join(tmp, "client.gen.go")
	if err := os.WriteFile(in, prepared, 0o644); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(config))
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "go", "tool", "oapi-codegen", "-config", filepath.Base(config), "-o", out, in)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go tool oapi-codegen: %w\n%s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	// oapi-codegen prints its warnings and exits 0: a warning is a change to
	// look at, so it fails the generation. The go command's own lines about
	// fetching the tool's modules are no warning.
	var warnings []string
	for line := range strings.Lines(stderr.String()) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "go: downloading ") {
			warnings = append(warnings, line)
		}
	}
	if len(warnings) > 0 {
		return nil, fmt.Errorf("go tool oapi-codegen warned:\n%s", strings.Join(warnings, "\n"))
	}
	return os.ReadFile(out)
}
