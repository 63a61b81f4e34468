package brain

import (
	"net/http"
	"testing"
	"time"
)

// retryDelay honours what the endpoint asks up to the cap, refuses to
// wait longer, and otherwise backs off exponentially with jitter.
func TestRetryDelay(t *testing.T) {
	limit := 30 * time.Second
	for _, c := range []struct {
		name, value string
		want        time.Duration
		ok          bool
	}{
		{"Retry-After", "2", 2 * time.Second, true},
		{"Retry-After", "0.5", 500 * time.Millisecond, true},
		{"Retry-After", "30", 30 * time.Second, true},
		{"Retry-After", "31", 0, false},
		{"Retry-After", "1e400", 0, false},
		{"Retry-After-Ms", "250", 250 * time.Millisecond, true},
		{"Retry-After-Ms", "30001", 0, false},
		{"Retry-After", time.Now().Add(-time.Minute).UTC().Format(http.TimeFormat), 0, true},
		{"Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 0, false},
	} {
		got, ok := retryDelay(http.Header{http.CanonicalHeaderKey(c.name): {c.value}}, 0, limit)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: %s: %s %v, want %s %v", c.name, c.value, got, ok, c.want, c.ok)
		}
	}
	// Retry-After-Ms is preferred; a value that is no delay falls back.
	h := http.Header{"Retry-After-Ms": {"100"}, "Retry-After": {"20"}}
	if got, _ := retryDelay(h, 0, limit); got != 100*time.Millisecond {
		t.Errorf("both headers: %s, want Retry-After-Ms's 100ms", got)
	}
	for _, v := range []string{"-1", "NaN", "soon"} {
		got, ok := retryDelay(http.Header{"Retry-After": {v}}, 0, limit)
		if !ok || got > 500*time.Millisecond || got < 375*time.Millisecond {
			t.Errorf("Retry-After %q: %s %v, want the first backoff", v, got, ok)
		}
	}
	// No header: 0.5s·2ⁿ less up to a quarter, at most the cap.
	for retry, base := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second} {
		for range 20 {
			got, ok := retryDelay(nil, retry, limit)
			if !ok || got > base || got < base*3/4 {
				t.Fatalf("retry %d: %s, want (%s, %s]", retry, got, base*3/4, base)
			}
		}
	}
	if got, _ := retryDelay(nil, 40, 3*time.Second); got > 3*time.Second || got < 2250*time.Millisecond {
		t.Errorf("retry 40: %s, want the cap less jitter", got)
	}
}
