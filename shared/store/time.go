package store

import (
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// Timestamps are stored as strings in domain.TimeLayout so that index order
// is time order; optional ones are omitted rather than stored empty.

func fmtTime(t time.Time) string { return domain.FormatTime(t) }

func fmtOptTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return domain.FormatTime(*t)
}

// parseTime reads a stored timestamp; a corrupt value reads as the zero time
// rather than failing the whole response.
func parseTime(s string) time.Time {
	t, _ := domain.ParseTime(s)
	return t
}

func parseOptTime(s string) *time.Time {
	if s == "" {
		return nil
	}
	t := parseTime(s)
	return &t
}
