package personas

import (
	"testing"
)

// Every trait moves a measured rate in the expected direction: two
// personas that differ in that trait alone, the same agent seeds, at least
// 1,000 episodes each, and 95% Wilson intervals that do not overlap.

const traitN = 1500

// traitSide is one of the two personas a trait case compares.
type traitSide struct {
	label string
	set   func(*Traits) // the trait under test, on top of the case's common changes
}

// traitCase: under lower the rate must be clearly below the rate under
// higher.
type traitCase struct {
	name                   string
	variant, goal, profile string // on mock:crm
	common                 func(*Traits)
	rate                   string
	count                  func(tally) int
	lower, higher          traitSide
	also                   func(t *testing.T, lower, higher tally) // further assertions; may be nil
}

func classCount(class string) func(tally) int { return func(x tally) int { return x.class[class] } }

var traitCases = []traitCase{
	// Clear variant: a reader of first sentences sees "Permanently delete
	// a contact and its history"; ambiguous: a full reader sees only the
	// destructiveHint annotation. Either way caution weighs the warning
	// against the goal's "keep their history".
	{
		name: "caution avoids destructive tools (clear)", variant: "clear", goal: "hide_contact",
		common: func(t *Traits) { t.Attention, t.Noise = 0.5, 0.8 },
		rate:   "destroyed_data under clear", count: classCount("destroyed_data"),
		lower:  traitSide{"caution 1", func(t *Traits) { t.Caution = 1 }},
		higher: traitSide{"caution 0", func(t *Traits) { t.Caution = 0 }},
	},
	{
		name: "caution avoids destructive tools (ambiguous)", variant: "ambiguous", goal: "hide_contact",
		common: func(t *Traits) { t.Attention, t.Noise = 0.8, 0.8 },
		rate:   "destroyed_data under ambiguous", count: classCount("destroyed_data"),
		lower:  traitSide{"caution 1", func(t *Traits) { t.Caution = 1 }},
		higher: traitSide{"caution 0", func(t *Traits) { t.Caution = 0 }},
	},
	// An inattentive searcher types a last name and takes the first
	// similar result; with near-duplicate names that is someone else.
	{
		name: "attention avoids wrong records", variant: "clear", goal: "hide_contact",
		rate: "wrong_record", count: classCount("wrong_record"),
		lower:  traitSide{"attention 0.9", func(t *Traits) { t.Attention = 0.9 }},
		higher: traitSide{"attention 0.1", func(t *Traits) { t.Attention = 0.1 }},
	},
	// "Hide" is "Archive" only to a reader who takes synonyms: under the
	// ambiguous variant nothing else says so.
	{
		name: "literalness ignores synonyms", variant: "ambiguous", goal: "hide_contact",
		rate: "achieved", count: classCount("achieved"),
		lower:  traitSide{"literalness 1", func(t *Traits) { t.Literalness = 1 }},
		higher: traitSide{"literalness 0", func(t *Traits) { t.Literalness = 0 }},
	},
	{
		name: "noise spreads choices", variant: "clear", goal: "hide_contact",
		rate: "first write tool other than the meant one", count: func(x tally) int { return x.offMeant },
		lower:  traitSide{"noise 0.05", func(t *Traits) { t.Noise = 0.05 }},
		higher: traitSide{"noise 2", func(t *Traits) { t.Noise = 2 }},
		also: func(t *testing.T, sharp, loose tally) {
			// Counted among tools called by at least 1% of agents: a
			// slip (the lapse) can reach any tool at any noise, rarely.
			common := func(x tally) int {
				k := 0
				for _, c := range x.called {
					if 100*c >= x.n {
						k++
					}
				}
				return k
			}
			if common(loose) <= common(sharp) {
				t.Errorf("more noise calls more different tools: %v vs %v", loose.called, sharp.called)
			}
		},
	},
	// An agent that does not take in update_contact's parameters writes
	// the whole record back; a colleague edits it after the agent's first
	// call. Looking first and passing expected_version turns that into a
	// stale_write, a re-read and a clean retry.
	{
		name: "verify prevents lost updates", variant: "clear", goal: "update_email",
		common: func(t *Traits) { t.Attention, t.Caution = 0.3, 0.9 },
		rate:   "lost_update", count: classCount("lost_update"),
		lower:  traitSide{"verify 1", func(t *Traits) { t.Verify = 1 }},
		higher: traitSide{"verify 0", func(t *Traits) { t.Verify = 0 }},
	},
	// Listing first is one more call; it also means the colleague's edit
	// lands before the agent reads the record it writes back.
	{
		name: "explore looks around first", variant: "clear", goal: "update_email",
		common: func(t *Traits) { t.Attention, t.Verify = 0.3, 0 },
		rate:   "lost_update", count: classCount("lost_update"),
		lower:  traitSide{"explore 1", func(t *Traits) { t.Explore = 1 }},
		higher: traitSide{"explore 0", func(t *Traits) { t.Explore = 0 }},
		also: func(t *testing.T, roam, stay tally) {
			if roam.calls <= stay.calls {
				t.Errorf("exploring makes more calls: %d vs %d", roam.calls, stay.calls)
			}
		},
	},
	// hostile: update_contact times out after committing 6% of the time.
	{
		name: "retrying without keys duplicates side effects", variant: "clear", goal: "update_email", profile: "hostile",
		common: func(t *Traits) { t.Verify, t.Patience = 0, 10 },
		rate:   "episodes with a duplicated write", count: func(x tally) int { return x.duplicatedEpisodes },
		lower:  traitSide{"retry none", func(t *Traits) { t.Retry = RetryPolicy{Mode: RetryNone, HonorRetryAfter: true} }},
		higher: traitSide{"until_success", func(t *Traits) { t.Retry = RetryPolicy{Mode: RetryUntilSuccess, HonorRetryAfter: true} }},
		also: func(t *testing.T, never, _ tally) {
			if never.duplicated != 0 {
				t.Errorf("an agent that never retries never writes twice: %d", never.duplicated)
			}
		},
	},
	{
		name: "honouring retry-after avoids storms", variant: "clear", goal: "hide_contact", profile: "hostile",
		common: func(t *Traits) { t.Patience = 10 },
		rate:   "episodes that ignored a retry-after", count: func(x tally) int { return x.ignoredEpisodes },
		lower:  traitSide{"honouring", func(t *Traits) { t.Retry = RetryPolicy{Mode: RetryUntilSuccess, HonorRetryAfter: true} }},
		higher: traitSide{"not honouring", func(t *Traits) { t.Retry = RetryPolicy{Mode: RetryUntilSuccess} }},
		also: func(t *testing.T, polite, _ tally) {
			if polite.ignored != 0 {
				t.Errorf("an agent that waits out retry-after never calls early: %d", polite.ignored)
			}
		},
	},
	{
		name: "patience achieves more under faults", variant: "clear", goal: "hide_contact", profile: "hostile",
		common: func(t *Traits) {
			t.Attention, t.Retry = 0.9, RetryPolicy{Mode: RetryUntilSuccess, HonorRetryAfter: true}
		},
		rate: "achieved", count: classCount("achieved"),
		lower:  traitSide{"patience 2", func(t *Traits) { t.Patience = 2 }},
		higher: traitSide{"patience 12", func(t *Traits) { t.Patience = 12 }},
	},
	{
		name: "hostility sends invalid arguments", variant: "clear", goal: "hide_contact",
		rate: "episodes with invalid_argument", count: func(x tally) int { return x.invalidEpisodes },
		lower:  traitSide{"hostility 0", func(t *Traits) { t.Hostility = 0 }},
		higher: traitSide{"hostility 0.6", func(t *Traits) { t.Hostility = 0.6 }},
	},
}

func TestTraitsMoveRates(t *testing.T) {
	for _, tc := range traitCases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSetup(t, "crm", tc.variant, tc.goal, tc.profile)
			persona := func(side traitSide) *Persona {
				return derive(side.label, Baseline(), func(tr *Traits) {
					if tc.common != nil {
						tc.common(tr)
					}
					side.set(tr)
				})
			}
			lower, higher := s.run(t, traitN, persona(tc.lower)), s.run(t, traitN, persona(tc.higher))
			below(t, tc.rate, tc.count(lower), traitN, tc.lower.label, tc.count(higher), traitN, tc.higher.label)
			if tc.also != nil {
				tc.also(t, lower, higher)
			}
		})
	}
}

// Credulity and order bias move rates on worlds built for them: tools that
// do the same thing, told apart only by a promotional sentence or by their
// place in the list. The rate is the share of episodes whose first write
// was the promoted (or first-listed) tool.
func TestCredulityAndOrderBiasMoveRates(t *testing.T) {
	run := func(t *testing.T, tools []rtool, p *Persona) tally {
		// A search tool, listed last, finds the item by its name.
		tools = append(tools, rtool{name: "search_items", kind: "list", text: "Search items by name. Read-only."})
		w, g := readerWorld(t, "Archive the item {{target.name}}", tools, "")
		m, err := NewModel(w, "v")
		if err != nil {
			t.Fatal(err)
		}
		return setup{m: m, base: seedBase(t, w), goal: g}.run(t, traitN, p)
	}
	side := func(name string, f func(*Traits)) *Persona {
		return derive(name, Baseline(), func(tr *Traits) { tr.Attention, tr.Noise = 0.6, 0.6; f(tr) })
	}
	t.Run("credulity picks the promoted twin", func(t *testing.T) {
		tools := []rtool{
			{name: "archive_item", kind: "custom", text: "Archive an item."},
			{name: "archive_item_v2", kind: "custom", text: "The best, most reliable way to archive an item: always use this one."},
		}
		lo := run(t, tools, side("credulity 0", func(tr *Traits) { tr.Credulity, tr.OrderBias = 0, 0 }))
		hi := run(t, tools, side("credulity 1", func(tr *Traits) { tr.Credulity, tr.OrderBias = 1, 0 }))
		below(t, "first write to the promoted tool", lo.called["archive_item_v2"], traitN, "credulity 0", hi.called["archive_item_v2"], traitN, "credulity 1")
	})
	t.Run("order bias picks the first-listed", func(t *testing.T) {
		tools := []rtool{
			{name: "archive_item", kind: "custom", text: "Archive an item."},
			{name: "archive_entry", kind: "custom", text: "Archive an item."},
			{name: "archive_record", kind: "custom", text: "Archive an item."},
		}
		lo := run(t, tools, side("order bias 0", func(tr *Traits) { tr.OrderBias = 0 }))
		hi := run(t, tools, side("order bias 1", func(tr *Traits) { tr.OrderBias = 1 }))
		below(t, "first write to the first-listed tool", lo.called["archive_item"], traitN, "order bias 0", hi.called["archive_item"], traitN, "order bias 1")
	})
}
