package personas

// smallInts is a short list of tool indices that lives inside the agent
// without pointing into it (a struct holding a slice of its own array would
// be moved to the heap): the first 16 in an array, the rest, rarely, on the
// heap.
type smallInts struct {
	n    int
	arr  [16]int
	heap []int
}

func (s *smallInts) add(x int) {
	if s.heap == nil && s.n < len(s.arr) {
		s.arr[s.n] = x
		s.n++
		return
	}
	if s.heap == nil {
		s.heap = append(make([]int, 0, 2*len(s.arr)), s.arr[:]...)
	}
	s.heap = append(s.heap, x)
}

// list returns the indices; valid until the next add or reset.
func (s *smallInts) list() []int {
	if s.heap != nil {
		return s.heap
	}
	return s.arr[:s.n]
}

func (s *smallInts) reset() { s.n, s.heap = 0, nil }
