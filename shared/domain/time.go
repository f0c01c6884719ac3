package domain

import "time"

// TimeLayout is how every timestamp is written, in storage and on the wire:
// RFC 3339, UTC, always with milliseconds. The fixed width keeps string order
// equal to time order, which the updated_at index relies on.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime writes t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a timestamp written by FormatTime (or any RFC 3339 time).
func ParseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// Now is the wall clock's time as services store it (SystemClock's Now),
// for the few callers that take no clock: command-line tools, seed data.
func Now() time.Time { return Clock(SystemClock).Now() }
