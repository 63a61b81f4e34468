package personas

import "unicode"

// maxSimilarEdits is how far apart two values may be for an inattentive
// reader to take one for the other: "Jon Smith" for "John Smith" (1),
// "Grace C. Garcia" for "Grace Garcia" (1), "Mark Smith" for "Mary Smith"
// (1) — but not "Mia Reyes" for "Claire Reyes".
const maxSimilarEdits = 2

// similar reports whether a skimming reader would take a for b: the same
// letters, ignoring case, spaces and punctuation, up to a couple of edits.
func similar(a, b string) bool {
	var abuf, bbuf [64]rune
	x, y := letters(a, abuf[:0]), letters(b, bbuf[:0])
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	d := len(x) - len(y)
	if d > maxSimilarEdits || -d > maxSimilarEdits {
		return false
	}
	return editDistance(x, y, maxSimilarEdits+1) <= maxSimilarEdits
}

func letters(s string, buf []rune) []rune {
	for _, r := range s {
		if unicode.IsLetter(r) {
			buf = append(buf, unicode.ToLower(r))
		}
	}
	return buf
}

// editDistance is Levenshtein's distance, stopped early once every path is
// at least bound (bound is returned then).
func editDistance(a, b []rune, bound int) int {
	var rowBuf [65]int
	var prev []int
	if len(b)+1 <= len(rowBuf) {
		prev = rowBuf[:len(b)+1]
	} else {
		prev = make([]int, len(b)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := prev[0]
		prev[0] = i
		rowMin := prev[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur := min(prev[j]+1, prev[j-1]+1, diag+cost)
			diag = prev[j]
			prev[j] = cur
			rowMin = min(rowMin, cur)
		}
		if rowMin >= bound {
			return bound
		}
	}
	return prev[len(b)]
}
