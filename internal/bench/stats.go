package bench

import (
	"math"
	"slices"
)

// percentile returns the p-th percentile of xs by the nearest-rank method:
// the smallest sample such that at least p% of samples are ≤ it. Unlike
// interpolation it always returns a latency that was actually observed.
// It returns 0 for no samples; xs is not modified.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// mean returns the arithmetic mean of xs, 0 for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// pct returns a stat computing the p-th percentile.
func pct(p float64) func([]float64) float64 {
	return func(xs []float64) float64 { return percentile(xs, p) }
}
