package lint

import (
	"fmt"
	"strings"
)

// nearIdentical is the token Jaccard index from which two descriptions
// read as the same to an agent.
const nearIdentical = 0.8

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
	mine := ts.content[t.Name]
	for i := range ts.tools {
		u := &ts.tools[i]
		theirs := ts.content[u.Name]
		if u.Name == t.Name || len(mine) == 0 || len(theirs) == 0 {
			continue
		}
		if normalized(t.Description) == normalized(u.Description) {
			score = min(score, 10)
			fs = append(fs, ts.finding(t, DimDisambiguation, LevelError,
				fmt.Sprintf("has the same description as %s: an agent cannot tell them apart", u.Name),
				fmt.Sprintf("Say what %s does that %s does not: what each changes and when to use which.", t.Name, u.Name)))
			continue
		}
		if j := jaccard(mine, theirs); j >= nearIdentical {
			score = min(score, 40)
			fs = append(fs, ts.finding(t, DimDisambiguation, LevelWarning,
				fmt.Sprintf("description is nearly the same as %s's (%.0f%% of words shared)", u.Name, 100*j),
				fmt.Sprintf("Say what %s does that %s does not: what each changes and when to use which.", t.Name, u.Name)))
		}
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
