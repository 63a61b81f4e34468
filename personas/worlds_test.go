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

func TestRetrierDoubleRefundsOnShop(t *testing.T) {
	// hostile shop: refund_order times out after committing 12% of the
	// time, and declares no idempotency key — keys cannot help there. Its
	// description says to look at the order before calling again; an agent
	// that verifies does, and refunds once.
	const n = 2000
	s := newSetup(t, "shop", "clear", "return_and_refund", "hostile")
	retrier := Builtin().Get("retrier")
	blind := derive("retrier_blind", retrier.Traits, func(t *Traits) { t.Verify = 0; t.Retry.IdempotencyKeys = true })
	checking := derive("retrier_checking", retrier.Traits, func(t *Traits) { t.Verify = 1; t.Retry.IdempotencyKeys = true })
	b, c := s.run(t, n, blind), s.run(t, n, checking)
	doubles := func(x tally) int { return x.class["double_refund"] + x.class["invariant:refunds_within_total"] }
	below(t, "shop double refunds (keys on, but refund_order takes none)", doubles(c), n, "verifying", doubles(b), n, "not verifying")
	if b.duplicatedEpisodes == 0 {
		t.Error("without a key, a retried refund after a timeout commits twice")
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
