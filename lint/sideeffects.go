package lint

import (
	"fmt"
	"slices"
	"strings"
)

// checkSideEffects asks: does a write say what it changes, and — when it
// erases data — that it cannot be undone (or how to undo it)? Does a read
// say it changes nothing?
func checkSideEffects(ts *toolSet, t *Tool) (float64, []Finding) {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		return 0, nil
	}
	if t.effect() == EffectUnknown {
		if readOnlyCue.in(desc) || effectCue.in(desc) {
			return 100, nil
		}
		return 70, []Finding{ts.finding(t, DimSideEffects, LevelInfo,
			"does not say whether it changes anything (its effect is unknown)",
			"Say so: 'Read-only.', or what it changes.")}
	}
	if !t.writes() {
		if readOnlyCue.in(desc) {
			return 100, nil
		}
		return 80, []Finding{ts.finding(t, DimSideEffects, LevelInfo,
			"does not say it changes nothing; cautious agents may avoid it",
			"Add: 'Read-only.'")}
	}

	permanent, reversible := permanentCue.in(desc), reversibleCue.in(desc)
	effect := saysWhatChanges(t, desc)
	if t.destructiveByNature() && !permanent && !reversible {
		score := 30.0
		if !effect {
			score = 10
		}
		fix := "Add: 'This cannot be undone.'"
		if alt := gentlerSibling(ts, t); alt != nil {
			fix = fmt.Sprintf("Add: 'This cannot be undone. To %s, use %s.'", purposeOf(alt), alt.Name)
		}
		return score, []Finding{ts.finding(t, DimSideEffects, LevelError,
			"erases data but does not say whether it can be undone", fix)}
	}
	if t.isDestructive() && !permanent && !reversible {
		// Marked destructive without being a delete: an overwrite, a
		// cancel. Less likely to lose a whole record, so a warning.
		score := 50.0
		if !effect {
			score = 30
		}
		fix := "Say what it destroys or overwrites, and add: 'This cannot be undone.'"
		if t.kind() == "update" {
			fix = "Add: 'The old values are overwritten and cannot be recovered.'"
		}
		return score, []Finding{ts.finding(t, DimSideEffects, LevelWarning,
			"is marked destructive but does not say what is lost or whether it can be undone", fix)}
	}

	score := 100.0
	var fs []Finding
	if !effect {
		score -= 40
		fs = append(fs, ts.finding(t, DimSideEffects, LevelWarning,
			"does not say what it changes", effectFix(t)))
	}
	if !permanent && !reversible && t.family() == familyRemove {
		// Hiding, cancelling, archiving: an agent weighing it against a
		// delete needs to know it can be taken back.
		score -= 15
		fix := "Say whether it can be undone."
		if undo := restoringSibling(ts, t); undo != nil {
			fix = fmt.Sprintf("Add: 'Reversible with %s.'", undo.Name)
		}
		fs = append(fs, ts.finding(t, DimSideEffects, LevelInfo,
			"does not say whether it can be undone", fix))
	}
	return score, fs
}

// saysWhatChanges reports whether a write's description names a
// consequence: an effect word, or a field of the record it writes.
func saysWhatChanges(t *Tool, desc string) bool {
	if effectCue.in(desc) || permanentCue.in(desc) || reversibleCue.in(desc) {
		return true
	}
	ws := words(desc)
	for _, f := range t.Fields {
		if f != "id" && slices.Contains(ws, f) {
			return true
		}
	}
	return false
}

// effectFix suggests the sentence a write is missing.
func effectFix(t *Tool) string {
	rec := recordWords(t)
	switch t.kind() {
	case "create":
		return fmt.Sprintf("Add: 'Creates a new %s and returns it with its id; calling it twice creates two.'", rec)
	case "update":
		if ps := paramNames(t, true); len(ps) > 0 {
			return fmt.Sprintf("Add: 'Overwrites the %s's %s; other fields stay as they are.'", rec, humanList(ps, "and"))
		}
		return fmt.Sprintf("Say which fields of the %s it overwrites, and that the others stay as they are.", rec)
	case "delete":
		return fmt.Sprintf("Add: 'The %s and its history are deleted permanently.'", rec)
	}
	switch v := t.verb(); {
	case v == "archive" || v == "hide" || v == "deactivate" || v == "disable":
		return fmt.Sprintf("Say what happens to the %s: e.g. 'Hides it from lists but keeps it and its history.'", rec)
	case v == "trash":
		return fmt.Sprintf("Say what happens to the %s: e.g. 'Moves it to the trash; it can be restored from there.'", rec)
	case t.family() == familyRemove:
		return fmt.Sprintf("Say what happens to the %s: is it hidden, kept with a new status, or gone for good?", rec)
	}
	return fmt.Sprintf("Say what changes in the %s (which fields, what is created or sent) when it succeeds.", rec)
}

// gentlerSibling is a non-destructive tool on the same record in the
// removal family (archive for delete): what an agent should use to hide.
func gentlerSibling(ts *toolSet, t *Tool) *Tool {
	for _, u := range ts.onRecord(t) {
		if u != t && u.family() == familyRemove && u.writes() && !u.isDestructive() {
			return u
		}
	}
	return nil
}

// restoringSibling is a tool on the same record that undoes a removal.
func restoringSibling(ts *toolSet, t *Tool) *Tool {
	for _, u := range ts.onRecord(t) {
		if u != t && u.family() == familyRestore {
			return u
		}
	}
	return nil
}
