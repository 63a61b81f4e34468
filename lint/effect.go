package lint

// Effect is what calling a tool does to the data behind it, as far as the
// linter can tell: the class the rubric's side-effect and annotation
// checks are judged by.
type Effect string

// Effect classes.
const (
	EffectRead        Effect = "read"        // changes nothing
	EffectWrite       Effect = "write"       // changes data, but does not erase it
	EffectDestructive Effect = "destructive" // may erase or overwrite data for good
	// EffectUnknown is a tool whose annotations say nothing and whose name
	// and text use a verb the linter does not know (echo, open_nodes,
	// directory_tree). It is never taken for a write: the rubric says it
	// cannot tell, and asks for an annotation.
	EffectUnknown Effect = "unknown"
)

// Verbs whose effect the linter knows, beyond the families (verbs.go):
// the read family reads, deleteVerbs destroy, the other families write.
var (
	// readingVerbs change nothing though they are in no read family.
	readingVerbs = setOf("check", "validate", "verify", "calculate", "compute", "compare", "summarize",
		"estimate", "preview", "render", "translate", "test", "ping", "download", "export")
	// writingVerbs change something when they succeed.
	writingVerbs = setOf("send", "submit", "refund", "charge", "capture", "reverse", "pay", "transfer",
		"copy", "upload", "import", "mark", "unassign", "attach", "detach", "link", "unlink", "merge",
		"lock", "unlock", "publish", "unpublish", "approve", "reject", "invite", "notify", "subscribe",
		"unsubscribe", "reset", "rotate", "grant", "tag", "untag", "comment", "reply", "forward",
		"schedule", "book", "reserve", "ship", "fulfil", "fulfill", "order", "apply", "convert", "issue",
		"complete", "confirm", "accept", "decline", "log", "record", "track", "save", "store", "write",
		"flag", "star", "pin", "unpin", "mute", "unmute", "block", "unblock", "ban", "suspend",
		"activate", "deploy", "install", "uninstall", "share", "unshare", "invoice", "bill", "credit",
		"debit", "withdraw", "deposit", "authorize", "authorise", "settle", "adjust", "increment",
		"decrement", "clear", "empty", "put", "dispatch", "undo")
)

// verbEffect is the effect a verb names, EffectUnknown for a verb whose
// effect depends on the tool (run, open, sync, generate) or that the
// linter does not know at all.
func verbEffect(v string) Effect {
	switch {
	case deleteVerbs[v]:
		return EffectDestructive
	case readingVerbs[v]:
		return EffectRead
	case writingVerbs[v]:
		return EffectWrite
	}
	switch verbToFamily[v] {
	case familyRead:
		return EffectRead
	case familyCreate, familyModify, familyRemove, familyRestore:
		return EffectWrite
	}
	return EffectUnknown
}

// readOnly is the readOnlyHint as MCP defines it: false when absent.
func (a *Annotations) readOnly() bool { return a != nil && a.ReadOnly }

// destructive is the destructiveHint as MCP defines it: it matters only
// when the tool is not read-only, and is true when absent. A read-only
// tool is never destructive, whatever its destructiveHint says.
func (a *Annotations) destructive() bool { return a != nil && !a.ReadOnly && a.Destructive }

// idempotent is the idempotentHint as MCP defines it: false when absent,
// and meaningful only when the tool is not read-only.
func (a *Annotations) idempotent() bool { return a != nil && !a.ReadOnly && a.Idempotent }

// effect is the tool's class: for a herd world's tool (Kind known) its
// kind, made destructive by its nature or its annotation; for any other
// server's, its annotations first, then its name, then its text.
func (t *Tool) effect() Effect {
	if t.effectKnown {
		return t.effectClass
	}
	return t.readEffect()
}

func (t *Tool) readEffect() Effect {
	if t.Kind != "" {
		switch t.Kind {
		case "get", "list":
			return EffectRead
		case "delete":
			return EffectDestructive
		}
		if t.destructiveByNature() || t.Annotations.destructive() {
			return EffectDestructive
		}
		return EffectWrite
	}
	if a := t.Annotations; a != nil {
		if a.ReadOnly {
			return EffectRead
		}
		// readOnlyHint false is also what an absent hint decodes to, so it
		// is no evidence; an explicit destructiveHint is.
		if a.DestructiveGiven {
			if a.Destructive {
				return EffectDestructive
			}
			return EffectWrite
		}
	}
	if e := t.evidenceEffect(); e != EffectUnknown {
		return e
	}
	return EffectUnknown
}

// evidenceEffect is what the tool's name, schema and text say it does,
// without its annotations: what the annotations are checked against.
func (t *Tool) evidenceEffect() Effect {
	if t.Kind != "" {
		k := *t
		k.Annotations = nil
		return k.readEffect()
	}
	if t.destructiveByNature() {
		return EffectDestructive
	}
	if e := verbEffect(t.verb()); e != EffectUnknown {
		return e
	}
	first := firstSentence(t.Description)
	if v, _ := verbAndObject(first); v != "" {
		if e := verbEffect(canonicalVerb(v)); e != EffectUnknown {
			return e
		}
	}
	if readOnlyCue.in(t.Description) {
		return EffectRead
	}
	return EffectUnknown
}
