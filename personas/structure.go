package personas

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Descriptions are written in many layouts: a plain sentence, a Python
// docstring (a summary line, then Args:, Returns:, Raises:), markdown
// (headers, bullets, numbered steps, code), emoji section headers, labels
// ("Note:", "WARNING:", "⚠️"). A careful person reads them by their
// structure: the summary says what the tool does, an Args section
// documents parameters, a Returns section describes output — none of them
// is where the tool's action is named — and a warning under a ⚠️ header is
// a warning whatever its words. readStructure turns a description into
// segments, one per sentence, each with the role its place gives it.

// segRole is what a segment's place in the description makes it.
type segRole uint8

const (
	roleBody    segRole = iota // prose: what the tool does, when to use it
	roleParams                 // parameter docs (Args:, Parameters:)
	roleReturns                // what it returns (Returns:, Yields:, Output:)
	roleRaises                 // what errors it raises (Raises:, Errors:)
	roleExample                // examples and code: read past
	roleWarning                // under a warning header or label
	roleAvoid                  // "When not to use:", "Do not use for:"
	roleTitle                  // a header that is no section name
)

var roleNames = [...]string{"body", "params", "returns", "raises", "example", "warning", "avoid", "title"}

func (r segRole) String() string { return roleNames[r] }

// segment is one sentence of a description.
type segment struct {
	text  string
	role  segRole
	caps  bool // written in capitals, or with a word in capitals: emphasis
	label bool // carried a warning label or emoji of its own
	item  bool // a list item
	// sectioned: under a section header of its own ("NOTES", "## Details",
	// "Behaviour:"), past the summary a skimmer reads.
	sectioned bool
	// boiler: shared nearly verbatim by most of the world's tools — noise,
	// set by the model, which sees every tool.
	boiler bool
	// doing: boilerplate that reads as what a tool does ("Manages
	// members, bookings and building access …"), not as reference
	// ("This tool is part of the Acme API"); set by the model with boiler.
	doing bool
	// summary: an OpenAPI operation's "summary:" line, which a skimmer
	// takes for all the tool does; its description: is a section below.
	summary bool
}

// sectionLabels name sections and labels, by their lower-cased words.
var sectionLabels = map[string]segRole{
	"args": roleParams, "arguments": roleParams, "parameters": roleParams, "params": roleParams, "param": roleParams,
	"inputs": roleParams, "input": roleParams, "options": roleParams, "fields": roleParams, "keyword arguments": roleParams,
	"returns": roleReturns, "return": roleReturns, "return value": roleReturns, "yields": roleReturns, "output": roleReturns,
	"outputs": roleReturns, "response": roleReturns, "result": roleReturns, "results": roleReturns,
	"responses": roleReturns,
	// An OpenAPI operation's metadata: reference, not what the tool does.
	"operationid": roleReturns, "operation id": roleReturns, "method": roleReturns, "path": roleReturns,
	"endpoint": roleReturns, "route": roleReturns, "tags": roleReturns, "security": roleReturns, "scopes": roleReturns,
	"raises": roleRaises, "errors": roleRaises, "error": roleRaises, "exceptions": roleRaises, "throws": roleRaises,
	"failures": roleRaises, "error codes": roleRaises,
	"example": roleExample, "examples": roleExample, "usage": roleExample, "sample": roleExample, "example usage": roleExample,
	"warning": roleWarning, "warnings": roleWarning, "caution": roleWarning, "danger": roleWarning,
	"important": roleWarning, "attention": roleWarning, "careful": roleWarning, "be careful": roleWarning, "destructive": roleWarning, "irreversible": roleWarning,
	"when not to use": roleAvoid, "do not use": roleAvoid, "don't use": roleAvoid, "do not use for": roleAvoid,
	"don't use for": roleAvoid, "do not use when": roleAvoid, "not for": roleAvoid, "avoid": roleAvoid,
	"note": roleBody, "notes": roleBody, "description": roleBody, "summary": roleBody, "overview": roleBody,
	"details": roleBody, "purpose": roleBody, "when to use": roleBody, "use when": roleBody, "use for": roleBody,
	"use it when": roleBody, "use this when": roleBody, "use this tool when": roleBody, "tip": roleBody, "tips": roleBody,
	"behavior": roleBody, "behaviour": roleBody, "side effects": roleBody, "see also": roleBody, "info": roleBody,
	"idempotency": roleBody, "retries": roleBody, "retry": roleBody, "usage notes": roleBody, "constraints": roleBody,
}

// warningEmoji mark a warning wherever they stand.
var warningEmoji = map[rune]bool{'⚠': true, '🚨': true, '❗': true, '‼': true, '⛔': true, '🛑': true, '☢': true,
	'☠': true, '💀': true, '🔥': true, '❌': true, '🚫': true, '🔴': true, '💣': true, '🧨': true}

// xmlSection is a section written as a tag, the way texts written as
// prompts for a model structure themselves: "<when_not_to_use>…
// </when_not_to_use>".
var xmlSection = regexp.MustCompile(`(?s)<([A-Za-z][A-Za-z0-9_-]{0,40})>(.*?)</([A-Za-z][A-Za-z0-9_-]{0,40})>`)

// untag turns each tagged section into a header line of its name and its
// text under it ("When not to use:"), so that a tag is read as the section
// header it is.
func untag(desc string) string {
	if !strings.Contains(desc, "</") {
		return desc
	}
	return xmlSection.ReplaceAllStringFunc(desc, func(m string) string {
		sm := xmlSection.FindStringSubmatch(m)
		if sm[1] != sm[3] {
			return m
		}
		name := strings.NewReplacer("_", " ", "-", " ").Replace(sm[1])
		return "\n\n" + name + ":\n" + strings.TrimSpace(sm[2]) + "\n\n"
	})
}

// readStructure splits a description into segments.
func readStructure(desc string) []segment {
	desc = untag(desc)
	var out []segment
	section := roleBody // the role a header set, until the next header
	inline := -1        // a label's role for its paragraph (-1: none)
	fence := false
	var para []string // the lines of the current paragraph
	paraRole, paraLabel, paraItem := roleBody, false, false
	paraSummary := false
	sectioned := false // a section header was read
	// flushPara ends the current paragraph; atBlank says a blank line
	// ended it, which makes a first paragraph of one sentence the text's
	// summary line (a docstring's, a Javadoc or Go doc comment's): all a
	// skimmer takes in.
	flushPara := func(atBlank bool) {
		if len(para) == 0 {
			return
		}
		ss := joinAnswers(sentences(strings.Join(para, " ")))
		if atBlank && len(out) == 0 && len(ss) == 1 && paraRole == roleBody {
			paraSummary = true
		}
		for _, s := range ss {
			s = strings.TrimSpace(versionNote.ReplaceAllString(s, ""))
			if s == "" {
				continue
			}
			role := paraRole
			if role == roleBody && routineSentence.MatchString(s) {
				role = roleReturns
			}
			out = append(out, segment{text: s, role: role, caps: shouting(s), label: paraLabel, item: paraItem, sectioned: sectioned, summary: paraSummary})
		}
		para = para[:0]
		paraSummary = false
	}
	flush := func() { flushPara(false) }
	start := func(role segRole, label, item bool) {
		flush()
		paraRole, paraLabel, paraItem = role, label, item
	}
	for _, raw := range strings.Split(strings.ReplaceAll(desc, "\r\n", "\n"), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			flush()
			fence = !fence
			continue
		}
		if fence {
			continue // code: read past
		}
		if line == "" {
			flushPara(true)
			inline = -1
			continue
		}
		if httpOperation.MatchString(line) {
			// "POST /v1/instances/{id}/stop": the operation's method and
			// path, reference a skimmer reads past.
			flush()
			out = append(out, segment{text: line, role: roleReturns})
			continue
		}
		header := strings.HasPrefix(line, "#")
		line = strings.TrimLeft(line, "#")
		line, item := stripMarker(line)
		before := len(line)
		line, warnMark := stripSymbols(line)
		if len(line) < before && !warnMark && inline == int(roleWarning) {
			// A line with an icon of its own ("♻️ The history is kept")
			// starts a new item: the warning label of the line before
			// does not reach it.
			flush()
			inline = -1
		}
		line = strings.Trim(strings.TrimSpace(line), "*_")
		if line == "" {
			if warnMark {
				section, inline = roleWarning, -1
			}
			continue
		}
		role, rest, isLabel := splitLabel(line)
		if len(line) < before && !isLabel && !header && len(out) == 0 && len(para) == 0 && iconTitle(line) {
			// "🛑 Cancel an order" over the text: the tool's icon and
			// title, not a warning and not yet what it does in a
			// sentence; the lines under it are not warned.
			header, warnMark = true, false
		}
		if warnMark && (!isLabel || role == roleBody) {
			role, isLabel = roleWarning, true
		}
		switch {
		case isLabel && strings.TrimSpace(rest) == "":
			// A section header ("Args:", "## Returns", "⚠️ Warning").
			flush()
			section, inline = role, -1
			sectioned = sectioned || len(out) > 0
			continue
		case isLabel:
			// A label with its text ("Note: …", "WARNING: …", "⚠️ …"): for
			// this paragraph.
			inline = int(role)
			start(role, role == roleWarning, item)
			paraSummary = summaryLabel.MatchString(line)
			line = rest
		case header && !isLabel:
			// A header that names no section: a title, read as text but no
			// summary. Past the text's first lines ("### Effects" under the
			// summary) it opens a section all the same: the summary ended.
			start(roleTitle, false, false)
			sectioned = sectioned || len(out) > 0
			para = append(para, line)
			flush()
			paraRole = section
			continue
		default:
			cur := section
			if inline >= 0 {
				cur = segRole(inline)
			}
			if item || cur != paraRole || len(para) > 0 && !continues(para[len(para)-1], line) {
				start(cur, paraLabel && inline >= 0, item)
			}
		}
		if shouting(line) && !isLabel && paraRole == roleBody && len(para) == 0 && looksLikeWarning(line) {
			paraRole = roleWarning
		}
		para = append(para, line)
	}
	flush()
	return out
}

// continues reports whether next continues prev's sentence: a wrapped
// line ("This cannot" / "be undone").
func continues(prev, next string) bool {
	if prev == "" {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(prev)
	if strings.ContainsRune(".!?;:", last) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLower(first) || unicode.IsDigit(first)
}

// stripMarker removes a list marker: "- ", "* ", "• ", "1. ", "2) ", "(a) ".
func stripMarker(line string) (string, bool) {
	for _, m := range []string{"- ", "* ", "+ ", "• ", "· ", "– ", "> "} {
		if strings.HasPrefix(line, m) {
			return strings.TrimSpace(line[len(m):]), m != "> "
		}
	}
	if loc := numberedMarker.FindStringIndex(line); loc != nil {
		return strings.TrimSpace(line[loc[1]:]), true
	}
	return line, false
}

var numberedMarker = regexp.MustCompile(`^\(?(?:\d{1,2}|[a-z])[.)]\s+`)

// stripSymbols removes leading emoji and symbols ("🗑️ ", "⚠️ ", "**"), and
// reports whether one of them marks a warning.
func stripSymbols(line string) (string, bool) {
	warn := false
	for line != "" {
		r, n := utf8.DecodeRuneInString(line)
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '`' || r == '"' || r == '\'' || r == '(' {
			break
		}
		if warningEmoji[r] {
			warn = true
		}
		line = line[n:]
	}
	return line, warn
}

// splitLabel recognises a section name or label at the start of a line:
// "Args:", "Returns", "WARNING:", "Note -", "When not to use:". It returns
// the role, the rest of the line and whether there was one.
func splitLabel(line string) (segRole, string, bool) {
	end := strings.IndexAny(line, ":：")
	if end < 0 || end > 24 {
		// A bare header word ("Returns", "Examples") on its own line.
		if r, ok := sectionLabels[strings.ToLower(strings.Trim(line, "*_ "))]; ok {
			return r, "", true
		}
		return 0, line, false
	}
	name := strings.ToLower(strings.Trim(line[:end], "*_ "))
	r, ok := sectionLabels[name]
	if !ok {
		return 0, line, false
	}
	rest := line[end+len(":"):]
	if strings.HasPrefix(line[end:], "：") {
		rest = line[end+len("："):]
	}
	return r, strings.TrimSpace(strings.Trim(rest, "*_ ")), true
}

// shouting reports whether a sentence is written in capitals, or has a
// word of five letters or more in capitals ("This PERMANENTLY deletes"):
// emphasis, which an attentive reader weighs more.
func shouting(s string) bool {
	upper, letters := 0, 0
	loud := false
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if specKeywords[w] {
			continue
		}
		wordUpper := true
		for _, r := range w {
			letters++
			if unicode.IsUpper(r) {
				upper++
			} else {
				wordUpper = false
			}
		}
		if utf8.RuneCountInString(w) >= 5 && wordUpper {
			loud = true
		}
	}
	return loud || letters >= 8 && float64(upper) >= 0.6*float64(letters)
}

// specKeywords are RFC 2119's requirement levels, written in capitals by
// convention ("clients SHOULD pass idempotency_key"): a spec's keywords,
// not a raised voice. MUST and MAY are too short to count as shouting.
var specKeywords = map[string]bool{"SHOULD": true, "SHALL": true, "REQUIRED": true, "RECOMMENDED": true, "OPTIONAL": true}

// iconTitle reports whether a description's first line, stripped of its
// icon, reads as a title: no sentence punctuation and no warning words of
// its own ("Cancel an order", not "Deletes everything permanently").
func iconTitle(line string) bool {
	last, _ := utf8.DecodeLastRuneInString(strings.TrimSpace(line))
	return !strings.ContainsRune(".!?;:", last) && len(strings.Fields(line)) <= 6 && !looksLikeWarning(line)
}

// looksLikeWarning: a sentence in capitals that warns ("DO NOT USE",
// "THIS CANNOT BE UNDONE") rather than naming something in capitals.
func looksLikeWarning(s string) bool {
	for _, w := range stems(s) {
		if warnStems[w] {
			return true
		}
	}
	// A negation warns where it is shouted ("THIS CANNOT BE UNDONE"), not
	// in the quiet rest of a line that shouts a promise ("THE RECORD
	// STAYS IN THE HISTORY, and it no longer counts toward truancy").
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		if strings.ToUpper(w) != w {
			continue // a quiet word
		}
		if lw := strings.ToLower(w); negations[stem(lw)] || lw == "cannot" || strings.HasSuffix(lw, "n't") {
			return true
		}
	}
	return false
}

var warnStems = stemSet("warning", "danger", "careful", "caution", "irreversible", "permanently", "permanent", "destroy",
	"destructive", "erase", "forever", "never")

// informative reports whether a segment can stand as what the tool does:
// prose with at least one word, not boilerplate.
func (s *segment) informative() bool {
	return !s.boiler && (s.role == roleBody || s.role == roleWarning) && len(stems(s.text)) > 0
}

// routineSentence is a sentence of reference boilerplate that says what a
// call returns, which webhook it sends or which scope it needs ("The call
// returns the subscription object and sends a subscription.updated
// webhook", "Requires the billing:write scope"): read as a Returns
// section, it is never what a skimmer takes for what the tool does. A
// sentence that opens with "Returns" stays prose: for a read tool it is
// what the tool does.
var routineSentence = regexp.MustCompile(`^(?i)(?:the (?:call|request|response|endpoint|method|operation|api)\s+(?:also\s+)?(?:returns|responds|sends)\b|(?:it|this(?: call| endpoint| tool)?)\s+(?:also\s+)?sends an?\s+[\w.:-]+\s+(?:webhook|event)\b|requires (?:the |an? )?[\w:./-]+ (?:scope|permission|role|token|header)s?\b)`)

// summaryLabel opens an OpenAPI operation's summary line.
var summaryLabel = regexp.MustCompile(`^(?i)summary\s*:`)

// httpOperation is a line that is an HTTP method and a path, as texts
// generated from an OpenAPI document open.
var httpOperation = regexp.MustCompile("^(?:`)?(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\\s+/\\S*(?:`)?$")

// joinAnswers keeps a question and the tool that answers it in one
// sentence: "Renaming an existing channel? update_channel." sends the
// reader to update_channel for renaming, as "to rename it, use
// update_channel" does.
func joinAnswers(ss []string) []string {
	out := ss[:0:0]
	for i := 0; i < len(ss); i++ {
		if i+1 < len(ss) && strings.HasSuffix(ss[i], "?") && answersWithTool(ss[i+1]) {
			out = append(out, ss[i]+" "+ss[i+1])
			i++
			continue
		}
		out = append(out, ss[i])
	}
	return out
}

// answersWithTool: a short sentence that names a tool ("archive_channel.",
// "Use update_channel.").
func answersWithTool(s string) bool {
	return len(strings.Fields(s)) <= 4 && (strings.Contains(s, "_") || answerVerb.MatchString(s))
}

var answerVerb = regexp.MustCompile(`^(?i)(?:use|try|see|call)\b`)

// versionNote opens a changelog entry ("v2.0: now also renames channels",
// "Version 3: …"): the version says when, the rest is what the tool does.
var versionNote = regexp.MustCompile(`^(?i)(?:v|version\s*)\d+(?:\.\d+){0,3}[a-z]?\s*[:–—)]\s*`)
