package personas

import (
	"testing"
)

// Every trait moves a measured rate in the expected direction: two
// personas that differ in that trait alone, the same agent seeds, at least
// 1,000 episodes each, and 95% Wilson intervals that do not overlap.

const traitN = 1500

func TestCautionAvoidsDestructiveTools(t *testing.T) {
	// Clear variant: a reader of first sentences sees "Permanently delete
	// a contact and its history"; ambiguous: a full reader sees only the
	// destructiveHint annotation. Either way caution weighs the warning
	// against the goal's "keep their history".
	for _, tc := range []struct {
		variant   string
		attention float64
	}{{"clear", 0.5}, {"ambiguous", 0.8}} {
		s := newSetup(t, "crm", tc.variant, "hide_contact", "")
		mk := func(c float64) *Persona {
			return derive("c", Baseline(), func(t *Traits) { t.Attention, t.Noise, t.Caution = tc.attention, 0.8, c })
		}
		bold, wary := s.run(t, traitN, mk(0)), s.run(t, traitN, mk(1))
		below(t, "destroyed_data under "+tc.variant, wary.class["destroyed_data"], traitN, "caution 1",
			bold.class["destroyed_data"], traitN, "caution 0")
	}
}

func TestAttentionAvoidsWrongRecords(t *testing.T) {
	// An inattentive searcher types a last name and takes the first
	// similar result; with near-duplicate names that is someone else.
	s := newSetup(t, "crm", "clear", "hide_contact", "")
	mk := func(a float64) *Persona {
		return derive("a", Baseline(), func(t *Traits) { t.Attention = a })
	}
	low, high := s.run(t, traitN, mk(0.1)), s.run(t, traitN, mk(0.9))
	below(t, "wrong_record", high.class["wrong_record"], traitN, "attention 0.9", low.class["wrong_record"], traitN, "attention 0.1")
}

func TestLiteralnessIgnoresSynonyms(t *testing.T) {
	// "Hide" is "Archive" only to a reader who takes synonyms: under the
	// ambiguous variant nothing else says so.
	s := newSetup(t, "crm", "ambiguous", "hide_contact", "")
	mk := func(l float64) *Persona {
		return derive("l", Baseline(), func(t *Traits) { t.Literalness = l })
	}
	loose, literal := s.run(t, traitN, mk(0)), s.run(t, traitN, mk(1))
	below(t, "achieved", literal.class["achieved"], traitN, "literalness 1", loose.class["achieved"], traitN, "literalness 0")
}

func TestNoiseSpreadsChoices(t *testing.T) {
	s := newSetup(t, "crm", "clear", "hide_contact", "")
	mk := func(x float64) *Persona {
		return derive("n", Baseline(), func(t *Traits) { t.Noise = x })
	}
	sharp, loose := s.run(t, traitN, mk(0.05)), s.run(t, traitN, mk(2))
	below(t, "first write tool other than the meant one", sharp.offMeant, traitN, "noise 0.05", loose.offMeant, traitN, "noise 2")
	if len(loose.called) <= len(sharp.called) {
		t.Errorf("more noise calls more different tools: %v vs %v", loose.called, sharp.called)
	}
}

func TestVerifyPreventsLostUpdates(t *testing.T) {
	// An agent that does not take in update_contact's parameters writes
	// the whole record back; a colleague edits it after the agent's first
	// call. Looking first and passing expected_version turns that into a
	// stale_write, a re-read and a clean retry.
	s := newSetup(t, "crm", "clear", "update_email", "")
	mk := func(v float64) *Persona {
		return derive("v", Baseline(), func(t *Traits) { t.Attention, t.Caution, t.Verify = 0.3, 0.9, v })
	}
	blind, checking := s.run(t, traitN, mk(0)), s.run(t, traitN, mk(1))
	below(t, "lost_update", checking.class["lost_update"], traitN, "verify 1", blind.class["lost_update"], traitN, "verify 0")
}

func TestExploreLooksAroundFirst(t *testing.T) {
	// Listing first is one more call; it also means the colleague's edit
	// lands before the agent reads the record it writes back.
	s := newSetup(t, "crm", "clear", "update_email", "")
	mk := func(e float64) *Persona {
		return derive("e", Baseline(), func(t *Traits) { t.Attention, t.Verify, t.Explore = 0.3, 0, e })
	}
	stay, roam := s.run(t, traitN, mk(0)), s.run(t, traitN, mk(1))
	below(t, "lost_update", roam.class["lost_update"], traitN, "explore 1", stay.class["lost_update"], traitN, "explore 0")
	if roam.calls <= stay.calls {
		t.Errorf("exploring makes more calls: %d vs %d", roam.calls, stay.calls)
	}
}

func TestRetryingWithoutKeysDuplicatesSideEffects(t *testing.T) {
	// hostile: update_contact times out after committing 6% of the time.
	s := newSetup(t, "crm", "clear", "update_email", "hostile")
	mk := func(mode RetryMode) *Persona {
		return derive("r", Baseline(), func(t *Traits) {
			t.Verify, t.Retry, t.Patience = 0, RetryPolicy{Mode: mode, HonorRetryAfter: true}, 10
		})
	}
	never, always := s.run(t, traitN, mk(RetryNone)), s.run(t, traitN, mk(RetryUntilSuccess))
	below(t, "episodes with a duplicated write", never.duplicatedEpisodes, traitN, "retry none", always.duplicatedEpisodes, traitN, "until_success")
	if never.duplicated != 0 {
		t.Errorf("an agent that never retries never writes twice: %d", never.duplicated)
	}
}

func TestHonouringRetryAfterAvoidsStorms(t *testing.T) {
	s := newSetup(t, "crm", "clear", "hide_contact", "hostile")
	mk := func(honor bool) *Persona {
		return derive("h", Baseline(), func(t *Traits) {
			t.Retry, t.Patience = RetryPolicy{Mode: RetryUntilSuccess, HonorRetryAfter: honor}, 10
		})
	}
	impatient, polite := s.run(t, traitN, mk(false)), s.run(t, traitN, mk(true))
	below(t, "episodes that ignored a retry-after", polite.ignoredEpisodes, traitN, "honouring", impatient.ignoredEpisodes, traitN, "not honouring")
	if polite.ignored != 0 {
		t.Errorf("an agent that waits out retry-after never calls early: %d", polite.ignored)
	}
}

func TestPatienceAchievesMoreUnderFaults(t *testing.T) {
	s := newSetup(t, "crm", "clear", "hide_contact", "hostile")
	mk := func(p int) *Persona {
		return derive("p", Baseline(), func(t *Traits) {
			t.Attention, t.Retry, t.Patience = 0.9, RetryPolicy{Mode: RetryUntilSuccess, HonorRetryAfter: true}, p
		})
	}
	short, long := s.run(t, traitN, mk(2)), s.run(t, traitN, mk(12))
	below(t, "achieved", short.class["achieved"], traitN, "patience 2", long.class["achieved"], traitN, "patience 12")
}

func TestHostilitySendsInvalidArguments(t *testing.T) {
	s := newSetup(t, "crm", "clear", "hide_contact", "")
	mk := func(h float64) *Persona {
		return derive("x", Baseline(), func(t *Traits) { t.Hostility = h })
	}
	calm, hostile := s.run(t, traitN, mk(0)), s.run(t, traitN, mk(0.6))
	below(t, "episodes with invalid_argument", calm.invalidEpisodes, traitN, "hostility 0", hostile.invalidEpisodes, traitN, "hostility 0.6")
}
