package lint

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Length limits. A write needs room for what it changes and whether it
// can be undone; a read can be shorter. Past maxLength, agents (and the
// context windows they live in) pay for every tool on every turn.
const (
	minWriteLength = 25
	minReadLength  = 15
	goodLength     = 40
	longLength     = 400
	maxLength      = 600
	maxFirstLength = 250
)

// checkLength asks: is the description long enough to be useful and short
// enough to be read?
func checkLength(ts *toolSet, t *Tool) (float64, []Finding) {
	desc := strings.TrimSpace(t.Description)
	n := utf8.RuneCountInString(desc)
	if n == 0 {
		return 0, nil // the purpose check already reports it
	}
	minLen, level := minReadLength, LevelInfo
	if t.writes() {
		minLen, level = minWriteLength, LevelWarning
	}
	var fs []Finding
	score := 100.0
	switch {
	case n < minLen:
		score = 20 + 40*float64(n)/float64(minLen)
		fs = append(fs, ts.finding(t, DimLength, level,
			fmt.Sprintf("is %d characters: too short to say what it does%s", n, map[bool]string{true: ", what it changes and whether it can be undone", false: " and when to use it"}[t.writes()]),
			suggest(ts, t, "Write at least one full sentence")))
	case n < goodLength:
		score = 70 + 30*float64(n-minLen)/float64(goodLength-minLen)
	case n > maxLength:
		score = max(30, 70-40*float64(n-maxLength)/float64(maxLength))
		fs = append(fs, ts.finding(t, DimLength, LevelWarning,
			fmt.Sprintf("is %d characters: agents skim or skip text this long", n),
			fmt.Sprintf("Cut it to under %d characters: what it does, what it changes, when to use it; move details to the parameter descriptions.", maxLength)))
	case n > longLength:
		score = 100 - 15*float64(n-longLength)/float64(maxLength-longLength)
	}
	if first := firstSentence(desc); utf8.RuneCountInString(first) > maxFirstLength {
		score -= 10
		fs = append(fs, ts.finding(t, DimLength, LevelInfo,
			fmt.Sprintf("the first sentence is %d characters; hasty agents read only the start", utf8.RuneCountInString(first)),
			"Lead with one short sentence that says what it does, then the details."))
	}
	return score, fs
}
