package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm/target"
)

func TestParseMixSplitsEachSessionIntoEpisodes(t *testing.T) {
	reset := `"_meta":{"sh.herd/reset":{"seed":"1","key":"2"}}`
	lines := []string{
		`{"session":"B","params":{"name":"early","arguments":{}}}`, // before B's first reset: left out
		`{"session":"A","params":{` + reset + `,"name":"a1","arguments":{"id":"c_1"}}}`,
		`{"session":"B","params":{` + reset + `,"name":"b1"}}`,
		`{"session":"A","params":{"name":"a2","arguments":{"id":"c_2"}}}`,
		``,
		`{"session":"B","params":{"name":"b2"}}`,
		`{"session":"A","params":{` + reset + `,"name":"a3"}}`,
	}
	m, err := parseMix(strings.NewReader(strings.Join(lines, "\n")), "rec.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, ep := range m.episodes {
		var names []string
		for _, p := range ep {
			names = append(names, p.Name)
		}
		got = append(got, names)
	}
	want := [][]string{{"a1", "a2"}, {"b1", "b2"}, {"a3"}}
	if len(got) != len(want) || m.calls != 5 {
		t.Fatalf("episodes %v (%d calls), want %v (5 calls)", got, m.calls, want)
	}
	for i := range want {
		if strings.Join(got[i], ",") != strings.Join(want[i], ",") {
			t.Fatalf("episodes %v, want %v", got, want)
		}
	}
	if _, ok := m.episodes[0][0].Meta[control.ResetMeta]; !ok {
		t.Error("the first call of an episode lost its reset")
	}
	if args, _ := m.episodes[0][1].Arguments.(json.RawMessage); string(args) != `{"id":"c_2"}` {
		t.Errorf("arguments %s, want them as recorded", args)
	}

	// Session 0 of 2 plays episodes 0 and 2, then 1 (cycling), each whole.
	play := m.player(0, 2)
	var order []string
	for range 6 {
		order = append(order, play().Name)
	}
	if s := strings.Join(order, ","); s != "a1,a2,a3,b1,b2,a1" {
		t.Errorf("session 0 played %s", s)
	}
	// Each call is a copy: the SDK's client may write to its _meta.
	p := m.player(0, 1)()
	p.Meta["x"] = 1
	if _, ok := m.episodes[0][0].Meta["x"]; ok {
		t.Error("a played call shares its _meta with the recording")
	}
}

func TestParseMixRefusesWhatIsNotARecording(t *testing.T) {
	for what, text := range map[string]string{
		"not JSON":            "calls 10\n",
		"params with no name": `{"session":"A","params":{"arguments":{}}}`,
		"no reset":            `{"session":"A","params":{"name":"get_contact"}}`,
		"empty":               "",
	} {
		if _, err := parseMix(strings.NewReader(text), "rec.jsonl"); err == nil || !strings.Contains(err.Error(), "rec.jsonl") {
			t.Errorf("%s: error %v, want one naming the file", what, err)
		}
	}
}

// The recording proxy forwards a session to a herd world and records its
// tool calls; the loop replays them on the world with no call failing,
// each episode on a world reset as recorded.
func TestRecordThenReplayAgainstAHerdWorld(t *testing.T) {
	w, err := engine.LoadFile("../../worlds/crm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	local, err := serve.StartLocal(serve.Options{World: w, MaxFaultWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	upstream := local.URL
	ctx := context.Background()

	path := filepath.Join(t.TempDir(), "calls.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{w: bufio.NewWriter(f)}
	proxy := httptest.NewServer(recordingProxy(upstream, rec))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: proxy.URL + control.MCPPath, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: target.ProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	for ep := range 3 {
		reset := mcp.Meta{control.ResetMeta: map[string]any{"seed": "42", "key": "7"}}
		for i, c := range []struct{ tool, id string }{{"get_contact", "c_0001"}, {"list_contacts", ""}, {"get_contact", "c_0002"}} {
			p := &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{}}
			if c.id != "" {
				p.Arguments = map[string]any{"id": c.id}
			}
			if i == 0 {
				p.Meta = reset
			}
			if _, err := cs.CallTool(ctx, p); err != nil {
				t.Fatalf("episode %d call %d through the proxy: %v", ep, i, err)
			}
		}
	}
	_ = cs.Close()
	proxy.Close()
	if err := rec.w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if rec.n != 9 {
		t.Fatalf("recorded %d calls, want 9", rec.n)
	}
	m, err := readMix(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.episodes) != 3 || m.calls != 9 {
		t.Fatalf("%d episodes of %d calls, want 3 of 9", len(m.episodes), m.calls)
	}
	var out strings.Builder
	if err := loop(upstream.String(), 2, 300*time.Millisecond, func(i int) player { return m.player(i, 2) }, &out); err != nil {
		t.Fatalf("replaying: %v (%s)", err, out.String())
	}
	if !strings.HasPrefix(out.String(), "calls ") || strings.Contains(out.String(), "calls 0 ") {
		t.Fatalf("the loop printed %q", out.String())
	}
}
