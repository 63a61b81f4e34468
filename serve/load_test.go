package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
)

// workload makes one session's calls: a seeded mix of reads and writes over
// the CRM, with a few ids that do not exist, so business errors happen too.
type workload struct {
	session int
	rng     *rand.Rand
	created int
}

func newWorkload(session int) *workload {
	return &workload{session: session, rng: rand.New(rand.NewPCG(uint64(session), 0x5e55))}
}

func (w *workload) contactID() string {
	n := 1 + w.rng.IntN(244) // a few beyond the 240 seeded: not_found
	return fmt.Sprintf("c_%04d", n)
}

func (w *workload) next() toolCall {
	switch p := w.rng.IntN(100); {
	case p < 30:
		return toolCall{"get_contact", map[string]any{"id": w.contactID()}}
	case p < 42:
		args := map[string]any{"limit": 1 + w.rng.IntN(10)}
		if w.rng.IntN(2) == 0 {
			args["stage"] = []string{"lead", "customer", "churned"}[w.rng.IntN(3)]
		}
		return toolCall{"list_contacts", args}
	case p < 54:
		letters := "aeiourstln"
		q := string(letters[w.rng.IntN(len(letters))]) + string(letters[w.rng.IntN(len(letters))])
		return toolCall{"search_contacts", map[string]any{"query": q}}
	case p < 70:
		args := map[string]any{"id": w.contactID(), "phone": fmt.Sprintf("+1 555 %04d", w.rng.IntN(10000))}
		if w.rng.IntN(3) == 0 {
			args["expected_version"] = 1 + w.rng.IntN(2)
		}
		return toolCall{"update_contact", args}
	case p < 80:
		return toolCall{"archive_contact", map[string]any{"id": w.contactID()}}
	case p < 86:
		return toolCall{"restore_contact", map[string]any{"id": w.contactID()}}
	case p < 93:
		// A new email each time: the CRM's no_duplicate_contacts invariant
		// holds for a client that does not create duplicates.
		w.created++
		return toolCall{"create_contact", map[string]any{
			"name":  fmt.Sprintf("Load Tester %d", w.created),
			"email": fmt.Sprintf("load.s%d.n%d@example.test", w.session, w.created),
		}}
	default:
		return toolCall{"delete_contact", map[string]any{"id": w.contactID()}}
	}
}

type answer struct {
	text  string
	isErr bool
}

// sessionRun is what one client did.
type sessionRun struct {
	id      string
	calls   []toolCall
	answers []answer
	err     error
}

// TestConcurrentSessionsHTTP runs many MCP sessions at once over HTTP
// against the hostile profile. No call may fail other than with a tool
// error, and each session's answers and end state must equal its calls
// replayed in-process: sessions neither leak into each other nor lose or
// reorder calls. The full size (200 sessions × 200 calls) runs without
// -short; under -race, where it would take minutes, a smaller one.
func TestConcurrentSessionsHTTP(t *testing.T) {
	sessions, calls := 12, 25
	switch {
	case testing.Short():
	case raceDetector:
		sessions, calls = 32, 40
	default:
		sessions, calls = 200, 200
	}
	w := loadCRM(t)
	// Ended sessions keep every call here: the whole journal is checked.
	s := newTestServer(t, Options{Seed: 42, Faults: "hostile", MaxFaultWait: time.Millisecond, MaxSessions: sessions, EndedJournalLimit: calls})
	base := startHTTP(t, s)
	hc := pooledClient("")

	start := time.Now()
	runs := make([]sessionRun, sessions)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = runSession(base, hc, i, calls)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d sessions × %d calls over HTTP in %v (%.0f calls/s)", sessions, calls, elapsed.Round(time.Millisecond), float64(sessions*calls)/elapsed.Seconds())

	for i, r := range runs {
		if r.err != nil {
			t.Fatalf("session %d: %v", i, r.err)
		}
	}

	seeded, err := w.Seed(42)
	if err != nil {
		t.Fatal(err)
	}
	hostile := w.Profile("hostile")
	var faults, businessErrors, ok int
	ids := map[string]bool{}
	for i, r := range runs {
		if ids[r.id] {
			t.Fatalf("session id %s used twice", r.id)
		}
		ids[r.id] = true
		key := sessionKey(t, hc, base, r.id)
		_, jb := getBody(t, hc, base+"/control/sessions/"+r.id+"/journal")
		ref, results := replay(t, seeded, key, hostile, r.calls, parseJournal(t, jb))
		for j, res := range results {
			want, wantErr := engineText(t, res)
			if r.answers[j] != (answer{want, wantErr}) {
				t.Fatalf("session %d call %d %s(%v):\n got %v %s\nwant %v %s", i, j, r.calls[j].tool, r.calls[j].args, r.answers[j].isErr, r.answers[j].text, wantErr, want)
			}
			switch {
			case res.Fault != "":
				faults++
			case res.Err != nil:
				businessErrors++
			default:
				ok++
			}
		}
		_, state := getBody(t, hc, base+"/control/sessions/"+r.id+"/state")
		if string(state) != string(ref.StateJSON()) {
			t.Fatalf("session %d: served end state differs from the in-process replay", i)
		}
		var inv struct {
			OK         bool
			Violations []engine.Violation
		}
		mustJSON(t, hc, base+"/control/sessions/"+r.id+"/invariants", &inv)
		if !inv.OK {
			t.Fatalf("session %d: invariants broken: %+v", i, inv.Violations)
		}
	}
	t.Logf("answers: %d ok, %d business errors, %d injected faults", ok, businessErrors, faults)
	if faults == 0 || businessErrors == 0 || ok == 0 {
		t.Fatalf("the workload should see successes, business errors and faults")
	}
}

// runSession opens one MCP session and makes n calls, recording the answers.
// Any error that is not a tool result ends the run.
func runSession(base string, hc *http.Client, i, n int) sessionRun {
	cs, err := dialHTTP(base, hc)
	if err != nil {
		return sessionRun{err: fmt.Errorf("connect: %w", err)}
	}
	defer cs.Close()
	r := sessionRun{id: cs.ID()}
	wl := newWorkload(i)
	for range n {
		c := wl.next()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			r.err = fmt.Errorf("call %d %s: %w", len(r.calls), c.tool, err)
			return r
		}
		tc, ok := res.Content[0].(*mcp.TextContent)
		if !ok || len(res.Content) != 1 {
			r.err = fmt.Errorf("call %d %s: unexpected content %v", len(r.calls), c.tool, res.Content)
			return r
		}
		if !json.Valid([]byte(tc.Text)) {
			r.err = fmt.Errorf("call %d %s: text is not JSON: %s", len(r.calls), c.tool, tc.Text)
			return r
		}
		r.calls = append(r.calls, c)
		r.answers = append(r.answers, answer{tc.Text, res.IsError})
	}
	return r
}

// TestSameCallsSameBytes runs one scripted session on two fresh servers
// whose clocks tick the same way: answers and end state must be
// byte-identical. (Real servers read the wall clock; the clock only moves
// record timestamps, and the journal records every move.)
func TestSameCallsSameBytes(t *testing.T) {
	run := func(step time.Duration) ([]answer, []byte) {
		s := newTestServer(t, Options{Seed: 42, Faults: "hostile", MaxFaultWait: -1})
		s.now = steppingClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), step)
		cs := connectMemory(t, s, "m")
		wl := newWorkload(7)
		var out []answer
		for range 80 {
			c := wl.next()
			text, isErr := call(t, cs, c.tool, c.args)
			out = append(out, answer{text, isErr})
		}
		return out, s.sessions.lookup("m").state()
	}
	a1, s1 := run(1700 * time.Microsecond)
	a2, s2 := run(1700 * time.Microsecond)
	for i := range a1 {
		if a1[i] != a2[i] {
			t.Fatalf("call %d differs between runs:\n%v %s\n%v %s", i, a1[i].isErr, a1[i].text, a2[i].isErr, a2[i].text)
		}
	}
	if string(s1) != string(s2) {
		t.Fatal("end states differ between runs")
	}
	// The clock does reach the world: waiting longer between calls moves
	// the timestamps the writes leave.
	if _, s3 := run(50 * time.Millisecond); string(s3) == string(s1) {
		t.Fatal("a slower client left the same timestamps")
	}
}

// steppingClock returns a clock that advances by step on every reading.
func steppingClock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	now := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(step)
		return now
	}
}
