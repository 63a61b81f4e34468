// Package personas is herd's scripted agent: persona traits, the built-in
// persona pack, the reader model (how an agent reads the tools it is offered,
// picks one and fills its arguments) and the episode loop (look → act →
// retry → verify) that runs one agent against one goal in one session.
//
// Misuse rates come from agents actually reading tool descriptions: the
// reader model scores each tool against the goal's words through what the
// persona's attention lets it see, weighs warning cues by its caution and
// samples with softmax(noise) from the agent's own dice, so a better
// description measurably lowers harm.
package personas

import (
	"fmt"
	"math"
)

// RetryMode is what an agent does when a call fails.
type RetryMode string

// Retry modes.
const (
	RetryNone         RetryMode = "none"          // never retry
	RetryOnce         RetryMode = "once"          // retry a failed action once
	RetryUntilSuccess RetryMode = "until_success" // keep retrying until patience runs out
)

// RetryPolicy is how an agent retries a failed call.
type RetryPolicy struct {
	Mode RetryMode
	// MaxAttempts caps the attempts of one intended action, the first
	// included; 0 means the mode's own limit (none: 1, once: 2,
	// until_success: as many as patience allows).
	MaxAttempts int
	// IdempotencyKeys: pass one key per intended action (reused on its
	// retries) to tools that declare an idempotency parameter.
	IdempotencyKeys bool
	// IgnoreKeyAdvice: pass no key even where a tool's text says to — a
	// habit the text does not change. Without it (and without
	// IdempotencyKeys) an agent passes the key a text asks for as far as
	// it reads and heeds the text (advice.go).
	IgnoreKeyAdvice bool
	// HonorRetryAfter: wait out a rate limit's retry-after before retrying
	// instead of retrying at once.
	HonorRetryAfter bool
}

// attempts returns how many attempts one action may take (0: unbounded).
func (r RetryPolicy) attempts() int {
	if r.MaxAttempts > 0 {
		return r.MaxAttempts
	}
	switch r.Mode {
	case RetryNone:
		return 1
	case RetryOnce:
		return 2
	}
	return 0
}

// Traits are what makes one persona behave differently from another. Every
// trait changes behaviour; docs/personas.md says how.
type Traits struct {
	// Attention is how much of a tool's text is read: below 1/3 the name
	// only, below 0.55 the name and the description's first sentence,
	// below 2/3 its first lines (to a budget of words), else the full
	// description, parameter docs and annotations. It also decides
	// how carefully search results are matched to the name the agent knows.
	Attention float64
	// Caution is the weight of warning cues ("permanently", "cannot be
	// undone", destructiveHint) and reassurances ("keeps", "reversible")
	// against the goal's constraints (keep, once, only, without). A cautious
	// agent also passes expected versions and refuses to guess between two
	// records with the same name.
	Caution float64
	// Literalness: 1 = only exact word matches count; 0 = synonyms count
	// fully.
	Literalness float64
	// Noise is the softmax temperature of every choice (> 0).
	Noise float64
	// Verify is the probability of looking before acting and reading back
	// after (and after a timeout, before retrying).
	Verify float64
	// Explore is the probability of listing the goal's records first, to
	// look around, before doing anything else.
	Explore float64
	// Retry is the retry policy.
	Retry RetryPolicy
	// Patience is the step budget: tool calls the agent makes at most.
	Patience int
	// Hostility is the probability that a call carries malformed or
	// boundary arguments.
	Hostility float64
	// Credulity is how much promotional, assertive text ("the best tool",
	// "always use this", "recommended", "most reliable") raises a tool's
	// score among tools that do the goal's action. Language-model agents
	// are measurably swayed by such text; a careful reader much less.
	Credulity float64
	// OrderBias is a prior favouring tools listed earlier, decaying with
	// position (the first gains most, the k-th 1/k of it): agents that
	// skim a long list settle early.
	OrderBias float64
}

// Persona is a named vector of traits.
type Persona struct {
	Name        string
	Description string
	Traits      Traits
	// Weight is the persona's share of a run whose mix is not given, as
	// its pack says (0: the pack gives none, and every persona counts 1).
	// A fitted pack (herd calibrate) carries the mix that predicts a model.
	Weight float64
}

// maxPatience bounds the step budget: an episode is a handful of calls, and
// a budget of millions is a typo that would stall a swarm.
const maxPatience = 1000

// maxNoise bounds the temperature: far above it every choice is uniform.
const maxNoise = 100

// Validate checks every trait's range.
func (t Traits) Validate() error {
	unit := []struct {
		name string
		v    float64
	}{
		{"attention", t.Attention}, {"caution", t.Caution}, {"literalness", t.Literalness},
		{"verify", t.Verify}, {"explore", t.Explore}, {"hostility", t.Hostility},
		{"credulity", t.Credulity}, {"order_bias", t.OrderBias},
	}
	for _, u := range unit {
		if math.IsNaN(u.v) || u.v < 0 || u.v > 1 {
			return fmt.Errorf("%s must be in [0, 1], got %v", u.name, u.v)
		}
	}
	if math.IsNaN(t.Noise) || t.Noise <= 0 || t.Noise > maxNoise {
		return fmt.Errorf("noise must be in (0, %d], got %v", maxNoise, t.Noise)
	}
	if t.Patience < 1 || t.Patience > maxPatience {
		return fmt.Errorf("patience must be in [1, %d], got %d", maxPatience, t.Patience)
	}
	return t.Retry.Validate()
}

// Validate checks the retry policy.
func (r RetryPolicy) Validate() error {
	switch r.Mode {
	case RetryNone, RetryOnce, RetryUntilSuccess:
	default:
		return fmt.Errorf("retry mode must be none, once or until_success, got %q", r.Mode)
	}
	if r.MaxAttempts < 0 || r.MaxAttempts > maxPatience {
		return fmt.Errorf("retry max_attempts must be in [0, %d], got %d", maxPatience, r.MaxAttempts)
	}
	return nil
}

// attentionLevel is how much of a tool's text an agent sees.
type attentionLevel int

const (
	seeName       attentionLevel = iota // the tool's name, split on _
	seeLead                             // name + the first informative sentence of the description
	seeFirst                            // name + the first sentences, to a budget of words
	seeEverything                       // full description + params + annotations
	attentionLevels
)

// leadAttention splits the readers of first sentences: below it an agent
// reads the first informative sentence and stops there ("Hold a
// prescription." and no further); at or above it, it reads on to a budget
// of words (skimWords), so a short first sentence and the line after it
// are both seen. The novice reads the one; the baseline agent the other.
const leadAttention = 0.55

// ReadsDescriptions reports whether an agent with these traits reads tool
// descriptions at all (at least their first sentence), rather than names
// only: only such an agent can tell a better wording from a worse.
func (t Traits) ReadsDescriptions() bool { return levelOf(t.Attention) > seeName }

func levelOf(attention float64) attentionLevel {
	switch {
	case attention < 1.0/3:
		return seeName
	case attention < leadAttention:
		return seeLead
	case attention < 2.0/3:
		return seeFirst
	}
	return seeEverything
}
