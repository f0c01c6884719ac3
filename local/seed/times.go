package seed

import (
	"math/rand/v2"
	"time"

	"github.com/evs-kyb/evs/shared/domain"
)

// createdAt spreads n creation times evenly over the window, each jittered
// within the first half of its slot so that they strictly increase.
func createdAt(now time.Time, i, n int, jitter float64) time.Time {
	spanMS := (Window - newestGap).Milliseconds()
	slot := spanMS / int64(n)
	if slot < 1 {
		slot = 1
	}
	off := int64(i)*slot + int64(jitter*float64(slot/2))
	return now.Add(-Window).Add(time.Duration(off) * time.Millisecond)
}

// span is an entity's life from creation to last change; every child
// timestamp lies within it.
type span struct{ from, to time.Time }

// at is the point at fraction f of the span.
func (s span) at(f float64) time.Time {
	d := time.Duration(float64(s.to.Sub(s.from)) * f)
	return s.clamp(s.from.Add(d))
}

// after is t plus d, kept within the span.
func (s span) after(t time.Time, d time.Duration) time.Time { return s.clamp(t.Add(d)) }

func (s span) clamp(t time.Time) time.Time {
	t = t.Truncate(time.Millisecond)
	if t.After(s.to) {
		return s.to
	}
	if t.Before(s.from) {
		return s.from
	}
	return t
}

// lastChange picks when the entity last changed: drafts soon after creation,
// a quarter of the rest within the last week, the others anywhere in between.
func lastChange(r *rand.Rand, now, created time.Time, st domain.EntityStatus) time.Time {
	age := now.Sub(created)
	life := minLife
	if age < life {
		life = age
	}
	var t time.Time
	switch {
	case st == domain.EntityDraft:
		t = created.Add(life + time.Duration(r.Int64N(int64(72*time.Hour))))
	case pct(r, 25):
		t = now.Add(-time.Duration(r.Int64N(int64(7 * 24 * time.Hour))))
	default:
		t = created.Add(life + time.Duration(r.Float64()*float64(age-life)))
	}
	if t.Before(created.Add(life)) {
		t = created.Add(life)
	}
	if t.After(now) {
		t = now
	}
	return t.Truncate(time.Millisecond)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
