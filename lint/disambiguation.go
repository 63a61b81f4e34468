package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
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
	j    float64 // Jaccard index of the content stems
	same bool    // the same words altogether
}

// sortedJaccard is the Jaccard index of two sorted, duplicate-free sets.
func sortedJaccard(a, b []int32) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
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
	// Every other tool is compared, but through what newToolSet computed
	// once per tool; and only the closest few twins are named, the rest
	// counted, so a world of thousands of look-alike tools stays linear in
	// its findings.
	mine, myNorm := ts.stems[t.Name], ts.norm[t.Name]
	var twins []twin
	for i := range ts.tools {
		u := &ts.tools[i]
		theirs := ts.stems[u.Name]
		if u.Name == t.Name || len(mine) == 0 || len(theirs) == 0 {
			continue
		}
		if myNorm == ts.norm[u.Name] {
			twins = append(twins, twin{u, 1, true})
			continue
		}
		// Jaccard ≥ nearIdentical needs sizes within that ratio.
		if float64(min(len(mine), len(theirs))) < nearIdentical*float64(max(len(mine), len(theirs))) {
			continue
		}
		if j := sortedJaccard(mine, theirs); j >= nearIdentical {
			twins = append(twins, twin{u, j, false})
		}
	}
	slices.SortStableFunc(twins, func(a, b twin) int {
		if a.same != b.same {
			if a.same {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.j, a.j)
	})
	for k, tw := range twins {
		u := tw.u
		if k == maxTwinsNamed {
			rest := len(twins) - k
			fs = append(fs, ts.finding(t, DimDisambiguation, LevelWarning,
				fmt.Sprintf("and %d more tools read the same or nearly the same", rest),
				"Give each tool a description that says what it alone does."))
			break
		}
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
	for _, c := range ts.opts.Confusions {
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
