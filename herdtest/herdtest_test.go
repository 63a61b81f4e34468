package herdtest_test

import (
	"context"
	"fmt"
	"github.com/herd-sh/herd/control"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/herdtest"
)

// recorder is a testing.TB that keeps failures instead of failing, so the
// tests can check that an assertion fails when it should, and says why.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

// expect runs one assertion against a recorder and checks what it said.
func expect(t *testing.T, what string, wantError, wantFatal string, assert func(tb testing.TB)) {
	t.Helper()
	r := &recorder{TB: t}
	assert(r)
	got := func(list []string, want string) bool {
		if want == "" {
			return len(list) == 0
		}
		return len(list) == 1 && strings.Contains(list[0], want)
	}
	if !got(r.errors, wantError) || !got(r.fatals, wantFatal) {
		t.Errorf("%s: errors %q, fatals %q; want error %q, fatal %q", what, r.errors, r.fatals, wantError, wantFatal)
	}
}

// activeContact finds a contact that can be archived or deleted.
func activeContact(t *testing.T, st *herdtest.State) string {
	t.Helper()
	for _, c := range st.Records("contact") {
		if c["archived"] == false && c["locked"] == false {
			return c["id"].(string)
		}
	}
	t.Fatal("no active, unlocked contact")
	return ""
}

func TestInProcessWorld(t *testing.T) {
	w := herdtest.Start(t, "mock:crm")
	if w.IsServed() || w.Endpoint() != "" || w.ControlURL() != "" {
		t.Fatal("an in-process world has no endpoint")
	}
	st := w.Session(herdtest.Latest).State(t)
	total := st.Count("contact")
	id := activeContact(t, st)

	if res := w.Call("delete_contact", map[string]any{"id": id}); !res.OK() {
		t.Fatalf("delete_contact: %v", res.Err)
	}
	w.AssertNoRecord(t, "contact", id)
	w.AssertCount(t, "contact", total-1)
	w.AssertCountWhere(t, "audit", "action", "delete", 1)
	w.AssertCalls(t, "delete_contact", 1)
	w.Session(herdtest.LocalSession).AssertCalls(t, "archive_contact", 0)

	// A failed call changes nothing and is still a call.
	if res := w.Call("get_contact", map[string]any{"id": id}); res.OK() || res.Err.Code != "not_found" {
		t.Fatalf("get of a deleted contact: %+v", res)
	}
	w.AssertCalls(t, "get_contact", 1)
	j := w.Session(herdtest.Latest).Journal(t)
	if len(j) != 2 || j[0].Tool != "delete_contact" || !j[0].OK || !j[0].Committed || j[1].OK || j[1].Error == nil || j[1].Error.Code != "not_found" {
		t.Fatalf("journal: %+v", j)
	}
	if res := w.Call("no_such_tool", nil); res.OK() {
		t.Fatal("an unknown tool succeeded")
	}

	if err := w.Control().Reset(w.Seed()); err != nil {
		t.Fatal(err)
	}
	w.AssertRecord(t, "contact", id, "archived", false)
	w.AssertCount(t, "contact", total)
	w.AssertCalls(t, "delete_contact", 0)

	// Another seed, other records.
	if err := w.Control().Reset(w.Seed() + 1); err != nil {
		t.Fatal(err)
	}
	if other := w.Session(herdtest.Latest).State(t); other.Seed != w.Seed()+1 {
		t.Fatalf("after Reset(seed+1) the state is of seed %d", other.Seed)
	}
	if _, err := w.Control().State("session-9"); err == nil || !strings.Contains(err.Error(), `no session "session-9"`) {
		t.Fatalf("state of an unknown session: %v", err)
	}
}

// Every assertion fails when the world disagrees, with a message naming
// the record, and refuses a type, field or tool the world does not have.
func TestAssertionsFail(t *testing.T) {
	w := herdtest.Start(t, "mock:crm")
	st := w.Session(herdtest.Latest).State(t)
	id := activeContact(t, st)
	if res := w.Call("archive_contact", map[string]any{"id": id}); !res.OK() {
		t.Fatalf("archive_contact: %v", res.Err)
	}
	total := st.Count("contact")

	expect(t, "wrong value", "contact "+id+" field archived = true, want false", "",
		func(tb testing.TB) { w.AssertRecord(tb, "contact", id, "archived", false) })
	expect(t, "right value", "", "",
		func(tb testing.TB) { w.AssertRecord(tb, "contact", id, "archived", true) })
	expect(t, "missing record", "has no contact c_9999", "",
		func(tb testing.TB) { w.AssertRecord(tb, "contact", "c_9999", "archived", true) })
	expect(t, "record still there", "still has contact "+id, "",
		func(tb testing.TB) { w.AssertNoRecord(tb, "contact", id) })
	expect(t, "count", fmt.Sprintf("has %d contact records, want %d", total, total-1), "",
		func(tb testing.TB) { w.AssertCount(tb, "contact", total-1) })
	expect(t, "count where", "has 1 audit records with action = \"archive\", want 2", "",
		func(tb testing.TB) { w.AssertCountWhere(tb, "audit", "action", "archive", 2) })
	expect(t, "calls", "called archive_contact 1 times, want 2 (it made 1 calls: archive_contact)", "",
		func(tb testing.TB) { w.AssertCalls(tb, "archive_contact", 2) })
	expect(t, "typo in a type", "", `no record type "contacts"`,
		func(tb testing.TB) { w.AssertNoRecord(tb, "contacts", id) })
	expect(t, "typo in a field", "", `no field "archive"`,
		func(tb testing.TB) { w.AssertRecord(tb, "contact", id, "archive", true) })
	expect(t, "typo in a tool", "", `no tool "archive"`,
		func(tb testing.TB) { w.AssertCalls(tb, "archive", 1) })
	expect(t, "invariants hold", "", "",
		func(tb testing.TB) { w.AssertInvariants(tb) })
}

// A served world and an in-process one give the same end state for the
// same calls: both use the serve package's first session key.
func TestServedMatchesInProcess(t *testing.T) {
	local := herdtest.Start(t, "mock:crm", herdtest.Seed(9))
	served := herdtest.Start(t, "mock:crm", herdtest.Seed(9), herdtest.Served())
	if !served.IsServed() || !strings.HasPrefix(served.Endpoint(), "http://127.0.0.1:") || !strings.HasSuffix(served.Endpoint(), "/mcp") {
		t.Fatalf("endpoint %q", served.Endpoint())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: served.Endpoint()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	id := activeContact(t, local.Session(herdtest.Latest).State(t))
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_contact", map[string]any{"id": id}},
		{"update_contact", map[string]any{"id": id, "email": "new@example.com", "expected_version": 1}},
		{"archive_contact", map[string]any{"id": id}},
		{"archive_contact", map[string]any{"id": id}}, // refused: already archived
	}
	for _, c := range calls {
		local.Call(c.tool, c.args)
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
	}
	a, err := local.Control().State(herdtest.Latest)
	if err != nil {
		t.Fatal(err)
	}
	b, err := served.Control().State(cs.ID())
	if err != nil {
		t.Fatal(err)
	}
	// Audit entries carry the virtual time, which a served session moves
	// by the real time between calls: compare everything else.
	for _, typ := range []string{"contact", "audit"} {
		ra, rb := a.Records(typ), b.Records(typ)
		for _, rs := range [][]herdtest.Record{ra, rb} {
			for _, r := range rs {
				if typ == "audit" {
					delete(r, "at")
				}
			}
		}
		if len(ra) == 0 || fmt.Sprint(ra) != fmt.Sprint(rb) {
			t.Errorf("%s records differ between in-process and served:\n%v\n%v", typ, ra, rb)
		}
	}
	served.AssertCalls(t, "archive_contact", 2)
	served.AssertCountWhere(t, "audit", "action", "archive", 1)
	served.AssertRecord(t, "contact", id, "email", "new@example.com")

	// Ended sessions stay listed (closed, their end state readable); the
	// one live session is the client's.
	all, err := served.Control().Sessions()
	var sessions []control.SessionInfo
	for _, s := range all {
		if !s.Closed {
			sessions = append(sessions, s)
		}
	}
	if err != nil || len(sessions) != 1 || sessions[0].ID != cs.ID() || sessions[0].Calls != len(calls) {
		t.Fatalf("live sessions %+v of %+v, %v", sessions, all, err)
	}
	if err := served.Control().SetFaults("hostile"); err != nil {
		t.Fatal(err)
	}
	if err := served.Control().SetFaults("nope"); err == nil || !strings.Contains(err.Error(), `no fault profile "nope"`) {
		t.Fatalf("SetFaults(nope): %v", err)
	}
	if err := local.Control().SetFaults("nope"); err == nil || !strings.Contains(err.Error(), `no fault profile "nope"`) {
		t.Fatalf("local SetFaults(nope): %v", err)
	}
	if _, err := served.Control().Journal("no-such-session"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("journal of an unknown session: %v", err)
	}
}

func TestStartRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		world string
		opts  []herdtest.Option
		want  string
	}{
		{"mock:nope", nil, "mock:nope"},
		{"mock:crm", []herdtest.Option{herdtest.Faults("stormy")}, `no fault profile "stormy"`},
		{"mock:crm", []herdtest.Option{herdtest.Served(), herdtest.Faults("stormy")}, `no fault profile "stormy"`},
		{"mock:crm", []herdtest.Option{herdtest.Variant("vague")}, `no variant "vague"`},
	} {
		r := &recorder{TB: t}
		if w := herdtest.Start(r, c.world, c.opts...); w != nil || len(r.fatals) != 1 || !strings.Contains(r.fatals[0], c.want) {
			t.Errorf("Start(%s): world %v, fatals %q; want one containing %q", c.world, w, r.fatals, c.want)
		}
	}
}

func TestEqual(t *testing.T) {
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, c := range []struct {
		got, want any
		eq        bool
	}{
		{true, true, true},
		{"x", "x", true},
		{"1", 1, false},
		{nil, nil, true},
		{nil, false, false},
		{"2024-03-01T11:00:00Z", at, true},
		{"2024-03-01T12:00:00Z", at, false},
	} {
		if eq, err := herdtest.Equal(c.got, c.want); err != nil || eq != c.eq {
			t.Errorf("Equal(%v, %v) = %v, %v; want %v", c.got, c.want, eq, err, c.eq)
		}
	}
	// Numbers as the state decodes them (json.Number) against Go numbers.
	st := herdtest.Start(t, "mock:crm").Session(herdtest.Latest).State(t)
	v := st.Records("contact")[0]["version"]
	for _, want := range []any{1, int64(1), 1.0} {
		if eq, _ := herdtest.Equal(v, want); !eq {
			t.Errorf("version %v (%T) != %v (%T)", v, v, want, want)
		}
	}
	if eq, _ := herdtest.Equal(v, 2); eq {
		t.Error("1 == 2")
	}
	if _, err := herdtest.Equal(v, make(chan int)); err == nil {
		t.Error("a channel compared without error")
	}
}
