package engine

import (
	"bytes"
	"strings"
	"testing"
)

// seqs lists the Seq of each journal entry.
func seqs(s *Session) []int {
	var out []int
	for _, e := range s.Journal() {
		out = append(out, e.Seq)
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestJournalLimitKeepsTheLatestCalls(t *testing.T) {
	w := mustLoad(t, "../worlds/crm.yaml")
	b := mustSeed(t, w, 1)
	s := b.NewSession(1, nil)
	s.SetJournalLimit(3)
	for range 5 {
		s.Call("get_contact", map[string]any{"id": "c_0001"})
	}
	s.Call("get_contact", map[string]any{"id": "c_9999"}) // not_found
	if got, want := seqs(s), []int{3, 4, 5}; !equalInts(got, want) {
		t.Fatalf("journal holds seqs %v, want %v", got, want)
	}
	tot := s.JournalTotals()
	if tot.Calls != 6 || tot.Kept != 3 || tot.Dropped != 3 || tot.Errors != 1 {
		t.Fatalf("totals %+v, want 6 calls, 3 kept, 3 dropped, 1 error", tot)
	}
	var nd bytes.Buffer
	if err := s.WriteJournal(&nd); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(nd.String(), "\n"); lines != 3 || !strings.HasPrefix(nd.String(), `{"seq":3,`) {
		t.Fatalf("WriteJournal wrote %d lines starting %.20q, want 3 from seq 3", lines, nd.String())
	}
	if calls := s.JournalCalls(); len(calls) != 3 || calls[2].Seq != 5 || calls[2].OK {
		t.Fatalf("JournalCalls = %+v", calls)
	}

	// A fork shares the ring until one of them writes.
	f := s.Fork(2)
	f.Call("get_contact", map[string]any{"id": "c_0002"})
	if got, want := seqs(s), []int{3, 4, 5}; !equalInts(got, want) {
		t.Fatalf("a call in the fork changed the original's journal: %v", got)
	}
	if got, want := seqs(f), []int{4, 5, 6}; !equalInts(got, want) {
		t.Fatalf("fork's journal %v, want %v", got, want)
	}

	// Lowering the limit cuts at once; lifting it keeps what is held.
	s.SetJournalLimit(1)
	if got := seqs(s); !equalInts(got, []int{5}) || s.JournalTotals().Dropped != 5 {
		t.Fatalf("after SetJournalLimit(1): %v, totals %+v", got, s.JournalTotals())
	}
	s.SetJournalLimit(0)
	s.Call("get_contact", map[string]any{"id": "c_0001"})
	if got := seqs(s); !equalInts(got, []int{5, 6}) {
		t.Fatalf("after lifting the limit: %v", got)
	}

	// Reset keeps the limit and starts the totals over.
	s.SetJournalLimit(2)
	s.Reset()
	if s.JournalLimit() != 2 || s.JournalTotals() != (JournalTotals{}) {
		t.Fatalf("after Reset: limit %d, totals %+v", s.JournalLimit(), s.JournalTotals())
	}
}

// A session that keeps one journal entry judges a deleted target by its
// last state exactly as one that keeps them all.
func TestJournalLimitKeepsTheTargetsLastState(t *testing.T) {
	w := mustLoad(t, "../worlds/crm.yaml")
	b := mustSeed(t, w, 1)
	g := w.Goal("hide_contact")
	run := func(limit int) (*Record, *Session) {
		s := b.NewSession(7, nil)
		s.SetJournalLimit(limit)
		a, err := g.Begin(s, 3)
		if err != nil {
			t.Fatal(err)
		}
		id := a.Target.ID()
		s.Call("update_contact", map[string]any{"id": id, "phone": "+1 555 0100"})
		s.Call("delete_contact", map[string]any{"id": id})
		for range 4 {
			s.Call("get_contact", map[string]any{"id": "c_0001"})
		}
		if s.Get(a.Target.typ, id) != nil {
			t.Fatalf("target %s was not deleted", id)
		}
		return lastState(s, a.Target), s
	}
	whole, full := run(0)
	// The journal scan, as before the watch: the same record.
	full.watch = watchedTarget{}
	if scanned := lastState(full, whole); scanned != whole {
		t.Fatalf("the journal scan finds %v, the watch %v", scanned, whole)
	}
	ring, s := run(1)
	wj, _ := whole.MarshalJSON()
	rj, _ := ring.MarshalJSON()
	if !bytes.Equal(wj, rj) {
		t.Fatalf("last state with a one-entry journal %v, with the whole journal %v", ring, whole)
	}
	if whole.Get("phone") != "+1 555 0100" {
		t.Fatalf("last state's phone %v: the update was not its last write", whole.Get("phone"))
	}
	if len(s.Journal()) != 1 {
		t.Fatalf("journal holds %d entries, want 1", len(s.Journal()))
	}
}
