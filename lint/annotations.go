package lint

import (
	"fmt"
)

// repeatVerbs make something new each time they succeed: calling one
// twice sends, pays or creates twice, whatever its hints say.
var repeatVerbs = setOf("create", "add", "insert", "register", "make", "new", "post", "send", "submit",
	"pay", "charge", "refund", "transfer", "invoice", "bill", "credit", "debit", "withdraw", "deposit",
	"dispatch", "ship", "order", "book", "reserve", "notify", "invite", "issue", "log", "comment", "reply", "forward")

// checkAnnotations asks: are the MCP hints there, and do they tell the
// truth? A delete not marked destructive, or a write marked read-only,
// misleads exactly the cautious agents that read hints.
func checkAnnotations(ts *toolSet, t *Tool) (float64, []Finding) {
	a := t.Annotations
	effect := t.effect()
	if a == nil {
		switch {
		case effect == EffectUnknown:
			return 60, []Finding{ts.finding(t, DimAnnotations, LevelWarning,
				"has no annotations, and its name and text do not say whether it changes anything: its effect is unknown",
				"Add annotations: readOnlyHint: true if it only reads; otherwise readOnlyHint: false with destructiveHint and idempotentHint.")}
		case t.writes():
			fix := "Add annotations: readOnlyHint: false, destructiveHint, idempotentHint."
			if t.destructiveByNature() {
				fix = "Add annotations: destructiveHint: true."
			}
			return 50, []Finding{ts.finding(t, DimAnnotations, LevelWarning,
				"has no annotations: agents cannot tell a safe call from a dangerous one", fix)}
		}
		return 80, []Finding{ts.finding(t, DimAnnotations, LevelInfo,
			"has no annotations", "Add annotations: readOnlyHint: true.")}
	}
	score := 100.0
	var fs []Finding
	add := func(s float64, level, msg, fix string) {
		score = min(score, s)
		fs = append(fs, ts.finding(t, DimAnnotations, level, msg, fix))
	}
	// What the name, kind and text say, against what the hints say. The
	// hints are read as MCP defines them: destructiveHint and
	// idempotentHint mean something only when the tool is not read-only.
	evidence := t.evidenceEffect()
	switch {
	case a.ReadOnly && (evidence == EffectWrite || evidence == EffectDestructive):
		add(10, LevelError, fmt.Sprintf("%s but is marked read-only: agents will call it without a second thought", changesWhy(t, evidence)),
			"Remove readOnlyHint (in a world file: annotations: {readOnly: false}).")
	case !a.ReadOnly && evidence == EffectDestructive && !a.Destructive:
		add(20, LevelError, fmt.Sprintf("%s, but it is not marked destructive", deletesWhy(t)),
			"Set destructiveHint: true (in a world file: annotations: {destructive: true}).")
	case !a.ReadOnly && evidence == EffectRead:
		add(60, LevelWarning, "only reads but is not marked read-only: cautious agents may avoid it",
			"Set readOnlyHint: true.")
		if a.Destructive && a.DestructiveGiven {
			add(60, LevelWarning, "only reads but is marked destructive",
				"Remove destructiveHint.")
		}
	}
	if a.idempotent() && t.IdempotencyKey == "" && t.writes() && (t.kind() == "create" || repeatVerbs[t.verb()]) {
		add(90, LevelInfo, "is marked idempotent but has no idempotency key: a repeated call "+repeatWhat(t),
			"Add an idempotency key param (e.g. idempotency_key: a repeated key returns the first result), or drop idempotentHint.")
	}
	if !a.ReadOnly && !a.Idempotent && t.IdempotencyKey != "" {
		add(90, LevelInfo, fmt.Sprintf("has an idempotency key (%s) but is not marked idempotent", t.IdempotencyKey),
			"Set idempotentHint: true, so that agents know a retry with the same key is safe.")
	}
	return score, fs
}

// changesWhy says why the linter thinks the tool changes data.
func changesWhy(t *Tool, evidence Effect) string {
	if t.Kind != "" {
		return "changes data"
	}
	if evidence == EffectDestructive {
		return deletesWhy(t)
	}
	return fmt.Sprintf("its name says %s, which changes data,", t.verb())
}

// deletesWhy says why the linter thinks the tool erases data.
func deletesWhy(t *Tool) string {
	switch {
	case t.kind() == "delete":
		return "it deletes records"
	case deleteVerbs[t.verb()]:
		return fmt.Sprintf("its name says %s", t.verb())
	}
	return "its description says it removes data permanently"
}

func repeatWhat(t *Tool) string {
	if t.kind() == "create" || verbFamily(t.verb()) == familyCreate {
		return "creates a second " + recordWords(t)
	}
	return t.verb() + "s again"
}
