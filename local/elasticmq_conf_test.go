package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evs-kyb/evs/local/pipeline"
	"github.com/evs-kyb/evs/shared/deploy"
	"github.com/evs-kyb/evs/shared/devstack"
)

// The queues ElasticMQ declares at boot are the catalogue's, named as
// EnsureQueues names them.
func TestElasticMQConfigDeclaresTheCatalogueQueues(t *testing.T) {
	root, err := devstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, prefix string
		env          []string
		storage      bool
	}{
		{"make local's prefix, in memory", "evs-local-", nil, false},
		{"EVS_TABLE_PREFIX", "mine-", []string{"EVS_TABLE_PREFIX=mine-"}, false},
		{"ELASTICMQ_QUEUE_PREFIX first", "q-", []string{"EVS_TABLE_PREFIX=mine-", "ELASTICMQ_QUEUE_PREFIX=q-"}, false},
		{"with its data on disk", "evs-local-", []string{"ELASTICMQ_DATA_DIR=" + filepath.Join(t.TempDir(), "emq")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("bash", filepath.Join(root, "local", "stack", "stack.sh"), "elasticmq-conf")
			cmd.Env = append(os.Environ(), "EVS_STACK_DIR="+t.TempDir(), "EVS_TABLE_PREFIX=", "ELASTICMQ_QUEUE_PREFIX=", "ELASTICMQ_DATA_DIR=")
			cmd.Env = append(cmd.Env, tt.env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("stack.sh elasticmq-conf: %v", err)
			}
			conf := string(out)
			for _, q := range deploy.Queues() {
				block := regexp.MustCompile(`(?s)"` + regexp.QuoteMeta(pipeline.QueueName(tt.prefix, q.ID)) + `" \{(.*?)\n  \}`).FindStringSubmatch(conf)
				if block == nil {
					t.Errorf("queue %s is not declared", pipeline.QueueName(tt.prefix, q.ID))
					continue
				}
				if want := fmt.Sprintf("defaultVisibilityTimeout = %d seconds", q.VisibilityTimeoutSeconds); !strings.Contains(block[1], want) {
					t.Errorf("%s: want %q in %s", q.ID, want, block[1])
				}
				if q.DeadLetter != "" {
					want := fmt.Sprintf("name = %q\n      maxReceiveCount = %d", pipeline.QueueName(tt.prefix, q.DeadLetter), q.MaxReceiveCount)
					if !strings.Contains(block[1], want) {
						t.Errorf("%s: want dead letters %q in %s", q.ID, want, block[1])
					}
				} else if strings.Contains(block[1], "deadLettersQueue") {
					t.Errorf("%s has a dead-letter queue the catalogue does not give it", q.ID)
				}
			}
			if got := strings.Contains(conf, "messages-storage {\n  enabled = true"); got != tt.storage {
				t.Errorf("messages-storage enabled = %v, want %v", got, tt.storage)
			}
		})
	}
}
