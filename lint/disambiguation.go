package lint

import (
	"fmt"
	"math"
	"strings"

	"github.com/herd-sh/herd/internal/stemset"
)

// nearIdentical is the token Jaccard index from which two descriptions
// read as the same to an agent.
const nearIdentical = 0.8

// maxTwinsNamed is how many same or near-same tools a finding names for
// one tool; the others are counted in one more finding.
const maxTwinsNamed = 3

// twin is another tool whose description reads like this one's.
type twin struct {
	u    *Tool
	at   int     // u's position in the tool set
	j    float64 // Jaccard index of the content stems
	same bool    // the same words altogether
}

// Confusion is a pair of tools a reader model found an agent likely to
// mix up on one goal: Tool, a write whose choice would do harm, is about
// as likely a first choice as Meant, the tool the goal needs.
type Confusion struct {
	Goal    string  `json:"goal"`
	Intent  string  `json:"intent"` // the goal's intent sentence, placeholders shown as "…"
	Persona string  `json:"persona"`
	Meant   string  `json:"meant"`
	Tool    string  `json:"tool"`
	PMeant  float64 `json:"p_meant"`
	PTool   float64 `json:"p_tool"`
	// Destroys is true when Tool erases data (a delete, or marked
	// destructive): the confusion that loses data for good.
	Destroys bool `json:"destroys"`
	// Missing are the goal's words that Meant's description lacks: the
	// words that would draw an agent to it.
	Missing []string `json:"missing,omitempty"`
}

// checkDisambiguation asks: can an agent tell this tool from the others?
// Two tools with (nearly) the same text cannot be told apart; and the
// reader model's confusions show where a hasty agent would pick a
// harmful write instead of the tool it needed.
func checkDisambiguation(ts *toolSet, t *Tool) (float64, []Finding) {
	score := 100.0
	var fs []Finding
	twins, more := ts.twins(t)
	for _, tw := range twins {
		u := tw.u
		if tw.same {
			score = min(score, 10)
			fs = append(fs, ts.finding(t, DimDisambiguation, LevelError,
				fmt.Sprintf("has the same description as %s: an agent cannot tell them apart", u.Name),
				fmt.Sprintf("Say what %s does that %s does not: what each changes and when to use which.", t.Name, u.Name)))
			continue
		}
		score = min(score, 40)
		fs = append(fs, ts.finding(t, DimDisambiguation, LevelWarning,
			fmt.Sprintf("description is nearly the same as %s's (%.0f%% of words shared)", u.Name, 100*tw.j),
			fmt.Sprintf("Say what %s does that %s does not: what each changes and when to use which.", t.Name, u.Name)))
	}
	if more > 0 {
		fs = append(fs, ts.finding(t, DimDisambiguation, LevelWarning,
			fmt.Sprintf("and %d more tools read the same or nearly the same", more),
			"Give each tool a description that says what it alone does."))
	}
	for _, k := range ts.confusions[t.Name] {
		c := ts.opts.Confusions[k]
		switch t.Name {
		case c.Tool:
			level, s := LevelWarning, 50.0
			if c.Destroys && c.PTool >= c.PMeant {
				level, s = LevelError, 15
			}
			score = min(score, s)
			fs = append(fs, ts.finding(t, DimDisambiguation, level,
				fmt.Sprintf("agents asked to %q pick it %s %s (p=%.2f vs %.2f, %s persona)",
					c.Intent, asOftenAs(c), c.Meant, c.PTool, c.PMeant, c.Persona),
				confusedFix(ts, t, c)))
		case c.Meant:
			score = min(score, 70)
			fix := fmt.Sprintf("Say plainly what it is for, and name %s as the tool not to use for it.", c.Tool)
			if ex := exampleWithWords(ts, t, c); len(c.Missing) > 0 && ex != "" {
				fix = fmt.Sprintf("Use the words agents arrive with (%s), e.g. '%s'; and name %s as the tool not to use for it.",
					quoteAll(c.Missing), ex, c.Tool)
			} else if len(c.Missing) > 0 {
				fix = fmt.Sprintf("Use the words agents arrive with (%s), and name %s as the tool not to use for it.", quoteAll(c.Missing), c.Tool)
			}
			fs = append(fs, ts.finding(t, DimDisambiguation, LevelWarning,
				fmt.Sprintf("agents asked to %q pick %s %s this tool (p=%.2f vs %.2f, %s persona)",
					c.Intent, c.Tool, asOftenAs(c), c.PTool, c.PMeant, c.Persona),
				fix))
		}
	}
	return score, fs
}

// twins are the closest few tools whose descriptions read like t's —
// the same words first, then by the share of content stems, then in
// tool order — and how many more there are. Exact duplicates come from
// one map; near ones only from the tools that share one of t's rarest
// stems (its prefix: two sets with a Jaccard index of at least
// nearIdentical must share one), so tools with distinct texts are never
// compared at all.
func (ts *toolSet) twins(t *Tool) (closest []twin, more int) {
	i := ts.index[t]
	mine := ts.stems[i]
	if len(mine) == 0 {
		return nil, 0
	}
	var top [maxTwinsNamed]twin
	n, total := 0, 0
	offer := func(tw twin) {
		total++
		k := n
		for k > 0 && closer(tw, top[k-1]) {
			k--
		}
		if k == maxTwinsNamed {
			return
		}
		if n < maxTwinsNamed {
			n++
		}
		copy(top[k+1:n], top[k:n-1])
		top[k] = tw
	}
	for _, j := range ts.sameText[ts.norm[i]] {
		if j != i && len(ts.stems[j]) > 0 {
			offer(twin{u: &ts.tools[j], at: j, j: 1, same: true})
		}
	}
	// seen[j] == stamp: tool j was looked at for this tool already.
	ts.stamp++
	stamp := ts.stamp
	ts.seen[i] = stamp
	for _, id := range mine[:prefixLength(len(mine))] {
		for _, j := range ts.byPrefix[id] {
			if ts.seen[j] == stamp {
				continue
			}
			ts.seen[j] = stamp
			theirs := ts.stems[j]
			if ts.norm[j] == ts.norm[i] {
				continue // counted above
			}
			// Jaccard ≥ nearIdentical needs sizes within that ratio.
			if float64(min(len(mine), len(theirs))) < nearIdentical*float64(max(len(mine), len(theirs))) {
				continue
			}
			if jac := stemset.Jaccard(mine, theirs); jac >= nearIdentical {
				offer(twin{u: &ts.tools[j], at: int(j), j: jac})
			}
		}
	}
	return top[:n], total - n
}

// closer orders twins: the same text first, then the higher index, then
// the earlier tool.
func closer(a, b twin) bool {
	if a.same != b.same {
		return a.same
	}
	if a.j != b.j {
		return a.j > b.j
	}
	return a.at < b.at
}

// prefixLength is how many of a set's rarest stems must include one that
// another set shares, if the two are to reach nearIdentical: a set of n
// stems shares at least ⌈t·n⌉ with such a twin, so one of its first
// n − ⌈t·n⌉ + 1 is shared.
func prefixLength(n int) int {
	if n == 0 {
		return 0
	}
	need := int(math.Ceil(nearIdentical*float64(n) - 1e-9))
	return n - need + 1
}

// asOftenAs compares the harmful tool's probability with the meant one's.
func asOftenAs(c Confusion) string {
	if c.PTool > c.PMeant {
		return "more often than"
	}
	return "about as often as"
}

// confusedFix tells the author of a harmful tool how to push agents with
// the wrong intent away from it.
func confusedFix(ts *toolSet, t *Tool, c Confusion) string {
	purpose := "do that"
	if meant := ts.byName[c.Meant]; meant != nil {
		purpose = purposeOf(meant)
	}
	switch {
	case c.Destroys && t.destructiveByNature():
		mark := ""
		if t.Annotations == nil || !t.Annotations.Destructive {
			mark = ", and mark it destructive."
		}
		return fmt.Sprintf("Add: 'Permanently deletes the %s. This cannot be undone. To %s, use %s.'%s", recordWords(t), purpose, c.Meant, mark)
	case c.Destroys:
		return fmt.Sprintf("Say what %s destroys and that it cannot be undone, and add: 'To %s, use %s.'", t.Name, purpose, c.Meant)
	}
	return fmt.Sprintf("Say what %s changes, and add: 'To %s, use %s.'", t.Name, purpose, c.Meant)
}

// exampleWithWords writes a first sentence for the meant tool that uses the
// goal's words.
func exampleWithWords(ts *toolSet, t *Tool, c Confusion) string {
	if v := t.verb(); (v == "archive" || v == "hide" || v == "deactivate" || v == "disable") && !t.isDestructive() {
		rec := recordWords(t)
		return fmt.Sprintf("%s %s %s: hides it from the active list but keeps it and its history.", upperFirst(t.verb()), article(rec), rec)
	}
	ex, _ := purposeExample(ts, t)
	return ex
}

// normalized is a description reduced to its words, for exact-duplicate
// detection that ignores case and punctuation.
func normalized(s string) string { return strings.Join(words(s), " ") }

func quoteAll(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = "'" + w + "'"
	}
	return strings.Join(q, ", ")
}
