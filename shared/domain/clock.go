package domain

import "time"

// Clock tells the time. Every service that stamps or compares times takes
// one explicitly: shared/boot passes SystemClock, tests a fixed or stepping
// one. A service built without a clock fails at its first use, never falls
// back to the wall clock unnoticed.
type Clock func() time.Time

// SystemClock is the wall clock.
func SystemClock() time.Time { return time.Now() }

// Now is the clock's time in UTC at the milliseconds the service stores, so
// a value survives a round trip through storage unchanged.
func (c Clock) Now() time.Time { return c().UTC().Truncate(time.Millisecond) }

// FixedClock always answers t: a run pinned to its scheduled time (the
// periodic reviews), tests, replays of sample events.
func FixedClock(t time.Time) Clock { return func() time.Time { return t } }
