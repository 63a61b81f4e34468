package lint

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/herd-sh/herd/personas"
)

// The rubric reads words as the swarm's agents do: it stems them, skips
// stop words and finds the first sentence with the reader model's own
// rules, so that "the first sentence only restates the name" and "the
// words agents arrive with" are about what a persona actually sees.

// stem is the reader model's stem: "hides", "hidden" and "hide" are one.
func stem(w string) string { return personas.Stem(w) }

// firstSentence is what an agent that reads only the start of a
// description sees.
func firstSentence(text string) string { return personas.FirstSentence(text) }

// words splits text into lowercase word tokens. Underscores stay inside a
// token, so a tool name mentioned in a description ("use archive_contact")
// is one token that can be matched against the tool list.
func words(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, strings.Trim(b.String(), "_"))
			b.Reset()
		}
	}
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			b.WriteRune(r)
			continue
		}
		// An apostrophe inside a word ("can't", "contact's") is dropped
		// rather than splitting it, so "can't" stays one token.
		if r == '\'' || r == '’' {
			continue
		}
		flush()
	}
	flush()
	kept := out[:0]
	for _, w := range out {
		if w != "" {
			kept = append(kept, w)
		}
	}
	return kept
}

// nameParts splits an identifier (delete_contact, deleteContact,
// delete-contact) into lowercase parts.
func nameParts(name string) []string {
	var parts []string
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/':
			if b.Len() > 0 {
				parts = append(parts, b.String())
				b.Reset()
			}
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower && b.Len() > 0 {
				parts = append(parts, b.String())
				b.Reset()
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	if b.Len() > 0 {
		parts = append(parts, b.String())
	}
	return parts
}

// isStopword reports whether a word carries no meaning of its own in a
// tool description: one the reader model skips, or a negation (which the
// model keeps as a cue, but which names nothing a tool does).
func isStopword(w string) bool { return personas.IsStopWord(w) || w == "not" || w == "no" }

// genericWords add nothing to a tool's name: "Get the given order record"
// says no more than get_order.
var genericWords = setOf(
	"one", "all", "any", "some", "given", "specified", "specific", "existing", "new",
	"tool", "api", "endpoint", "function", "method", "operation", "call",
	"record", "records", "item", "items", "entry", "entries", "object", "objects",
	"data", "info", "information", "details", "detail", "single", "certain", "selected",
)

// contentStems are the stems of the words of text that carry meaning.
func contentStems(text string) []string {
	var out []string
	for _, w := range words(text) {
		if isStopword(w) || genericWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// cue is a phrase the rubric looks for, matched on word boundaries and
// case-insensitively.
type cue struct{ re *regexp.Regexp }

func cues(phrases ...string) cue {
	quoted := make([]string, len(phrases))
	for i, p := range phrases {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), `\ `, `\s+`)
	}
	return cue{re: regexp.MustCompile(`(?i)\b(?:` + strings.Join(quoted, "|") + `)\b`)}
}

// in reports whether text contains one of the phrases.
func (c cue) in(text string) bool { return c.re.MatchString(text) }

func setOf(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// jaccard is the Jaccard index of two token sets.
func jaccard(a, b []string) float64 {
	sa, sb := setOf(a...), setOf(b...)
	if len(sa) == 0 && len(sb) == 0 {
		return 1
	}
	inter := 0
	for w := range sa {
		if sb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

// plural is a readable plural of a record name, for suggested fixes.
func plural(s string) string {
	switch {
	case s == "":
		return s
	case strings.HasSuffix(s, "y") && !strings.HasSuffix(s, "ey") && !strings.HasSuffix(s, "ay"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s") || strings.HasSuffix(s, "x") || strings.HasSuffix(s, "ch") || strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

// article picks "a" or "an" for a word, for suggested fixes.
func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an"
	}
	return "a"
}

// humanList joins items as "a, b or c".
func humanList(items []string, conj string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
