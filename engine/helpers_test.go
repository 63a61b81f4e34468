package engine

import (
	"bytes"
	"fmt"
	"testing"
)

// mustLoad loads a world file or stops the test.
func mustLoad(t testing.TB, path string) *World {
	t.Helper()
	w, err := LoadFile(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return w
}

// mustSeed seeds a world or stops the test.
func mustSeed(t testing.TB, w *World, seed uint64) *Base {
	t.Helper()
	b, err := w.Seed(seed)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return b
}

// step is one call of a scripted session.
type step struct {
	tool string
	args map[string]any
}

// crmScript is a fixed call script on the crm world that touches every kind
// of tool: reads, a create with an effect, guarded updates (one stale), an
// archive, a delete, a refused call and an unknown tool.
func crmScript() []step {
	return []step{
		{"get_contact", map[string]any{"id": "c_0001"}},
		{"list_contacts", map[string]any{"stage": "customer", "limit": 5}},
		{"search_contacts", map[string]any{"query": "an"}},
		{"create_contact", map[string]any{"name": "Ada Byron", "email": "ada@example.com", "company": "Analytical"}},
		{"update_contact", map[string]any{"id": "c_0002", "phone": "+1 555 0142", "expected_version": 1}},
		{"update_contact", map[string]any{"id": "c_0002", "phone": "+1 555 0143", "expected_version": 1}},
		{"archive_contact", map[string]any{"id": "c_0003"}},
		{"delete_contact", map[string]any{"id": "c_0004"}},
		{"update_contact", map[string]any{"id": "c_0005", "email": "x"}},
		{"no_such_tool", nil},
		{"get_contact", map[string]any{"id": "c_0241"}},
		{"restore_contact", map[string]any{"id": "c_0003"}},
		{"list_contacts", map[string]any{"include_archived": true, "limit": 100}},
	}
}

// runScript runs steps on s, waiting out every retry-after (as a polite
// agent would), and returns what the session produced: its journal as
// NDJSON, then its state.
func runScript(t testing.TB, s *Session, steps []step) []byte {
	t.Helper()
	for _, st := range steps {
		res := s.Call(st.tool, st.args)
		if res.Err != nil && res.Err.RetryAfter > 0 {
			s.Sleep(res.Err.RetryAfter)
		}
	}
	return sessionBytes(t, s)
}

// sessionBytes is a session's journal NDJSON followed by its StateJSON.
func sessionBytes(t testing.TB, s *Session) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteJournal(&b); err != nil {
		t.Fatal(err)
	}
	b.WriteString("--- state\n")
	b.Write(s.StateJSON())
	return b.Bytes()
}

// firstDiff describes where two byte slices first differ, for failures.
func firstDiff(a, b []byte) string {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			lo := max(0, i-60)
			return fmt.Sprintf("at byte %d:\n  %q\n  %q", i, a[lo:min(len(a), i+60)], b[lo:min(len(b), i+60)])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}
