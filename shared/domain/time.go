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

// Now returns the current time truncated to the milliseconds we store, so a
// value survives a round trip through storage unchanged.
func Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
