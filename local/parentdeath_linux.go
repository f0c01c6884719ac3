package main

import (
	"os"
	"syscall"
	"unsafe"
)

// endWithParent asks the kernel for SIGTERM when the process that started
// this one ends. `go run ./local receiver … &` then `kill $!` ends go run
// alone, which does not pass the signal on: without this the compiled
// command would go on serving, holding its port, with no job to kill.
// SIGTERM ends it as Ctrl-C does (main's context). A signal the starter
// chose already (a test's SIGKILL) is kept. A parent gone before the
// request was made sends nothing: the process ends now.
func endWithParent() {
	var sig int32
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0)
	if sig != 0 {
		return
	}
	parent := os.Getppid()
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
	if os.Getppid() != parent {
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}
