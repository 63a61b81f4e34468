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
	sibs := ts.siblings(t)
	if len(sibs) == 0 {
		if guided {
			return 100, nil
		}
		return 85, []Finding{ts.finding(t, DimUsage, LevelInfo,
			"does not say when to use it",
			"Add when an agent should call it, e.g. 'Use this to "+purposeOf(t)+".'")}
	}
	var named []string
	for _, s := range sibs {
		if mentions(t, s.Name) {
			named = append(named, s.Name)
		}
	}
	if len(named) > 0 {
		return 100, nil
	}
	names := toolNames(sibs)
	fix := siblingFix(ts, t, sibs)
	if guided {
		return 70, []Finding{ts.finding(t, DimUsage, LevelInfo,
			fmt.Sprintf("says when to use it but not how it differs from %s", humanList(names, "and")), fix)}
	}
	level := LevelInfo
	if t.writes() || anyWrites(sibs) {
		// A write mistaken for a sibling changes the wrong thing.
		level = LevelWarning
	}
	return 40, []Finding{ts.finding(t, DimUsage, level,
		fmt.Sprintf("has look-alike siblings (%s) and does not say when to use which", humanList(names, "and")), fix)}
}

// siblingFix writes the sentence that tells an agent which sibling to use
// for what.
func siblingFix(ts *toolSet, t *Tool, sibs []*Tool) string {
	for _, s := range sibs {
		if !t.isDestructive() && s.isDestructive() {
			return fmt.Sprintf("Add: 'Use this — not %s — to %s; %s erases it for good.'", s.Name, purposeOf(t), s.Name)
		}
	}
	var parts []string
	for i, s := range sibs {
		if i == 2 {
			break
		}
		parts = append(parts, fmt.Sprintf("To %s, use %s.", purposeOf(s), s.Name))
	}
	return "Add: '" + strings.Join(parts, " ") + "'"
}

// isDestructive is the tool's own nature or its annotation.
func (t *Tool) isDestructive() bool {
	return t.destructiveByNature() || t.Annotations != nil && t.Annotations.Destructive
}

func recordWords(t *Tool) string {
	if r := t.record(); r != "" {
		return strings.ReplaceAll(r, "_", " ")
	}
	return "item"
}

func mentionsAnyTool(ts *toolSet, t *Tool) bool {
	for _, w := range words(t.Description) {
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
