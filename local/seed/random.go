package seed

import "math/rand/v2"

// Random helpers: weighted and uniform draws from a seeded generator.

type choice[T any] struct {
	v T
	w int
}

func c[T any](v T, w int) choice[T] { return choice[T]{v, w} }

func weighted[T any](r *rand.Rand, cs ...choice[T]) T {
	total := 0
	for _, x := range cs {
		total += x.w
	}
	k := r.IntN(total)
	for _, x := range cs {
		if k < x.w {
			return x.v
		}
		k -= x.w
	}
	return cs[len(cs)-1].v
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func pct(r *rand.Rand, p int) bool { return r.IntN(100) < p }

func between(r *rand.Rand, a, b float64) float64 { return a + r.Float64()*(b-a) }
