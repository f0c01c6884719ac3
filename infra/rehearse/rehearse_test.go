package rehearse_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/evs-kyb/evs/infra/rehearse"
	"github.com/evs-kyb/evs/infra/stack"
)

// The deploy rehearsal, in make test: moto's CloudFormation takes the CDK
// app's bootstrap, its deployment (CREATE_COMPLETE, every catalogue
// resource as declared) and a change (UPDATE_COMPLETE, in place). Skipped
// under -short (it needs Python, Node.js and make build's artifacts).
func TestDeployRehearsal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no deploy rehearsal")
	}
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	if err := rehearse.Run(context.Background(), rehearse.Options{Root: root, WorkDir: work, Log: log}); err != nil {
		for _, name := range []string{"cdk.log", "moto.log"} {
			if b, rerr := os.ReadFile(filepath.Join(work, name)); rerr == nil && len(b) > 4000 {
				t.Logf("%s (the end):\n%s", name, b[len(b)-4000:])
			}
		}
		t.Fatal(err)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
