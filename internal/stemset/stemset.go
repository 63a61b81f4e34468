// Package stemset holds what the reader model and the linter both do with
// a text's content stems, as sorted, duplicate-free sets of stem ids.
package stemset

// Jaccard is the Jaccard index of two sorted, duplicate-free sets: shared
// members over all members, 0 when both are empty.
func Jaccard(a, b []int32) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
