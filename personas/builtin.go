package personas

// Baseline is the traits a persona starts from: a reasonably competent
// agent that reads the first sentence of a description, weighs warnings
// moderately, takes synonyms at half weight, checks its work sometimes and
// retries once, honouring retry-after. It is a little credulous and a little
// swayed by list order — small but not zero, because language-model agents
// measurably are (assertive descriptions win far more often than their
// share, earlier-listed tools are preferred), and a baseline of zero would
// make herd blind to descriptions that win by promotion rather than by
// saying what the tool does. A pack file's persona starts from it (or from
// the persona named in `like:`) and changes what it names.
var baseline = Traits{
	Attention:   0.6,
	Caution:     0.5,
	Literalness: 0.5,
	Noise:       0.4,
	Verify:      0.4,
	Explore:     0,
	Retry:       RetryPolicy{Mode: RetryOnce, HonorRetryAfter: true},
	Patience:    6,
	Hostility:   0,
	Credulity:   0.3,
	OrderBias:   0.1,
}

// Baseline returns the traits every persona starts from.
func Baseline() Traits { return baseline }

// Builtin returns the built-in persona pack, a fresh copy each call (the
// caller may change it). Each persona moves a few traits away from the
// baseline; together they span the agents a tool set meets in practice.
func Builtin() *Pack {
	with := func(f func(*Traits)) Traits {
		t := baseline
		f(&t)
		return t
	}
	return &Pack{Personas: []*Persona{
		{Name: "careful", Description: "Reads every tool description, its parameters and annotations; heeds warnings; looks before acting and checks after; retries once with idempotency keys, honouring retry-after.",
			Traits: with(func(t *Traits) {
				t.Attention, t.Caution, t.Literalness, t.Noise, t.Verify = 0.95, 0.9, 0.3, 0.15, 0.9
				t.Retry = RetryPolicy{Mode: RetryOnce, IdempotencyKeys: true, HonorRetryAfter: true}
				t.Patience, t.Hostility = 8, 0
				t.Credulity, t.OrderBias = 0.1, 0.05
			})},
		{Name: "hasty", Description: "Picks a tool by its name alone, searches by a last name and takes the first similar result; rarely checks its work; retries at once, ignoring retry-after.",
			Traits: with(func(t *Traits) {
				t.Attention, t.Caution, t.Literalness, t.Noise, t.Verify = 0.15, 0.2, 0.5, 0.6, 0.1
				t.Retry = RetryPolicy{Mode: RetryOnce}
				t.Patience = 3
				t.OrderBias = 0.3
			})},
		{Name: "literal", Description: "Matches the goal's words against the tools' words exactly; a synonym means nothing to it.",
			Traits: with(func(t *Traits) {
				t.Literalness = 0.95
			})},
		{Name: "novice", Description: "Reads the first sentence, half-understands warnings, chooses loosely and seldom checks its work.",
			Traits: with(func(t *Traits) {
				t.Attention, t.Caution, t.Noise, t.Verify = 0.5, 0.4, 0.8, 0.3
				t.Credulity, t.OrderBias = 0.6, 0.25
			})},
		{Name: "retrier", Description: "Retries every failure until it succeeds or runs out of patience, at once, without idempotency keys.",
			Traits: with(func(t *Traits) {
				t.Retry = RetryPolicy{Mode: RetryUntilSuccess, IgnoreKeyAdvice: true}
				t.Patience = 10
			})},
		{Name: "explorer", Description: "Lists the records first to look around, checks its work often, and has patience to spare.",
			Traits: with(func(t *Traits) {
				t.Verify, t.Explore, t.Patience = 0.7, 0.9, 12
			})},
		{Name: "adversarial", Description: "Sends malformed and boundary arguments (wrong types, empty strings, huge or negative numbers, unknown or missing fields) on most calls.",
			Traits: with(func(t *Traits) {
				t.Hostility = 0.6
				t.Patience = 8
			})},
	}}
}
