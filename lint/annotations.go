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
	if a == nil {
		if t.writes() {
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
	if t.destructiveByNature() && !a.Destructive {
		add(20, LevelError, fmt.Sprintf("%s, but it is not marked destructive", deletesWhy(t)),
			"Set destructiveHint: true (in a world file: annotations: {destructive: true}).")
	}
	if t.writes() && a.ReadOnly {
		add(10, LevelError, "changes data but is marked read-only: agents will call it without a second thought",
			"Remove readOnlyHint (in a world file: annotations: {readOnly: false}).")
	}
	if !t.writes() && !a.ReadOnly {
		add(60, LevelWarning, "only reads but is not marked read-only: cautious agents may avoid it",
			"Set readOnlyHint: true.")
	}
	if !t.writes() && a.Destructive {
		add(60, LevelWarning, "only reads but is marked destructive",
			"Remove destructiveHint.")
	}
	if a.Idempotent && t.IdempotencyKey == "" && t.writes() && (t.kind() == "create" || repeatVerbs[t.verb()]) {
		add(90, LevelInfo, "is marked idempotent but has no idempotency key: a repeated call "+repeatWhat(t),
			"Add an idempotency key param (e.g. idempotency_key: a repeated key returns the first result), or drop idempotentHint.")
	}
	if !a.Idempotent && t.IdempotencyKey != "" {
		add(90, LevelInfo, fmt.Sprintf("has an idempotency key (%s) but is not marked idempotent", t.IdempotencyKey),
			"Set idempotentHint: true, so that agents know a retry with the same key is safe.")
	}
	return score, fs
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
