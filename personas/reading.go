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
// start sees: the first informative sentence of its summary — a docstring's
// summary line, a markdown description's first prose sentence, past titles,
// labels, sections and emoji — and the next one too when the first is a
// single word. (Within a world, sentences most tools share are
// boilerplate and skipped as well; that needs the world's other tools. A
// skimming persona reads on a little further, to a budget of eight content
// words: see skimWords.)
func FirstSentence(description string) string {
	tt := toolText{segs: readStructure(description)}
	var parts []string
	for _, i := range tt.skimmed(firstSentenceWords) {
		parts = append(parts, tt.segs[i].text)
	}
	return strings.Join(parts, " ")
}
