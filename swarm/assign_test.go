package swarm

import (
	"testing"
)

func TestLargestRemainderExact(t *testing.T) {
	cases := []struct {
		n       int
		weights []float64
		want    []int
	}{
		{200, []float64{1, 1, 1, 1, 1, 1, 1}, []int{29, 29, 29, 29, 28, 28, 28}},
		{10, []float64{0.5, 0.5}, []int{5, 5}},
		{7, []float64{3, 1}, []int{5, 2}}, // 5.25, 1.75: the larger remainder gets the spare
		{1, []float64{1, 1, 1}, []int{1, 0, 0}},
		{5, []float64{0, 1}, []int{0, 5}},
	}
	for _, c := range cases {
		got, err := LargestRemainder(c.n, c.weights)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for i := range got {
			sum += got[i]
			if got[i] != c.want[i] {
				t.Errorf("LargestRemainder(%d, %v) = %v, want %v", c.n, c.weights, got, c.want)
				break
			}
		}
		if sum != c.n {
			t.Errorf("sum %d != %d", sum, c.n)
		}
	}
	if _, err := LargestRemainder(3, []float64{0, 0}); err == nil {
		t.Error("zero weights accepted")
	}
	if _, err := LargestRemainder(3, []float64{-1, 2}); err == nil {
		t.Error("negative weight accepted")
	}
	if _, err := LargestRemainder(10, []float64{1e308, 1e308}); err == nil {
		t.Error("weights whose sum overflows accepted")
	}
}

// The permutation must be a bijection for every size, including the ones
// just above and below a power of four.
func TestPermutationIsBijection(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 200, 1000, 4097} {
		p := newPermutation(n, 42)
		seen := make([]bool, n)
		for i := uint64(0); i < n; i++ {
			x := p.at(i)
			if x >= n || seen[x] {
				t.Fatalf("n=%d: at(%d)=%d repeats or is out of range", n, i, x)
			}
			seen[x] = true
		}
	}
}

func TestAssignmentCountsAreExact(t *testing.T) {
	a, err := NewAssignment(7, 1000, []float64{0.5, 0.3, 0.2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	persona := make([]int, 3)
	goal := make([]int, 3)
	for i := 0; i < 1000; i++ {
		persona[a.Persona(i)]++
		goal[a.Goal(i)]++
	}
	if persona[0] != 500 || persona[1] != 300 || persona[2] != 200 {
		t.Errorf("persona counts %v", persona)
	}
	if goal[0] != 334 || goal[1] != 333 || goal[2] != 333 {
		t.Errorf("goal counts %v", goal)
	}
	// Persona and goal are shuffled independently: not all persona-0
	// agents share a goal.
	same := 0
	for i := 0; i < 1000; i++ {
		if a.Persona(i) == 0 && a.Goal(i) == 0 {
			same++
		}
	}
	if same < 100 || same > 240 {
		t.Errorf("persona 0 × goal 0 = %d agents; want about 167", same)
	}
}

func TestAgentsInShard(t *testing.T) {
	total := 0
	for k := 0; k < 4; k++ {
		total += agentsInShard(10, Shard{k, 4})
	}
	if total != 10 {
		t.Errorf("shards of 10 agents cover %d", total)
	}
	if agentsInShard(3, Shard{3, 4}) != 0 {
		t.Error("shard beyond the agents is not empty")
	}
}
