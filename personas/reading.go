package personas

import "strings"

// What the reader model makes of words, for packages that must read text
// the way agents read it: the description linter reports which words a
// description lacks and what a reader of first sentences sees, and it is
// only right when it splits, stems and skips exactly as the model does.

// Stem is the form the reader model matches a word on: "hides", "hidden"
// and "hide" are one stem, as are "kept" and "keep".
func Stem(word string) string { return stem(strings.ToLower(word)) }

// IsStopWord reports whether the reader model skips a (lower-case) word as
// carrying no meaning for choosing a tool.
func IsStopWord(word string) bool { return stopWords[word] }

// FirstSentence is the part of a description an agent that reads only the
// start sees: everything up to the first sentence end.
func FirstSentence(description string) string {
	if s := sentences(description); len(s) > 0 {
		return s[0]
	}
	return ""
}
