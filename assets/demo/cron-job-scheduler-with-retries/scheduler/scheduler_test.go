package scheduler

import (
	"testing"
	"time"
)

func TestBackoffStaysWithinJitterBounds(t *testing.T) {
	for n := 0; n < 5; n++ {
		d := Backoff(100*time.Millisecond, n)
		base := 100 * time.Millisecond << n
		if d < base/2 || d > base/2+base {
			t.Fatalf("retry %d: %v outside [%v, %v]", n, d, base/2, base/2+base)
		}
	}
}
