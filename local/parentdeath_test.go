package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A long-running command ends when what started it ends, as `kill $!` on
// `go run ./local receiver … &` expects: here its starter, a shell, is
// killed outright, and the receiver's port is free again soon after.
func TestACommandEndsWithItsParent(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildCLI(t, root)
	port := strconv.Itoa(freePort(t))
	sh := exec.Command("sh", "-c", `"$0" receiver --port "$1" --secret s & echo $!; wait`, bin, port)
	sh.Env = append(os.Environ(), "LOG_LEVEL=warn")
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	var line [32]byte
	n, _ := out.Read(line[:])
	pid, err := strconv.Atoi(strings.TrimSpace(string(line[:n])))
	if err != nil {
		sh.Process.Kill()
		t.Fatalf("the receiver's pid: %q", line[:n])
	}
	defer syscall.Kill(pid, syscall.SIGKILL) // whatever happens below
	waitFor(t, "receiver listening", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	sh.Process.Kill()
	sh.Wait()
	waitFor(t, "end of the receiver with its parent", func() bool {
		return ended(pid)
	})
}

// ended reports whether the process is gone, or a zombie: whoever adopted
// it may not reap it (a container's first process).
func ended(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command's name, in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || strings.HasPrefix(s[i+1:], " Z") || strings.HasPrefix(s[i+1:], " X")
}

// buildCLI builds this command (go run ./local) into the test's folder, as
// go run would, from the repository at root.
func buildCLI(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "evs")
	build := exec.Command("go", "build", "-o", bin, "./local")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./local: %v\n%s", err, out)
	}
	return bin
}
