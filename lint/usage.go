package lint

import (
	"fmt"
	"strings"
)

// checkUsage asks: does the description say when to use the tool, and —
// when it has look-alike siblings on the same record — when to use one of
// them instead?
func checkUsage(ts *toolSet, t *Tool) (float64, []Finding) {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		return 0, nil // the purpose check already reports it
	}
	// Naming another tool ("use cancel_order to cancel") is guidance too.
	guided := guidanceCue.in(desc) || mentionsAnyTool(ts, t)
	sf := ts.siblingFacts(t)
	count := sf.count
	if sf.has(t) {
		count--
	}
	if count == 0 {
		if guided {
			return 100, nil
		}
		return 85, []Finding{ts.finding(t, DimUsage, LevelInfo,
			"does not say when to use it",
			"Add when an agent should call it, e.g. 'Use this to "+purposeOf(t)+".'")}
	}
	// Naming a sibling is what counts; t's words are looked up, not every
	// sibling's name.
	for w := range t.wordSet {
		if u := ts.byName[w]; u != nil && u != t && u.record() == t.record() && u.family() == t.family() {
			return 100, nil
		}
	}
	names := sf.names(t)
	fix := siblingFix(t, sf)
	if guided {
		return 70, []Finding{ts.finding(t, DimUsage, LevelInfo,
			fmt.Sprintf("says when to use it but not how it differs from %s", names), fix)}
	}
	level := LevelInfo
	writers := sf.writers
	if t.writes() {
		writers--
	}
	if t.writes() || writers > 0 {
		// A write mistaken for a sibling changes the wrong thing.
		level = LevelWarning
	}
	return 40, []Finding{ts.finding(t, DimUsage, level,
		fmt.Sprintf("has look-alike siblings (%s) and does not say when to use which", names), fix)}
}

// maxSiblingsNamed is how many siblings a usage finding names; the
// others are counted ("and 12 more"), so a finding stays one line however
// many look-alikes a tool has.
const maxSiblingsNamed = 3

// siblingGroup is what the usage check needs of one group of siblings,
// computed once per group: the first few tools, the first destructive
// ones, how many there are and how many write.
type siblingGroup struct {
	first       []*Tool // the first maxSiblingsNamed+1, in tool order
	destructive []*Tool // the first two that are destructive
	count       int
	writers     int
}

// siblingFacts are the facts of t's sibling group (t included).
func (ts *toolSet) siblingFacts(t *Tool) *siblingGroup {
	key := t.record() + "\x00" + t.family()
	if g, ok := ts.groups[key]; ok {
		return g
	}
	g := &siblingGroup{}
	for _, u := range ts.siblings(t) {
		g.count++
		g.first = appendUpTo(g.first, u, maxSiblingsNamed+1)
		if u.isDestructive() {
			g.destructive = appendUpTo(g.destructive, u, 2)
		}
		if u.writes() {
			g.writers++
		}
	}
	ts.groups[key] = g
	return g
}

// has reports whether t is one of the group.
func (g *siblingGroup) has(t *Tool) bool { return g.count > 0 && t.record() != "" }

// others are the group's first tools other than t, at most n.
func (g *siblingGroup) others(t *Tool, n int) []*Tool {
	var out []*Tool
	for _, u := range g.first {
		if u != t && len(out) < n {
			out = append(out, u)
		}
	}
	return out
}

// names lists t's siblings for a message: the first few, then how many
// more.
func (g *siblingGroup) names(t *Tool) string {
	count := g.count
	if g.has(t) {
		count--
	}
	shown := toolNames(g.others(t, maxSiblingsNamed))
	if rest := count - len(shown); rest > 0 {
		return strings.Join(shown, ", ") + fmt.Sprintf(" and %d more", rest)
	}
	return humanList(shown, "and")
}

// siblingFix writes the sentence that tells an agent which sibling to use
// for what.
func siblingFix(t *Tool, g *siblingGroup) string {
	if !t.isDestructive() {
		for _, s := range g.destructive {
			if s != t {
				return fmt.Sprintf("Add: 'Use this — not %s — to %s; %s erases it for good.'", s.Name, purposeOf(t), s.Name)
			}
		}
	}
	var parts []string
	for _, s := range g.others(t, 2) {
		parts = append(parts, fmt.Sprintf("To %s, use %s.", purposeOf(s), s.Name))
	}
	return "Add: '" + strings.Join(parts, " ") + "'"
}

// isDestructive is the tool's own nature or its annotation.
func (t *Tool) isDestructive() bool {
	return t.destructiveByNature() || t.Annotations.destructive()
}

func recordWords(t *Tool) string {
	if r := t.record(); r != "" {
		return strings.ReplaceAll(r, "_", " ")
	}
	return "item"
}

func mentionsAnyTool(ts *toolSet, t *Tool) bool {
	for w := range t.wordSet {
		if _, ok := ts.byName[w]; ok && w != t.Name {
			return true
		}
	}
	return false
}

func toolNames(ts []*Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func anyWrites(ts []*Tool) bool {
	for _, t := range ts {
		if t.writes() {
			return true
		}
	}
	return false
}
