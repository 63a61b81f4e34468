package personas

import (
	"strings"
	"unicode"
)

// The reader model compares words, not strings: text is lower-cased, split
// on anything that is not a letter, stripped of stop words and lightly
// stemmed, so that "hides", "hidden" and "hide" are one word, as are
// "archived" and "archive", "deleting" and "delete".

// stopWords carry no meaning for choosing a tool. Negations, "only",
// "once", "without", "all" and "use" are deliberately absent: they are
// constraints, cues and redirects.
var stopWords = setOf(
	"a", "an", "the", "of", "to", "from", "and", "or", "but", "their", "its", "it", "is", "are", "be",
	"been", "was", "were", "this", "that", "these", "those", "with", "for", "by", "in", "on", "at",
	"as", "you", "your", "yours", "i", "me", "my", "we", "our", "us", "he", "she", "they", "them",
	"his", "her", "him", "some", "someone", "somebody", "something", "anyone", "anything", "if",
	"so", "than", "then", "there", "here", "into", "onto", "per", "via", "also", "when", "which",
	"who", "whom", "what", "can", "could", "do", "does", "did", "will", "would", "should", "may",
	"might", "must", "shall", "has", "have", "had", "s", "e", "g", "eg", "ie", "etc", "just", "please",
	"about", "it's", "one", "any", "how", "more",
)

// irregular maps word forms the suffix rules get wrong to their stem.
var irregular = map[string]string{
	"hidden": "hid", "hid": "hid", "sent": "send", "found": "find", "paid": "pay", "written": "writ",
	"wrote": "writ", "overwritten": "overwrit", "cancelled": "cancel", "cancelling": "cancel",
	"canceled": "cancel", "canceling": "cancel", "replied": "reply", "used": "use", "using": "use",
	"kept": "keep", "undone": "undo", "made": "make", "gone": "go", "lost": "lose", "chose": "choos",
	"chosen": "choos", "bought": "buy", "sold": "sell", "got": "get", "gotten": "get",
}

// stem reduces a lower-case word to its stem, through the general-English
// layer's stemmer. It only has to be consistent: intent, tool text,
// lexicon and cues all go through it.
func stem(w string) string { return defaultGeneral.stem(w) }

// lightStem is the stemmer of a general layer without a dictionary: a few
// English suffixes, then a trailing e.
func lightStem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "ied"):
		w = w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = undouble(w[:n-2])
	case n > 5 && strings.HasSuffix(w, "ly"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns "stopp" into "stop": the consonant doubled before -ed and
// -ing. l, s and z are left alone ("call", "pass", "buzz").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && strings.IndexByte("bdgmnprt", w[n-1]) >= 0 {
		return w[:n-1]
	}
	return w
}

// token is one stemmed word, or a mention of a tool by its name.
type token struct {
	word string // stem; "" for a tool mention
	tool int    // index of the mentioned tool, -1 for a word
}

// tokenize splits text into stems. Words joined by underscores that name a
// tool (archive_contact) become one tool mention; other underscored words
// are split. "n't" becomes "not" and "cannot" becomes "can not", so that
// "can't be undone" and "cannot be undone" read alike.
func tokenize(text string, tools map[string]int) []token {
	var out []token
	for _, raw := range strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\'' || r == '’')
	}) {
		raw = strings.ToLower(strings.ReplaceAll(raw, "’", "'"))
		if i, ok := tools[strings.Trim(raw, "'")]; ok {
			out = append(out, token{tool: i})
			continue
		}
		out = appendWords(out, raw)
	}
	return out
}

func appendWords(out []token, raw string) []token {
	for _, w := range strings.FieldsFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		w = strings.Trim(w, "'")
		switch {
		case w == "cannot":
			out = append(out, token{word: "not", tool: -1})
			continue
		case strings.HasSuffix(w, "n't"):
			w = strings.TrimSuffix(w, "n't")
			switch w {
			case "ca":
				w = "can"
			case "wo":
				w = "will"
			case "sha":
				w = "shall"
			}
			if w != "" && !stopWords[w] {
				out = append(out, token{word: stem(w), tool: -1})
			}
			out = append(out, token{word: "not", tool: -1})
			continue
		}
		w = strings.TrimSuffix(w, "'s")
		if i := strings.IndexByte(w, '\''); i >= 0 {
			w = w[:i]
		}
		if len(w) < 2 || stopWords[w] {
			continue
		}
		out = append(out, token{word: stem(w), tool: -1})
	}
	return out
}

// stems tokenizes text that names no tools and returns the stems.
func stems(text string) []string {
	toks := tokenize(text, nil)
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.tool < 0 {
			out = append(out, t.word)
		}
	}
	return out
}

// sentences splits a description at ., !, ? and ; followed by a space or
// the end, and at line breaks (a docstring's summary line often has no
// period). A period after a single letter ("e.g.", initials) or ending a
// common abbreviation ("etc.", "vs.") does not end one.
func sentences(text string) []string {
	var out []string
	start := 0
	cut := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\n' {
			cut(i)
			continue
		}
		if c != '.' && c != '!' && c != '?' && c != ';' {
			continue
		}
		if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n' && text[i+1] != '\t' {
			continue
		}
		if c == '.' && (i >= 1 && isLetter(text[i-1]) && (i < 2 || !isLetter(text[i-2])) || endsWithAbbreviation(text[:i+1])) {
			continue
		}
		cut(i + 1)
	}
	cut(len(text))
	return out
}

// abbreviations end with a period without ending a sentence.
var abbreviations = []string{"etc.", "vs.", "approx.", "incl.", "no."}

func endsWithAbbreviation(s string) bool {
	for _, a := range abbreviations {
		n := len(s) - len(a)
		if n >= 0 && strings.EqualFold(s[n:], a) && (n == 0 || !isLetter(s[n-1]) && !isDigit(s[n-1]) && s[n-1] != '_') {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// stemSet is a set of the stems of words, so that sets written in plain
// English match tokenized text.
func stemSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[stem(w)] = true
	}
	return m
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// nameWords splits a tool's name into words: snake_case, kebab-case,
// dotted and camelCase names alike (deleteContact, contacts.delete).
func nameWords(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ':
			b.WriteByte(' ')
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte(' ')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	return b.String()
}

// removePlaceholders drops {{…}} from an intent template: placeholders are
// names and values, not the words a reader matches tools against.
func removePlaceholders(intent string) string {
	var b strings.Builder
	for {
		i := strings.Index(intent, "{{")
		if i < 0 {
			b.WriteString(intent)
			return b.String()
		}
		b.WriteString(intent[:i])
		b.WriteByte(' ')
		j := strings.Index(intent[i:], "}}")
		if j < 0 {
			return b.String()
		}
		intent = intent[i+j+2:]
	}
}

// splitWords splits text into its words (letters, digits, apostrophes and
// underscores).
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })
}

func lower(s string) string { return strings.ToLower(s) }

func isLetterRune(r rune) bool { return unicode.IsLetter(r) }
