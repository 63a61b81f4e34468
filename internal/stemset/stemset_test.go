package stemset

import "testing"

func TestJaccard(t *testing.T) {
	for _, c := range []struct {
		a, b []int32
		want float64
	}{
		{[]int32{1, 2, 3}, []int32{2, 3, 4}, 0.5},
		{[]int32{1, 2}, []int32{1, 2}, 1},
		{[]int32{1}, []int32{2}, 0},
		{nil, []int32{2}, 0},
		{nil, nil, 0},
	} {
		if got := Jaccard(c.a, c.b); got != c.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
