package lint

import (
	"fmt"
	"strings"
)

// leadIns are words a description may start with before its verb
// ("This tool lets you delete…", "Use to fetch…").
var leadIns = setOf("this", "tool", "function", "endpoint", "api", "will", "used", "use", "to",
	"lets", "let", "you", "allows", "allow", "helps", "help", "can", "is", "a", "an", "the", "it",
	"simply", "just", "quickly", "easily", "please", "we", "here", "method", "operation")

// checkPurpose asks: does the description say what the tool does — a verb
// and its object — in more words than the name already gives?
func checkPurpose(ts *toolSet, t *Tool) (float64, []Finding) {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		return 0, []Finding{ts.finding(t, DimPurpose, LevelError,
			"has no description: an agent sees only the name",
			suggest(ts, t, "Add a description that starts with what the tool does"))}
	}
	if placeholders[strings.Trim(strings.ToLower(desc), ".!: ")] {
		return 0, []Finding{ts.finding(t, DimPurpose, LevelError,
			fmt.Sprintf("description %q is a placeholder", desc),
			suggest(ts, t, "Replace it with what the tool does"))}
	}
	content := ts.content[ts.index[t]]
	if len(content) == 0 {
		return 5, []Finding{ts.finding(t, DimPurpose, LevelError,
			fmt.Sprintf("description %q says nothing an agent can use", desc),
			suggest(ts, t, "Replace it with what the tool does"))}
	}
	if restatesName(t, content) {
		return 25, []Finding{ts.finding(t, DimPurpose, LevelWarning,
			fmt.Sprintf("description %q only restates the name %s", desc, t.Name),
			suggest(ts, t, "Say what it returns or changes, and when to use it"))}
	}

	score := 100.0
	var fs []Finding
	first := firstSentence(desc)
	verb, object := verbAndObject(first)
	switch {
	case verb == "":
		score -= 25
		fs = append(fs, ts.finding(t, DimPurpose, LevelInfo,
			"the first sentence does not start with what the tool does (a verb)",
			suggest(ts, t, "Start with the action")))
	case !object:
		score -= 25
		fs = append(fs, ts.finding(t, DimPurpose, LevelWarning,
			fmt.Sprintf("the first sentence says %q but not to what", verb),
			suggest(ts, t, "Name the object of the action")))
	}
	if first != desc && restatesName(t, contentStems(first)) {
		// Agents that read only the first sentence learn nothing from it.
		score -= 15
		fs = append(fs, ts.finding(t, DimPurpose, LevelInfo,
			fmt.Sprintf("the first sentence %q only restates the name; hasty agents read no further", first),
			suggest(ts, t, "Lead with what sets it apart")))
	}
	return score, fs
}

// restatesName reports whether every meaningful word of a description is
// already in the tool's name (or is a synonym of its verb).
func restatesName(t *Tool, content []string) bool {
	known := map[string]bool{}
	for _, p := range nameParts(t.Name) {
		known[stem(p)] = true
		known[stem(singular(p))] = true
		for _, s := range verbSynonyms[canonicalVerb(p)] {
			known[stem(s)] = true
		}
	}
	if rec := t.record(); rec != "" {
		for _, p := range nameParts(rec) {
			known[stem(p)] = true
		}
	}
	for _, w := range content {
		if !known[w] {
			return false
		}
	}
	return true
}

// verbAndObject finds the action word a sentence starts with (after
// lead-ins like "This tool lets you") and whether anything follows it.
func verbAndObject(sentence string) (verb string, object bool) {
	ws := words(sentence)
	i := 0
	// Skip lead-ins and adverbs ("Permanently delete…", "Safely fetch…").
	for i < len(ws) && i < 5 && (leadIns[ws[i]] || strings.HasSuffix(ws[i], "ly") && !knownVerb(ws[i])) {
		i++
	}
	if i >= len(ws) || !knownVerb(ws[i]) {
		return "", false
	}
	verb = ws[i]
	for _, w := range ws[i+1:] {
		if !isStopword(w) && !genericWords[w] {
			return verb, true
		}
	}
	return verb, false
}

// suggest ends a fix with a first sentence for the tool, or — when the
// linter cannot know what the tool does — with what that sentence must say.
func suggest(ts *toolSet, t *Tool, lead string) string {
	if ex, ok := purposeExample(ts, t); ok {
		return lead + ": '" + ex + "'"
	}
	return fmt.Sprintf("%s: say what %s does to %s %s — which fields change, what is created or sent — and whether it can be undone.",
		lead, t.verb(), article(recordWords(t)), recordWords(t))
}

// purposeExample writes a first sentence for the tool from what is known
// about it: its kind, record type, fields and params. ok is false when the
// tool's verb says too little to write one (capture, sync, put…).
func purposeExample(ts *toolSet, t *Tool) (example string, ok bool) {
	recWords := recordWords(t)
	a := article(recWords) + " " + recWords
	v := t.verb()
	switch t.kind() {
	case "get":
		if fs := otherFields(t.Fields, 6); len(fs) > 0 {
			return fmt.Sprintf("Fetch one %s by id: %s. Read-only.", recWords, strings.Join(fs, ", ")), true
		}
		return fmt.Sprintf("Fetch one %s by id. Read-only.", recWords), true
	case "list":
		ps := paramNames(t, false)
		if v == "search" || v == "find" || v == "query" {
			if len(ps) > 0 {
				return fmt.Sprintf("Find %s by %s. Read-only.", plural(recWords), humanList(ps, "or")), true
			}
			return fmt.Sprintf("Find %s. Read-only.", plural(recWords)), true
		}
		if len(ps) > 0 {
			return fmt.Sprintf("List %s, optionally filtered by %s. Read-only.", plural(recWords), humanList(ps, "or")), true
		}
		return fmt.Sprintf("List %s. Read-only.", plural(recWords)), true
	case "create":
		if verbFamily(v) == familyCreate {
			v = "create"
		}
		return fmt.Sprintf("%s a new %s and return it with its id.", upperFirst(v), recWords), true
	case "update":
		if ps := paramNames(t, true); len(ps) > 0 {
			return fmt.Sprintf("Change %s's %s; other fields stay as they are.", a, humanList(ps, "or")), true
		}
		return fmt.Sprintf("Change the fields of %s; other fields stay as they are.", a), true
	case "delete":
		return fmt.Sprintf("Permanently delete %s. This cannot be undone.", a), true
	}
	switch {
	case v == "archive" || v == "hide" || v == "deactivate" || v == "disable":
		return fmt.Sprintf("%s %s: hides it from lists but keeps it and its history.", upperFirst(v), a), true
	case t.family() == familyRestore:
		return fmt.Sprintf("%s %s that was archived, with its history.", upperFirst(v), a), true
	case verbFamily(v) == familyCreate:
		// create_refund on a charge: the name says what is made.
		made := nameObject(t)
		if made == "" {
			made = recWords
		}
		if made != recWords && t.record() != "" {
			return fmt.Sprintf("Create a new %s for %s and return it with its id.", made, a), true
		}
		return fmt.Sprintf("Create a new %s and return it with its id.", made), true
	}
	return "", false
}

// nameObject is what a tool's name says it acts on: the name without its
// verb, in words (create_refund → refund).
func nameObject(t *Tool) string {
	rest := objectParts(t.Name)
	// reply_to_message acts on a message.
	for len(rest) > 0 && (rest[0] == "to" || rest[0] == "for" || rest[0] == "on" || rest[0] == "from" || rest[0] == "of" || rest[0] == "by" || rest[0] == "with") {
		rest = rest[1:]
	}
	return strings.Join(rest, " ")
}

// otherFields lists up to n record fields other than the id.
func otherFields(fields []string, n int) []string {
	var out []string
	for _, f := range fields {
		if f != "id" && len(out) < n {
			out = append(out, f)
		}
	}
	return out
}

// paramNames lists the tool's params other than paging and include flags;
// skipKey also leaves out id params.
func paramNames(t *Tool, skipKey bool) []string {
	var out []string
	for _, p := range t.Params {
		n := p.Name
		if n == "limit" || n == "offset" || n == "cursor" || n == "page" || strings.HasPrefix(n, "include_") ||
			n == t.IdempotencyKey || n == "expected_version" || skipKey && isIDParam(p) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
