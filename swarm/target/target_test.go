package target

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/field"
	"github.com/herd-sh/herd/worlds"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind Kind
		cmd  []string
		bad  string
	}{
		{in: "mock:crm", kind: KindInProcess},
		{in: "worlds/x.yaml", kind: KindInProcess},
		{in: "serve:mock:shop", kind: KindServe},
		{in: "http://127.0.0.1:8931/mcp", kind: KindHTTP},
		{in: `mcp+stdio:node "my server.js" --flag 'a b' c\ d`, kind: KindStdio, cmd: []string{"node", "my server.js", "--flag", "a b", "c d"}},
		{in: "mcp+stdio:", bad: "no command"},
		{in: `mcp+stdio:node "open`, bad: "unclosed"},
		{in: "serve:", bad: "no world"},
		{in: "ws://127.0.0.1/x", bad: "unsupported scheme"},
		{in: "http://user:pw@127.0.0.1/mcp", bad: "credentials"},
		{in: "", bad: "empty"},
	} {
		s, err := Parse(c.in)
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("Parse(%q): err %v, want %q", c.in, err, c.bad)
			}
			continue
		}
		if err != nil || s.Kind != c.kind || (c.cmd != nil && !reflect.DeepEqual(s.Command, c.cmd)) {
			t.Errorf("Parse(%q) = %+v, %v", c.in, s, err)
		}
	}
}

// Hosts are judged by name, never resolved: only loopback passes unless
// allowed by name.
func TestCheckHost(t *testing.T) {
	for host, ok := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "localhost": true, "[::1]": true, "api.localhost": true,
		"load.example.invalid": false, "10.1.2.3": false, "0.0.0.0": false, "[::]": false, "localhost.example.invalid": false,
	} {
		u := &url.URL{Scheme: "http", Host: host + ":80", Path: "/mcp"}
		if err := CheckHost(u, nil); (err == nil) != ok {
			t.Errorf("CheckHost(%s) = %v, want ok=%v", host, err, ok)
		}
	}
	u := &url.URL{Scheme: "http", Host: "load.example.invalid", Path: "/mcp"}
	if err := CheckHost(u, []string{"LOAD.example.invalid"}); err != nil {
		t.Errorf("an allowed host was refused: %v", err)
	}
	err := CheckHost(u, nil)
	if fe, ok := field.As(err); !ok || fe.Field != "AllowHosts" || !strings.Contains(err.Error(), `host "load.example.invalid"`) {
		t.Errorf("the refusal should name the host and the field that allows it: %v", err)
	}
}

// A served world's tool results become the engine results an in-process
// call gives: records of the right type, errors with code and retry-after.
func TestToResult(t *testing.T) {
	w, base := seededCRM(t, 42)
	s := base.NewSession(1, nil)
	text := func(s string, isErr bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	for _, name := range []string{"get_contact", "list_contacts", "archive_contact"} {
		tool := w.Tool(name)
		if tool == nil {
			t.Fatalf("mock:crm has no tool %s", name)
		}
		args := map[string]any{}
		if tool.Key != "" {
			args[tool.Key] = "c_0001"
		}
		want := s.Fork(2).Call(name, args)
		if !want.OK() {
			t.Fatalf("%s: %v: the test needs a call that succeeds", name, want.Err)
		}
		body, _ := jsonOf(want.Value())
		var decoded map[string]any // structured content as an SDK decodes it: numbers as float64
		if err := json.Unmarshal([]byte(body), &decoded); err != nil {
			t.Fatal(err)
		}
		// The structured case's text cannot be parsed: it passes only if
		// the structured content is read.
		structured := text("not json", false)
		structured.StructuredContent = decoded
		for how, r := range map[string]*mcp.CallToolResult{
			"text":       text(body, false),
			"structured": structured,
		} {
			got, err := toResult(w, tool, r)
			if err != nil {
				t.Fatalf("%s from %s: %v", name, how, err)
			}
			if (want.Record == nil) != (got.Record == nil) || len(want.Records) != len(got.Records) {
				t.Fatalf("%s from %s: got %+v, want %+v", name, how, got, want)
			}
			if want.Record != nil && string(mustJSON(t, got.Record)) != string(mustJSON(t, want.Record)) {
				t.Errorf("%s from %s: record %s, want %s", name, how, mustJSON(t, got.Record), mustJSON(t, want.Record))
			}
			if len(want.Records) > 0 && string(mustJSON(t, got.Records)) != string(mustJSON(t, want.Records)) {
				t.Errorf("%s from %s: records differ", name, how)
			}
		}
	}
	// An integer past 2^53 in structured content has lost its last digits
	// to the float the SDK decoded it as: the text, parsed exactly, wins.
	exact := `{"id": "c_0001", "name": "Ada", "version": 9007199254740993}`
	r := text(exact, false)
	r.StructuredContent = map[string]any{"id": "c_0001", "name": "Ada", "version": float64(9007199254740993)}
	if got, err := toResult(w, w.Tool("get_contact"), r); err != nil || got.Record == nil || !strings.Contains(string(mustJSON(t, got.Record)), `"version":9007199254740993`) {
		t.Errorf("a big integer: %v, %v", got.Record, err)
	}
	got, err := toResult(w, w.Tool("get_contact"), text(`{"error": {"code": "rate_limited", "message": "slow down", "retry_after_ms": 1500}}`, true))
	if err != nil || got.Err == nil || got.Err.Code != "rate_limited" || got.Err.RetryAfter.Milliseconds() != 1500 {
		t.Errorf("error result: %+v %v", got.Err, err)
	}
	for _, bad := range []string{`{"oops": 1}`, `not json`, `{"items": 3}`} {
		if _, err := toResult(w, w.Tool("get_contact"), text(bad, false)); err == nil {
			t.Errorf("%s was accepted as a record", bad)
		}
	}
	if _, err := toResult(w, w.Tool("get_contact"), text(`{"message": "no code"}`, true)); err == nil {
		t.Error("an error without a code was accepted")
	}
}

// seededCRM is the built-in CRM world seeded with seed (42 is its own).
func seededCRM(t *testing.T, seed uint64) (*engine.World, *engine.Base) {
	t.Helper()
	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(seed)
	if err != nil {
		t.Fatal(err)
	}
	return w, b
}
