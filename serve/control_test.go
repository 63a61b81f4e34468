package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// TestControlPlane drives one HTTP session and reads and changes its world
// through /control.
func TestControlPlane(t *testing.T) {
	w := loadCRM(t)
	const token = "s3cret"
	s := newTestServer(t, Options{Seed: 42, Token: token})
	base := startHTTP(t, s)
	hc := pooledClient(token)
	cs := connectHTTP(t, base, hc)
	id := cs.ID()
	if id == "" {
		t.Fatal("HTTP session has no id")
	}

	// The session is listed as soon as it initialized.
	var list struct{ Sessions []control.SessionInfo }
	mustJSON(t, hc, base+"/control/sessions", &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != id || list.Sessions[0].Key != 1 || list.Sessions[0].Calls != 0 || list.Sessions[0].Seed != 42 {
		t.Fatalf("sessions: %+v", list.Sessions)
	}

	seeded42, err := w.Seed(42)
	if err != nil {
		t.Fatal(err)
	}
	target := openContact(t, seeded42)
	if _, isErr := call(t, cs, "archive_contact", map[string]any{"id": target}); isErr {
		t.Fatal("archive failed")
	}

	_, state := getBody(t, hc, base+"/control/sessions/"+id+"/state")
	var st struct {
		Records map[string][]map[string]any `json:"records"`
	}
	if err := json.Unmarshal(state, &st); err != nil {
		t.Fatalf("state: %v", err)
	}
	if c := findRecord(st.Records["contact"], target); c == nil || c["archived"] != true {
		t.Fatalf("state does not show %s archived: %v", target, c)
	}
	if len(st.Records["audit"]) != 1 {
		t.Fatalf("want one audit record, got %d", len(st.Records["audit"]))
	}
	if _, latest := getBody(t, hc, base+"/control/sessions/latest/state"); string(latest) != string(state) {
		t.Fatal("latest is not the only session")
	}
	// The changes: the contact archived, and the audit record created.
	_, changes := getBody(t, hc, base+"/control/sessions/"+id+"/changes")
	var ch struct {
		Changes []struct {
			Type, ID      string
			Before, After map[string]any
		}
	}
	if err := json.Unmarshal(changes, &ch); err != nil {
		t.Fatalf("changes: %v", err)
	}
	if c := ch.Changes; len(c) != 2 || c[0].ID != target || c[0].Before["archived"] != false || c[0].After["archived"] != true ||
		c[1].Type != "audit" || c[1].Before != nil || c[1].After["contact"] != target {
		t.Fatalf("changes: %s", changes)
	}

	_, jb := getBody(t, hc, base+"/control/sessions/"+id+"/journal")
	j := parseJournal(t, jb)
	if len(j) != 1 || j[0].Tool != "archive_contact" || !j[0].OK || j[0].Args["id"] != target {
		t.Fatalf("journal: %s", jb)
	}

	var inv struct {
		OK         bool
		Violations []any
	}
	mustJSON(t, hc, base+"/control/sessions/"+id+"/invariants", &inv)
	if !inv.OK || len(inv.Violations) != 0 {
		t.Fatalf("invariants: %+v", inv)
	}

	// Snapshot, destroy, restore: the state comes back byte for byte.
	_, snap := getBody(t, hc, base+"/control/sessions/"+id+"/snapshot")
	if _, isErr := call(t, cs, "delete_contact", map[string]any{"id": target}); isErr {
		t.Fatal("delete failed")
	}
	if _, after := getBody(t, hc, base+"/control/sessions/"+id+"/state"); string(after) == string(state) {
		t.Fatal("delete changed nothing")
	}
	if code, body := doBody(t, hc, http.MethodPost, base+"/control/sessions/"+id+"/snapshot", snap); code != http.StatusOK {
		t.Fatalf("restore: %d %s", code, body)
	}
	if _, restored := getBody(t, hc, base+"/control/sessions/"+id+"/state"); string(restored) != string(state) {
		t.Fatalf("restored state differs:\n got %.200s\nwant %.200s", restored, state)
	}

	// Reset without a seed: the seeded state again. With a seed: that seed's.
	if code, body := doBody(t, hc, http.MethodPost, base+"/control/sessions/"+id+"/reset", nil); code != http.StatusOK {
		t.Fatalf("reset: %d %s", code, body)
	}
	if _, fresh := getBody(t, hc, base+"/control/sessions/"+id+"/state"); string(fresh) != string(seeded42.NewSession(0, nil).StateJSON()) {
		t.Fatal("reset did not restore the seeded state")
	}
	code, body := doBody(t, hc, http.MethodPost, base+"/control/sessions/"+id+"/reset", []byte(`{"seed": 7}`))
	if code != http.StatusOK {
		t.Fatalf("reset to 7: %d %s", code, body)
	}
	var info control.SessionInfo
	_ = json.Unmarshal(body, &info)
	if info.Seed != 7 || info.Calls != 0 || info.Key != 1 {
		t.Fatalf("after reset to 7: %+v", info)
	}
	seeded7, err := w.Seed(7)
	if err != nil {
		t.Fatal(err)
	}
	if _, fresh := getBody(t, hc, base+"/control/sessions/"+id+"/state"); string(fresh) != string(seeded7.NewSession(0, nil).StateJSON()) {
		t.Fatal("reset to seed 7 does not show seed 7's records")
	}
	if _, jb := getBody(t, hc, base+"/control/sessions/"+id+"/journal"); len(jb) != 0 {
		t.Fatalf("journal after reset: %s", jb)
	}
	text, _ := call(t, cs, "get_contact", map[string]any{"id": "c_0001"})
	want, _ := json.Marshal(seeded7.Records(w.Type("contact"))[0].Map())
	if text != string(want) {
		t.Fatalf("after reset to 7, get_contact answers %s, want %s", text, want)
	}

	// Switch faults for everyone.
	if code, body := doBody(t, hc, http.MethodPost, base+"/control/faults", []byte(`{"profile":"hostile"}`)); code != http.StatusOK || !strings.Contains(string(body), `"profile": "hostile"`) {
		t.Fatalf("switch faults: %d %s", code, body)
	}
	mustJSON(t, hc, base+"/control/sessions/"+id, &info)
	if info.Profile != "hostile" {
		t.Fatalf("session profile %q after switch", info.Profile)
	}

	var wd control.WorldDoc
	mustJSON(t, hc, base+"/control/world", &wd)
	if wd.World != "crm" || wd.Faults != "hostile" || wd.Sessions == nil || wd.Sessions.Live != 1 {
		t.Fatalf("world: %+v", wd)
	}

	// Errors are JSON with a message that says what to do.
	for _, tc := range []struct {
		method, path, body string
		code               int
		msg                string
	}{
		{"GET", "/control/sessions/nope/state", "", 404, `no session \"nope\"`},
		{"GET", "/control/frobnicate", "", 404, "no control endpoint"},
		{"POST", "/control/faults", `{"profile":"chaos"}`, 400, `no fault profile \"chaos\"`},
		{"POST", "/control/faults", `{}`, 400, `want {\"profile\": \"NAME\"}`},
		{"POST", "/control/faults", `{"profile":"none","x":1}`, 400, `unknown field \"x\"`},
		{"POST", "/control/sessions/" + id + "/reset", `{"seed":"seven"}`, 400, "body:"},
		{"POST", "/control/sessions/" + id + "/reset", `{"seed":-1}`, 400, "body:"},
		{"POST", "/control/sessions/" + id + "/snapshot", `{"version":1}`, 400, `no \"seed\" field`},
		{"POST", "/control/sessions/" + id + "/snapshot", `not json`, 400, "snapshot:"},
		{"POST", "/control/sessions/" + id + "/reset", `{"seed":1}` + strings.Repeat(" ", maxControlBody), 413, "larger than"},
		{"DELETE", "/control/sessions", "", 404, "no control endpoint DELETE /control/sessions"},
	} {
		var b []byte
		if tc.body != "" {
			b = []byte(tc.body)
		}
		code, body := doBody(t, hc, tc.method, base+tc.path, b)
		if code != tc.code || !strings.Contains(string(body), tc.msg) {
			t.Errorf("%s %s: %d %s, want %d containing %q", tc.method, tc.path, code, body, tc.code, tc.msg)
		}
	}

	// A closed session stays readable.
	_ = cs.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		mustJSON(t, hc, base+"/control/sessions/"+id, &info)
		if info.Closed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("session not marked closed 5s after the client closed it")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, _ := getBody(t, hc, base+"/control/sessions/"+id+"/state"); code != http.StatusOK {
		t.Fatalf("closed session's state: %d", code)
	}
}

func mustJSON(t *testing.T, hc *http.Client, url string, v any) {
	t.Helper()
	code, body := getBody(t, hc, url)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", url, err, body)
	}
}

func findRecord(recs []map[string]any, id string) map[string]any {
	for _, r := range recs {
		if r["id"] == id {
			return r
		}
	}
	return nil
}

// TestMaxSessions: at MaxSessions a new session takes the place of the
// live one idle the longest (evicted: logged, counted, its world kept
// readable), and is refused with 503 and a message only when every live
// session has a request in flight; ended sessions stay readable, the oldest
// dropped first once MaxSessions of them are kept.
func TestMaxSessions(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42, MaxSessions: 2})
	base := startHTTP(t, s)
	hc := pooledClient("")
	a, err := dialHTTP(base, hc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dialHTTP(base, hc)
	if err != nil {
		t.Fatal(err)
	}
	call(t, a, "get_contact", map[string]any{"id": "c_0001"})
	call(t, b, "get_contact", map[string]any{"id": "c_0001"})

	// Both busy: no room.
	wa, wb := s.sessions.lookup(a.ID()), s.sessions.lookup(b.ID())
	wa.begin(time.Now())
	wb.begin(time.Now())
	if _, err := dialHTTP(base, hc); err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("third session while both are busy: %v, want 503", err)
	}
	m := &rawMCP{t: t, hc: hc, url: base + control.MCPPath}
	code, body, _ := m.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`), nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "too many sessions: at most 2 at once, and none of them idle") {
		t.Fatalf("raw third initialize: %d %s", code, body)
	}
	wa.done(time.Now())
	time.Sleep(2 * time.Millisecond) // b's request ends later: a is the idlest
	wb.done(time.Now())

	// A third session evicts a, the idlest.
	first := a.ID()
	c, err := dialHTTP(base, hc)
	if err != nil {
		t.Fatalf("a third session with two idle ones: %v", err)
	}
	waitClosed(t, hc, base, first)
	var info control.SessionInfo
	mustJSON(t, hc, base+"/control/sessions/"+first, &info)
	if info.Ended != "evicted" || info.Calls != 1 || info.Journal == nil || info.Journal.Kept != 1 {
		t.Fatalf("evicted session: %+v", info)
	}
	if _, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_contact", Arguments: map[string]any{"id": "c_0001"}}); err == nil {
		t.Fatal("a call on the evicted session succeeded")
	}
	var doc control.WorldDoc
	mustJSON(t, hc, base+"/control/world", &doc)
	if n := doc.Sessions; n == nil || n.Live != 2 || n.Evicted != 1 || n.TimedOut != 0 {
		t.Fatalf("session counts after an eviction: %+v", n)
	}

	// Two ended sessions are kept; a third ended one pushes out the oldest.
	_ = b.Close()
	waitClosed(t, hc, base, b.ID())
	_ = c.Close()
	waitClosed(t, hc, base, c.ID())
	if code, _ := getBody(t, hc, base+"/control/sessions/"+first+"/state"); code != http.StatusNotFound {
		t.Fatalf("oldest ended session still kept (%d)", code)
	}
	var list struct{ Sessions []control.SessionInfo }
	mustJSON(t, hc, base+"/control/sessions", &list)
	if len(list.Sessions) != 2 || list.Sessions[0].ID != b.ID() || list.Sessions[1].ID != c.ID() {
		t.Fatalf("kept sessions: %+v", list.Sessions)
	}
	if list.Sessions[0].Ended != "closed" {
		t.Fatalf("a session its client closed says it ended %q", list.Sessions[0].Ended)
	}
}

func waitClosed(t *testing.T, hc *http.Client, base, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var info control.SessionInfo
		mustJSON(t, hc, base+"/control/sessions/"+id, &info)
		if info.Closed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s not closed after 5s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRestoreAcrossSeeds: a snapshot taken on one seed restores onto a
// session that has since been reset to another.
func TestRestoreAcrossSeeds(t *testing.T) {
	hc, cs, url := crmSessionHTTP(t)
	if code, body := doBody(t, hc, http.MethodPost, url+"/reset", []byte(`{"seed":7}`)); code != 200 {
		t.Fatalf("reset: %d %s", code, body)
	}
	call(t, cs, "archive_contact", map[string]any{"id": "c_0004"})
	_, want := getBody(t, hc, url+"/state")
	_, snap := getBody(t, hc, url+"/snapshot")
	doBody(t, hc, http.MethodPost, url+"/reset", []byte(`{"seed":42}`))
	if code, body := doBody(t, hc, http.MethodPost, url+"/snapshot", snap); code != 200 {
		t.Fatalf("restore: %d %s", code, body)
	}
	if _, got := getBody(t, hc, url+"/state"); string(got) != string(want) {
		t.Fatal("state after restoring across seeds differs")
	}
	var info control.SessionInfo
	mustJSON(t, hc, url, &info)
	if info.Seed != 7 {
		t.Fatalf("seed after restore: %d, want 7", info.Seed)
	}
}
