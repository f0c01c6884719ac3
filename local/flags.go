package main

import (
	"flag"
	"fmt"
	"strconv"
	"time"
)

// The commands' numeric flags: ids, limits, counts and durations. A flag
// left out keeps its documented default; a flag given must keep its rule
// (an id positive, a limit positive, a count or a duration not negative),
// or the command is refused with a usage error naming the flag and the
// rule, before it reads or writes anything. So a 0 or -1 never stands for
// "the default" (the demo account, no value at all).
//
// parseFlags checks the rule of every flag given (flag.FlagSet.Visit), so
// the commands need no checks of their own.

// ruledValue is a flag.Value that keeps what it was given and whether it
// keeps its rule. Set never fails, so the refusal is parseFlags' own
// message ("--account must be a positive id") rather than the flag
// package's.
type ruledValue struct {
	text string // as given, or the default
	rule string // what a given value must be, e.g. "a positive id"
	ok   bool
	// parse stores s in the flag's variable when s keeps the rule, and
	// reports whether it does.
	parse func(s string) bool
}

func (v *ruledValue) String() string { return v.text }

func (v *ruledValue) Set(s string) error {
	v.text = s
	v.ok = v.parse != nil && v.parse(s)
	return nil
}

// broken is the rule of a given flag its value does not keep, "" if it
// keeps it.
func (v *ruledValue) broken() string {
	if v.ok {
		return ""
	}
	return v.rule
}

// ruleError is the usage error of the first flag given (in fs's order,
// by name) that breaks its rule, nil when every one keeps it.
func ruleError(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		v, ok := f.Value.(*ruledValue)
		if !ok || err != nil {
			return
		}
		if rule := v.broken(); rule != "" {
			err = usageError{fmt.Sprintf("%s: --%s must be %s (given %q)", fs.Name(), f.Name, rule, v.text)}
		}
	})
	return err
}

// given reports whether the command line gave the flag name.
func given(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

// idFlag defines an id flag: 0 when left out (the command's default, or
// "required"), else a positive id.
func idFlag(fs *flag.FlagSet, name, usage string) *int64 {
	p := new(int64)
	fs.Var(&ruledValue{text: "0", rule: "a positive id", parse: func(s string) bool {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return false
		}
		*p = n
		return true
	}}, name, usage)
	return p
}

// limitFlag defines a limit flag: def when left out, else a positive
// number (0 would silently mean the default).
func limitFlag(fs *flag.FlagSet, name string, def int, usage string) *int {
	return intFlag(fs, name, def, 1, "a positive number", usage)
}

// countFlag defines a count or setting that may be 0 (review interval
// days: none): def when left out, else 0 or more.
func countFlag(fs *flag.FlagSet, name string, def int, usage string) *int {
	return intFlag(fs, name, def, 0, "0 or more", usage)
}

func intFlag(fs *flag.FlagSet, name string, def, min int, rule, usage string) *int {
	p := new(int)
	*p = def
	fs.Var(&ruledValue{text: strconv.Itoa(def), rule: rule, parse: func(s string) bool {
		n, err := strconv.Atoi(s)
		if err != nil || n < min {
			return false
		}
		*p = n
		return true
	}}, name, usage)
	return p
}

// durationFlag defines a wait or overlap: def when left out, else a
// duration (such as 90s, 24h) of 0 or more.
func durationFlag(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	p := new(time.Duration)
	*p = def
	fs.Var(&ruledValue{text: def.String(), rule: "a duration of 0s or more, such as 90s or 24h", parse: func(s string) bool {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return false
		}
		*p = d
		return true
	}}, name, usage)
	return p
}
