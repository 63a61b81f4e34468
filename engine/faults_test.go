package engine

import (
	"math"
	"sort"
	"testing"
	"time"

	"github.com/herd-sh/herd/report/stats"
)

func TestTimeoutAfterCommit(t *testing.T) {
	w, b := shopBase(t)
	payments := w.Type("payment")
	s := b.NewSession(1, w.Profile("commit_timeout"))

	// The write lands; the caller sees a timeout and no record.
	res := s.Call("create_payment_unkeyed", map[string]any{"order": "o_0001", "amount": 500})
	wantCode(t, res, CodeTimeout)
	if res.Fault != FaultTimeoutAfterCommit || !res.Committed || res.Record != nil {
		t.Fatalf("fault=%q committed=%v record=%v, want timeout_after_commit, committed, no record", res.Fault, res.Committed, res.Record)
	}
	if res.Latency != defaultTimeout {
		t.Fatalf("the caller waited %s, want the %s timeout", res.Latency, defaultTimeout)
	}
	if n := len(s.List(payments)); n != 1 {
		t.Fatalf("%d payments after a timed-out create, want 1 (the write landed)", n)
	}
	// A naive retry of a create without an idempotency key pays twice.
	wantCode(t, s.Call("create_payment_unkeyed", map[string]any{"order": "o_0001", "amount": 500}), CodeTimeout)
	if n := len(s.List(payments)); n != 2 {
		t.Fatalf("%d payments after a naive retry, want 2", n)
	}

	// With an idempotency key, the retry replays the first result.
	k := b.NewSession(2, w.Profile("commit_timeout"))
	args := map[string]any{"order": "o_0002", "amount": 700, "idempotency_key": "pay-o2-attempt"}
	first := k.Call("create_payment", args)
	wantCode(t, first, CodeTimeout)
	if !first.Committed {
		t.Fatal("first keyed call did not commit")
	}
	retry := k.Call("create_payment", args)
	if !retry.OK() || !retry.Replayed || retry.Committed {
		t.Fatalf("keyed retry: err=%v replayed=%v committed=%v, want a replayed success that commits nothing", retry.Err, retry.Replayed, retry.Committed)
	}
	list := k.List(payments)
	if len(list) != 1 {
		t.Fatalf("%d payments after a keyed retry, want 1", len(list))
	}
	if retry.Record == nil || retry.Record.ID() != list[0].ID() || retry.Record.Get("amount") != int64(700) {
		t.Fatalf("replayed record %v, want the payment %s", retry.Record, list[0].ID())
	}
	// A new key is a new payment.
	args2 := map[string]any{"order": "o_0002", "amount": 700, "idempotency_key": "pay-o2-second"}
	wantCode(t, k.Call("create_payment", args2), CodeTimeout)
	if n := len(k.List(payments)); n != 2 {
		t.Fatalf("%d payments after a call with a new key, want 2", n)
	}
	// The journal says what happened.
	j := k.Journal()
	if j[0].Result.Fault != FaultTimeoutAfterCommit || !j[1].Result.Replayed {
		t.Fatalf("journal: %+v / %+v", j[0].Result, j[1].Result)
	}
}

// Over 10,000 calls, each fault kind's count falls inside the 99.9% Wilson
// band around its probability. The calls are spread over 100 sessions of
// 100 calls, so the dice are tested across both call indexes and sessions.
func TestFaultRatesBinomial(t *testing.T) {
	w, b := shopBase(t)
	p := w.Profile("dice")
	want := map[string]float64{"": 1} // no fault: what the kinds leave
	for _, e := range p.For(w.Tool("get_order")).Errors {
		want[e.Kind] = e.P
		want[""] -= e.P
	}
	counts := map[string]int{}
	const sessions, calls = 100, 100
	for k := range sessions {
		s := b.NewSession(uint64(1000+k), p)
		for range calls {
			res := s.Call("get_order", map[string]any{"id": "o_0001"})
			counts[res.Fault]++
			switch res.Fault {
			case "":
				if !res.OK() {
					t.Fatalf("no fault but an error: %v", res.Err)
				}
			case CodeRateLimited:
				if res.Err.RetryAfter != 500*time.Millisecond {
					t.Fatalf("retry_after %s, want 500ms", res.Err.RetryAfter)
				}
				s.Sleep(res.Err.RetryAfter) // so the next call rolls its own die
			case "card_declined":
				if res.Err.Code != "card_declined" || res.Err.Message != "Your card was declined." {
					t.Fatalf("business fault: %v", res.Err)
				}
			case CodeTimeout, FaultTimeoutAfterCommit:
				if res.Err.Code != CodeTimeout || res.Latency != 2*time.Second {
					t.Fatalf("%s: err %v after %s, want timeout after 2s", res.Fault, res.Err, res.Latency)
				}
			}
		}
	}
	n := sessions * calls
	for kind, pk := range want {
		iv := stats.Wilson(counts[kind], n, 0.999)
		lo, hi := iv.Lo, iv.Hi
		t.Logf("%-22q p=%.3f observed %5d/%d = %.4f  99.9%% band [%.4f, %.4f]", kind, pk, counts[kind], n, float64(counts[kind])/float64(n), lo, hi)
		if pk < lo || pk > hi {
			t.Errorf("fault %q: %d of %d calls; p=%.3f lies outside the 99.9%% interval [%.4f, %.4f]", kind, counts[kind], n, pk, lo, hi)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("saw faults %v, want exactly the kinds %v", counts, want)
	}
}

// A rate-limited tool answers rate_limited again, without rolling dice,
// until its retry-after has passed; ignoring it is counted.
func TestRateLimitHoldsUntilRetryAfter(t *testing.T) {
	w, b := shopBase(t)
	p := w.Profile("dice")
	for key := uint64(0); key < 500; key++ {
		s := b.NewSession(key, p)
		for i := 0; i < 50; i++ {
			res := s.Call("get_order", map[string]any{"id": "o_0001"})
			if res.Fault != CodeRateLimited {
				continue
			}
			again := s.Call("get_order", map[string]any{"id": "o_0001"})
			wantCode(t, again, CodeRateLimited)
			if s.IgnoredRetryAfter() != 1 || again.Err.RetryAfter <= 0 || again.Err.RetryAfter > res.Err.RetryAfter {
				t.Fatalf("ignored=%d retry_after=%s", s.IgnoredRetryAfter(), again.Err.RetryAfter)
			}
			s.Sleep(again.Err.RetryAfter)
			if r := s.Call("get_order", map[string]any{"id": "o_0001"}); r.Fault == CodeRateLimited && s.IgnoredRetryAfter() != 1 {
				t.Fatal("still held after waiting out retry-after")
			}
			return
		}
	}
	t.Fatal("no rate_limited fault in 25,000 calls at p=0.02")
}

// Latency draws follow the declared distributions: uniform within
// [min, max]; lognormal with the declared median and p99.
func TestLatencyDistributions(t *testing.T) {
	w, b := shopBase(t)
	p := w.Profile("dice")
	const n = 10000
	var uni, logn []time.Duration
	for k := 0; k < n/100; k++ {
		s := b.NewSession(uint64(k), p)
		for i := 0; i < 100; i++ {
			if r := s.Call("get_order", map[string]any{"id": "o_0001"}); r.Fault == "" {
				uni = append(uni, r.Latency)
			}
			logn = append(logn, s.Call("list_orders", nil).Latency)
		}
	}
	for _, d := range uni {
		if d < 5*time.Millisecond || d >= 15*time.Millisecond {
			t.Fatalf("uniform latency %s outside [5ms, 15ms)", d)
		}
	}
	sort.Slice(logn, func(i, j int) bool { return logn[i] < logn[j] })
	// Order statistics: with n=10,000 the sample median's standard error
	// for a lognormal with σ = ln(10)/2.326 ≈ 0.99 is about 2% of the
	// median, and the p99's about 6%; the bands are 4 standard errors.
	median, p99 := logn[n/2], logn[n*99/100]
	if rel(median, 20*time.Millisecond) > 0.08 {
		t.Errorf("lognormal median %s, want 20ms ±8%%", median)
	}
	if rel(p99, 200*time.Millisecond) > 0.25 {
		t.Errorf("lognormal p99 %s, want 200ms ±25%%", p99)
	}
}

func rel(got, want time.Duration) float64 { return math.Abs(float64(got-want)) / float64(want) }

// The none profile has no faults and no latency; a nil profile is none.
func TestNoneProfile(t *testing.T) {
	w, b := shopBase(t)
	for _, p := range []*FaultProfile{nil, w.Profile("none")} {
		s := b.NewSession(1, p)
		for i := 0; i < 200; i++ {
			if res := s.Call("get_order", map[string]any{"id": "o_0001"}); !res.OK() || res.Latency != 0 {
				t.Fatalf("profile %v: %+v", p, res)
			}
		}
		if s.Elapsed() != 0 {
			t.Fatal("the clock moved without latency")
		}
	}
	if w.Profiles[0].Name != "none" || w.Profile("realistic") == nil || w.Profile("hostile") == nil {
		t.Fatal("built-in profiles missing")
	}
}
