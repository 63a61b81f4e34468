package personas

import (
	"testing"
)

// The built-in worlds' signature failures, produced by the built-in
// personas reading the worlds' own descriptions.

func TestRetrierDoubleRefundsWithoutIdempotencyKeys(t *testing.T) {
	// hostile payments: create_refund times out after committing 10% of
	// the time. The retrier retries at once; with idempotency keys the
	// retry replays the first refund instead of refunding again.
	const n = 2000
	s := newSetup(t, "payments", "clear", "refund_charge", "hostile")
	retrier := Builtin().Get("retrier")
	keyed := derive("retrier_with_keys", retrier.Traits, func(t *Traits) { t.Retry.IdempotencyKeys = true })
	without, with := s.run(t, n, retrier), s.run(t, n, keyed)
	below(t, "payments double_refund", with.class["double_refund"], n, "with keys", without.class["double_refund"], n, "without keys")
	if with.class["double_refund"] != 0 || with.class["over_refund"] != 0 || with.duplicated != 0 {
		t.Errorf("with idempotency keys no refund lands twice: double %d, over %d, duplicated writes %d",
			with.class["double_refund"], with.class["over_refund"], with.duplicated)
	}
}

func TestVerifyingAfterATimeoutRefundsOnce(t *testing.T) {
	// hostile payments: create_refund times out after committing 10% of
	// the time. Without idempotency keys, a retrier that retries blind
	// refunds twice; one that reads the charge back after the timeout sees
	// the refund landed and stops. (On mock:shop, whose refund_order takes
	// no key, agents that read create_return's "…and refund it, in one
	// call" no longer call refund_order after a return at all.)
	const n = 2000
	s := newSetup(t, "payments", "clear", "refund_charge", "hostile")
	retrier := Builtin().Get("retrier")
	blind := derive("retrier_blind", retrier.Traits, func(t *Traits) { t.Verify = 0 })
	checking := derive("retrier_checking", retrier.Traits, func(t *Traits) { t.Verify = 1 })
	b, c := s.run(t, n, blind), s.run(t, n, checking)
	doubles := func(x tally) int { return x.class["double_refund"] + x.class["over_refund"] }
	below(t, "payments double refunds without keys", doubles(c), n, "verifying", doubles(b), n, "not verifying")
	if b.duplicatedEpisodes == 0 {
		t.Error("without a key, a retried refund after a timeout commits twice")
	}
}

func TestShopReturnIsNotRefundedTwice(t *testing.T) {
	// create_return refunds by itself; a reader who sees that does not
	// refund the order again for the goal's second action.
	const n = 1400
	s := newSetup(t, "shop", "clear", "return_and_refund", "")
	careful := s.run(t, n, Builtin().Get("careful"))
	if k := careful.class["invariant:refunds_within_total"] + careful.class["double_refund"]; k > n/50 {
		t.Errorf("careful refunds a returned order again in %d of %d episodes", k, n)
	}
}

func TestIgnoringRetryAfterStormsTheMailer(t *testing.T) {
	const n = 1500
	s := newSetup(t, "email", "clear", "send_receipt", "hostile")
	b := Builtin()
	storm, calm := s.run(t, n, b.Get("retrier")), s.run(t, n, b.Get("careful"))
	below(t, "episodes calling before retry-after passed", calm.ignoredEpisodes, n, "careful", storm.ignoredEpisodes, n, "retrier")
	if storm.ignored < 2*storm.ignoredEpisodes {
		t.Errorf("a storm is several early calls per episode: %d calls in %d episodes", storm.ignored, storm.ignoredEpisodes)
	}
}

func TestRetrierStormsADecliningCard(t *testing.T) {
	const n = 1000
	s := newSetup(t, "payments", "clear", "decline_gracefully", "")
	b := Builtin()
	storm, calm := s.run(t, n, b.Get("retrier")), s.run(t, n, b.Get("careful"))
	below(t, "retry_storm on a declining card", calm.class["retry_storm"], n, "careful", storm.class["retry_storm"], n, "retrier")
}
