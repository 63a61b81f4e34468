package herdtest

import (
	"fmt"
	"strings"
	"testing"
)

// Session names one session of a world for assertions. A failed assertion
// reports with t.Errorf, so one test can list every difference; a control
// plane that cannot answer fails the test with t.Fatalf.
type Session struct {
	w  *World
	id string
}

// Session returns session id ("latest" for the newest; for an in-process
// world, "local" or "latest").
func (w *World) Session(id string) *Session { return &Session{w: w, id: id} }

// The World's assertions check the newest session: the one the agent under
// test opened last.

// AssertRecord checks that the newest session has the record typ/id and
// that its field equals want (see Equal; nil wants the field absent).
func (w *World) AssertRecord(t testing.TB, typ, id, field string, want any) {
	t.Helper()
	w.Session(Latest).AssertRecord(t, typ, id, field, want)
}

// AssertNoRecord checks that the newest session has no record typ/id.
func (w *World) AssertNoRecord(t testing.TB, typ, id string) {
	t.Helper()
	w.Session(Latest).AssertNoRecord(t, typ, id)
}

// AssertCount checks the number of records of type typ in the newest
// session.
func (w *World) AssertCount(t testing.TB, typ string, want int) {
	t.Helper()
	w.Session(Latest).AssertCount(t, typ, want)
}

// AssertCountWhere checks the number of records of type typ whose field
// equals value in the newest session.
func (w *World) AssertCountWhere(t testing.TB, typ, field string, value any, want int) {
	t.Helper()
	w.Session(Latest).AssertCountWhere(t, typ, field, value, want)
}

// AssertCalls checks how many times the newest session called tool.
func (w *World) AssertCalls(t testing.TB, tool string, want int) {
	t.Helper()
	w.Session(Latest).AssertCalls(t, tool, want)
}

// AssertInvariants checks that the newest session breaks no world
// invariant.
func (w *World) AssertInvariants(t testing.TB) {
	t.Helper()
	w.Session(Latest).AssertInvariants(t)
}

// State reads the session's records, failing the test if it cannot.
func (s *Session) State(t testing.TB) *State {
	t.Helper()
	st, err := s.w.control.State(s.id)
	if err != nil {
		t.Fatalf("herdtest: %v", err)
		return nil
	}
	return st
}

// Journal reads the session's calls, failing the test if it cannot.
func (s *Session) Journal(t testing.TB) []JournalEntry {
	t.Helper()
	j, err := s.w.control.Journal(s.id)
	if err != nil {
		t.Fatalf("herdtest: %v", err)
		return nil
	}
	return j
}

// stateFor reads the session's records for an assertion on record type
// typ (and fields), after checking that the world has them: a typo must
// not pass as "no such record". nil when the test has been failed.
func (s *Session) stateFor(t testing.TB, typ string, fields ...string) *State {
	t.Helper()
	rt := s.w.world.Type(typ)
	if rt == nil {
		names := make([]string, len(s.w.world.Types))
		for i, rt := range s.w.world.Types {
			names[i] = rt.Name
		}
		t.Fatalf("herdtest: world %s has no record type %q (it has %s)", s.w.world.Name, typ, strings.Join(names, ", "))
		return nil
	}
	for _, field := range fields {
		if rt.Field(field) == nil {
			names := make([]string, len(rt.Fields))
			for i, f := range rt.Fields {
				names[i] = f.Name
			}
			t.Fatalf("herdtest: record type %s has no field %q (it has %s)", typ, field, strings.Join(names, ", "))
			return nil
		}
	}
	return s.State(t)
}

// AssertRecord checks that the session has the record typ/id and that its
// field equals want.
func (s *Session) AssertRecord(t testing.TB, typ, id, field string, want any) {
	t.Helper()
	st := s.stateFor(t, typ, field)
	if st == nil {
		return
	}
	r, ok := st.Record(typ, id)
	if !ok {
		t.Errorf("herdtest: session %s has no %s %s (deleted, or never there); want its %s = %s", s.id, typ, id, field, show(want))
		return
	}
	eq, err := Equal(r[field], want)
	if err != nil {
		t.Fatalf("herdtest: %s %s field %s: %v", typ, id, field, err)
		return
	}
	if !eq {
		t.Errorf("herdtest: session %s: %s %s field %s = %s, want %s", s.id, typ, id, field, show(r[field]), show(want))
	}
}

// AssertNoRecord checks that the session has no record typ/id.
func (s *Session) AssertNoRecord(t testing.TB, typ, id string) {
	t.Helper()
	st := s.stateFor(t, typ)
	if st == nil {
		return
	}
	if r, ok := st.Record(typ, id); ok {
		t.Errorf("herdtest: session %s still has %s %s: %s", s.id, typ, id, show(r))
	}
}

// AssertCount checks the number of records of type typ.
func (s *Session) AssertCount(t testing.TB, typ string, want int) {
	t.Helper()
	st := s.stateFor(t, typ)
	if st == nil {
		return
	}
	if got := st.Count(typ); got != want {
		t.Errorf("herdtest: session %s has %d %s records, want %d", s.id, got, typ, want)
	}
}

// AssertCountWhere checks the number of records of type typ whose field
// equals value.
func (s *Session) AssertCountWhere(t testing.TB, typ, field string, value any, want int) {
	t.Helper()
	st := s.stateFor(t, typ, field)
	if st == nil {
		return
	}
	got, err := st.CountWhere(typ, field, value)
	if err != nil {
		t.Fatalf("herdtest: %v", err)
		return
	}
	if got != want {
		t.Errorf("herdtest: session %s has %d %s records with %s = %s, want %d", s.id, got, typ, field, show(value), want)
	}
}

// AssertCalls checks how many times the session called tool (failed calls
// included: they are calls the agent made).
func (s *Session) AssertCalls(t testing.TB, tool string, want int) {
	t.Helper()
	if s.w.world.Tool(tool) == nil {
		t.Fatalf("herdtest: world %s has no tool %q", s.w.world.Name, tool)
		return
	}
	j := s.Journal(t)
	got := 0
	for _, e := range j {
		if e.Tool == tool {
			got++
		}
	}
	if got != want {
		t.Errorf("herdtest: session %s called %s %d times, want %d (it made %d calls: %s)", s.id, tool, got, want, len(j), callList(j))
	}
}

// AssertInvariants checks that the session breaks no world invariant.
func (s *Session) AssertInvariants(t testing.TB) {
	t.Helper()
	vs, err := s.w.control.Violations(s.id)
	if err != nil {
		t.Fatalf("herdtest: %v", err)
		return
	}
	for _, v := range vs {
		t.Errorf("herdtest: session %s breaks invariant %s: %s", s.id, v.Invariant, v.Message)
	}
}

func show(v any) string {
	if v == nil {
		return "<absent>"
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// callList names the calls of a journal in order, for a failure message.
func callList(j []JournalEntry) string {
	const most = 20
	names := make([]string, 0, min(len(j), most))
	for i, e := range j {
		if i == most {
			names = append(names, fmt.Sprintf("… %d more", len(j)-most))
			break
		}
		names = append(names, e.Tool)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
