//go:build !linux

package main

// endWithParent: only Linux has PR_SET_PDEATHSIG; elsewhere a command
// started by go run is ended through its process group.
func endWithParent() {}
