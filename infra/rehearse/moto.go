package rehearse

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// moto is the moto server a rehearsal started (local/moto/rehearse.sh): it
// stops that process, by the id it recorded, and its process group alone.
type moto struct {
	endpoint string
	pid      int
	done     chan error
	log      string
}

// startMoto installs moto when it is missing and starts it on a free port
// of the loopback, writing its log to logPath; it returns once moto
// answers.
func startMoto(ctx context.Context, root, logPath string) (*moto, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("moto's log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command("bash", filepath.Join(root, "local", "moto", "rehearse.sh"), "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group: werkzeug's threads and anything moto starts
	// stop with it, and nothing else is signalled.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start local/moto/rehearse.sh: %w", err)
	}
	m := &moto{endpoint: fmt.Sprintf("http://localhost:%d", port), pid: cmd.Process.Pid, done: make(chan error, 1), log: logPath}
	go func() { m.done <- cmd.Wait() }()
	// The first start installs moto (pip), which can take minutes.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		resp, err := http.Get(m.endpoint + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			return m, nil
		}
		select {
		case err := <-m.done:
			return nil, fmt.Errorf("moto exited before it answered (%v): see %s", err, logPath)
		case <-ctx.Done():
			m.stop()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			m.stop()
			return nil, fmt.Errorf("moto does not answer at %s: see %s", m.endpoint, logPath)
		}
	}
}

// stop ends the process group of the moto it started: SIGTERM, then SIGKILL
// after 5 seconds.
func (m *moto) stop() {
	_ = syscall.Kill(-m.pid, syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-m.pid, syscall.SIGKILL)
		<-m.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("a free port: %w", err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("a free port: not a TCP address")
	}
	return addr.Port, nil
}
