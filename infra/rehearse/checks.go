package rehearse

import (
	"context"
	"fmt"
	"strings"
)

// expect is what the deployment was asked for: its CDK context.
type expect struct {
	context map[string]string
}

// value is a context value, or def when none is given.
func (e expect) value(key, def string) string {
	if v, ok := e.context[key]; ok {
		return v
	}
	return def
}

// findings collect what a check found wrong.
type findings struct{ errs []error }

func (f *findings) add(format string, args ...any) {
	f.errs = append(f.errs, fmt.Errorf(format, args...))
}

// err records err, with what was being checked, when it is not nil; it
// reports whether it was.
func (f *findings) err(err error, what string) bool {
	if err != nil {
		f.errs = append(f.errs, fmt.Errorf("%s: %w", what, err))
		return true
	}
	return false
}

// equal records a difference between got and want.
func (f *findings) equal(what string, got, want any) {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		f.add("%s: %v, want %v", what, got, want)
	}
}

// check is one kind of the catalogue, checked through its service's API:
// it returns how many resources it checked.
type check struct {
	name string
	run  func(context.Context, *deployed, expect, *findings) int
}

// checks are every kind of resource the catalogue describes, each checked
// from the catalogue (shared/schema, shared/deploy, infra/stack's logical
// ids), so a resource added there is checked here.
func checks() []check {
	return []check{
		{"tables", checkTables},
		{"queues", checkQueues},
		{"buckets", checkBuckets},
		{"the records' replica", checkReplica},
		{"keys", checkKeys},
		{"secrets", checkSecrets},
		{"state machine", checkStateMachine},
		{"functions", checkFunctions},
		{"event source mappings", checkMappings},
		{"rules", checkRules},
		{"API routes and stage", checkAPI},
	}
}

// physical is the physical id of a logical id of type typ, or "" with a
// finding.
func physical(d *deployed, f *findings, logicalID, typ string) (resource, bool) {
	r, err := d.one(logicalID, typ)
	if f.err(err, "catalogue resource") {
		return resource{}, false
	}
	return r, true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

func contains(s, sub string) bool { return sub != "" && strings.Contains(s, sub) }
