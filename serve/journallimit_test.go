package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// TestJournalLimit: a session keeps its latest JournalLimit calls and
// counts them all; the control plane's journal read, its session info and
// both kinds of reset say how many were dropped; an ended session keeps the
// tail EndedJournalLimit allows.
func TestJournalLimit(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42, JournalLimit: 5, EndedJournalLimit: 2})
	base := startHTTP(t, s)
	hc := pooledClient("")
	cs := connectHTTP(t, base, hc)
	url := base + "/control/sessions/" + cs.ID()
	ctl := control.NewClient(base+control.Path, hc)
	ctx := context.Background()
	for range 7 {
		call(t, cs, "get_contact", map[string]any{"id": "c_0001"})
	}
	call(t, cs, "get_contact", map[string]any{"id": "c_9999"})

	nd, dropped, err := ctl.JournalTail(ctx, cs.ID())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(nd)), "\n")
	if len(lines) != 5 || dropped != 3 || !strings.HasPrefix(lines[0], `{"seq":3,`) {
		t.Fatalf("journal read: %d lines from %.12q, %d dropped; want 5 from seq 3, 3 dropped", len(lines), lines[0], dropped)
	}
	var info control.SessionInfo
	mustJSON(t, hc, url, &info)
	if j := info.Journal; j == nil || j.Calls != 8 || j.Kept != 5 || j.Dropped != 3 || j.Errors != 1 || j.Limit != 5 || info.Calls != 8 {
		t.Fatalf("session info: %+v journal %+v", info, info.Journal)
	}

	// A reset over the control plane hands back what it held, and says so.
	code, body := doBody(t, hc, http.MethodPost, url+"/reset", []byte(`{"return_journal": true}`))
	var ans struct {
		Journal        []json.RawMessage `json:"journal"`
		JournalDropped int               `json:"journal_dropped"`
	}
	if err := json.Unmarshal(body, &ans); code != http.StatusOK || err != nil || len(ans.Journal) != 5 || ans.JournalDropped != 3 {
		t.Fatalf("reset: %d %s", code, body)
	}

	// A reset on the first call does too.
	for range 6 {
		call(t, cs, "get_contact", map[string]any{"id": "c_0001"})
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_contact", Arguments: map[string]any{"id": "c_0002"},
		Meta: mcp.Meta{control.ResetMeta: control.MetaReset{ReturnJournal: true}}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.Meta[control.ResetMeta])
	var meta control.MetaResetAnswer
	if err := json.Unmarshal(raw, &meta); err != nil || len(meta.Journal) != 5 || meta.JournalDropped != 1 {
		t.Fatalf("reset on the first call answered %s", raw)
	}

	// Ended: the tail of two, the totals whole.
	for range 3 {
		call(t, cs, "get_contact", map[string]any{"id": "c_0001"})
	}
	_ = cs.Close()
	waitClosed(t, hc, base, cs.ID())
	mustJSON(t, hc, url, &info)
	if j := info.Journal; j == nil || j.Calls != 4 || j.Kept != 2 || j.Dropped != 2 || j.Limit != 2 || info.Ended != "closed" {
		t.Fatalf("ended session info: %+v journal %+v", info, info.Journal)
	}
	if _, dropped, err := ctl.JournalTail(ctx, cs.ID()); err != nil || dropped != 2 {
		t.Fatalf("ended session's journal: %d dropped, %v", dropped, err)
	}
}
