package lint

import (
	"regexp"
	"strings"
	"unicode"
)

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

// stem is a deliberately small suffix stripper: enough that "deletes",
// "deleted", "deleting" and "delete" meet, and "contacts" meets "contact".
// The rubric compares words with each other, never shows stems, so a crude
// stem that is consistent is all it needs.
func stem(w string) string {
	if len(w) <= 3 || strings.ContainsAny(w, "_0123456789") {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		w = w[:len(w)-2]
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	if strings.HasSuffix(w, "y") && len(w) > 3 {
		w = w[:len(w)-1] + "i"
	}
	return w
}

// stopwords carry no meaning of their own in a tool description.
var stopwords = setOf(
	"a", "an", "the", "of", "to", "for", "in", "on", "by", "with", "from", "and", "or",
	"is", "are", "be", "been", "it", "its", "this", "that", "these", "those", "as", "at",
	"into", "your", "you", "if", "so", "but", "not", "no", "can", "will", "do", "does",
	"which", "what", "who", "their", "them", "they", "then", "than", "also", "via",
	"e", "g", "eg", "i", "ie", "etc", "s",
)

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
		if stopwords[w] || genericWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// abbreviations end with a period without ending a sentence.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "approx.", "incl.", "no."}

// firstSentence is the description up to its first sentence end: what an
// agent that reads only the start sees.
func firstSentence(text string) string {
	t := strings.TrimSpace(text)
	lower := strings.ToLower(t)
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '.' && c != '!' && c != '?' && c != '\n' {
			continue
		}
		if c == '.' && endsWithAbbreviation(lower[:i+1]) {
			continue
		}
		// A period inside a token (c_0042.json, v1.2) does not end a sentence.
		if i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\n' && t[i+1] != '\t' && c != '\n' {
			continue
		}
		return strings.TrimSpace(t[:i+1])
	}
	return t
}

func endsWithAbbreviation(s string) bool {
	for _, a := range abbreviations {
		if strings.HasSuffix(s, a) && (len(s) == len(a) || !isWordByte(s[len(s)-len(a)-1])) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
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
