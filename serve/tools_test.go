package serve

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// TestListTools checks that every world tool is listed with the chosen
// variant's description, the params' schema and the annotations.
func TestListTools(t *testing.T) {
	w := loadCRM(t)
	for _, variant := range w.Variants {
		t.Run(variant, func(t *testing.T) {
			s := newTestServer(t, Options{Seed: w.DefaultSeed, Variant: variant})
			cs := connectMemory(t, s, "mem")
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != len(w.Tools) {
				t.Fatalf("listed %d tools, world has %d", len(res.Tools), len(w.Tools))
			}
			listed := map[string]*mcp.Tool{}
			for _, tool := range res.Tools {
				listed[tool.Name] = tool
			}
			for _, et := range w.Tools {
				lt := listed[et.Name]
				if lt == nil {
					t.Fatalf("tool %s not listed", et.Name)
				}
				if lt.Description != et.Description(variant) {
					t.Errorf("%s: description %q, want %q", et.Name, lt.Description, et.Description(variant))
				}
				if !sameJSON(t, lt.InputSchema, et.InputSchema()) {
					got, _ := json.Marshal(lt.InputSchema)
					want, _ := json.Marshal(et.InputSchema())
					t.Errorf("%s: schema\n got %s\nwant %s", et.Name, got, want)
				}
				a := lt.Annotations
				if a == nil || a.ReadOnlyHint != et.Annotations.ReadOnly || a.IdempotentHint != et.Annotations.Idempotent ||
					a.DestructiveHint == nil || *a.DestructiveHint != et.Annotations.Destructive ||
					a.OpenWorldHint == nil || *a.OpenWorldHint != et.Annotations.OpenWorld {
					t.Errorf("%s: annotations %+v, want %+v", et.Name, a, et.Annotations)
				}
			}
			// The variants must differ, or this test shows nothing.
			if w.Tool("delete_contact").Description("clear") == w.Tool("delete_contact").Description("ambiguous") {
				t.Fatal("crm's variants describe delete_contact the same way")
			}
			if !listed["delete_contact"].Annotations.ReadOnlyHint && !*listed["delete_contact"].Annotations.DestructiveHint {
				t.Error("delete_contact should be destructive")
			}
			if !listed["get_contact"].Annotations.ReadOnlyHint {
				t.Error("get_contact should be read-only")
			}
		})
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}

// TestCallsMatchEngine runs the same calls in-process and over MCP: every
// answer, success or error, must be the engine's result as JSON.
func TestCallsMatchEngine(t *testing.T) {
	w := loadCRM(t)
	s := newTestServer(t, Options{Seed: w.DefaultSeed})
	cs := connectMemory(t, s, "mem")

	base, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	locked, open := "", ""
	for _, r := range base.Records(w.Type("contact")) {
		if r.Get("locked") == true && locked == "" {
			locked = r.ID()
		}
		if r.Get("locked") == false && r.Get("archived") == false && open == "" {
			open = r.ID()
		}
	}

	type answer struct {
		text  string
		isErr bool
	}
	calls := []toolCall{
		{"get_contact", map[string]any{"id": open}},
		{"get_contact", map[string]any{"id": "c_9999"}},
		{"list_contacts", map[string]any{"stage": "customer", "limit": 3}},
		{"search_contacts", map[string]any{"query": "a"}},
		{"archive_contact", map[string]any{"id": locked}},
		{"archive_contact", map[string]any{"id": open}},
		{"update_contact", map[string]any{"id": open, "phone": "+1 555 0111", "expected_version": 1}},
		{"update_contact", map[string]any{"id": open, "phone": "+1 555 0111", "expected_version": 2}},
		{"create_contact", map[string]any{"name": "Ada Lovelace", "email": "ada@example.com"}},
		{"delete_contact", map[string]any{"id": open}},
		// Bad arguments are tool errors the agent can read, not protocol errors.
		{"get_contact", map[string]any{"id": 42}},
		{"get_contact", map[string]any{}},
		{"get_contact", map[string]any{"id": open, "verbose": true}},
		{"list_contacts", map[string]any{"limit": 1.5}},
		{"list_contacts", map[string]any{"limit": 1000}},
		{"list_contacts", map[string]any{"stage": "prospect"}},
		{"search_contacts", map[string]any{"query": strings.Repeat("x", 20_000)}},
	}
	codes := []string{"", "not_found", "", "", "locked", "", "stale_write", "", "", "",
		"invalid_argument", "invalid_argument", "invalid_argument", "invalid_argument", "invalid_argument", "invalid_argument", "invalid_argument"}
	var got []answer
	for i, c := range calls {
		text, isErr := call(t, cs, c.tool, c.args)
		got = append(got, answer{text, isErr})
		if (codes[i] != "") != isErr {
			t.Fatalf("call %d %s: isError=%v, want error %q: %s", i, c.tool, isErr, codes[i], text)
		}
		if codes[i] != "" {
			if code := errorCode(t, text); code != codes[i] {
				t.Fatalf("call %d %s: code %q, want %q: %s", i, c.tool, code, codes[i], text)
			}
		}
	}

	ws := s.sessions.lookup("mem")
	if ws == nil {
		t.Fatal("session mem not registered")
	}
	journal, _, err := ws.journal()
	if err != nil {
		t.Fatal(err)
	}
	ref, results := replay(t, base, ws.key, nil, calls, parseJournal(t, journal))
	for i, res := range results {
		want, wantErr := engineText(t, res)
		if got[i].text != want || got[i].isErr != wantErr {
			t.Fatalf("call %d %s(%v):\n got %v %s\nwant %v %s", i, calls[i].tool, calls[i].args, got[i].isErr, got[i].text, wantErr, want)
		}
	}
	if string(ws.state()) != string(ref.StateJSON()) {
		t.Fatalf("served state differs from the in-process replay")
	}
	if ws.info().Calls != len(calls) {
		t.Fatalf("session made %d calls, want %d (refused arguments must count)", ws.info().Calls, len(calls))
	}
}

// TestProtocolErrors checks that what is not a tool call at all — an unknown
// tool, arguments that are not an object — is a protocol error, and that
// the session keeps working afterwards.
func TestProtocolErrors(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42})
	cs := connectMemory(t, s, "mem")
	ctx := context.Background()

	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "drop_database", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "drop_database") {
		t.Fatalf("unknown tool: want invalid-params protocol error naming it, got %v", err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_contact", Arguments: []any{"c_0001"}})
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "JSON object") {
		t.Fatalf("array arguments: want invalid-params protocol error, got %v", err)
	}
	if text, isErr := call(t, cs, "get_contact", map[string]any{"id": "c_0001"}); isErr {
		t.Fatalf("session broken after protocol errors: %s", text)
	}
	// Neither protocol error reached the engine.
	if n := s.sessions.lookup("mem").info().Calls; n != 1 {
		t.Fatalf("engine saw %d calls, want 1", n)
	}
}

// TestResources reads world://crm and world://crm/schema.
func TestResources(t *testing.T) {
	w := loadCRM(t)
	s := newTestServer(t, Options{Seed: 7, Variant: "ambiguous", Faults: "hostile"})
	cs := connectMemory(t, s, "mem")
	ctx := context.Background()

	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	if strings.Join(uris, " ") != "world://crm world://crm/schema" {
		t.Fatalf("resources: %v", uris)
	}

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "world://crm"})
	if err != nil {
		t.Fatal(err)
	}
	var doc control.WorldDoc
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.World != "crm" || doc.Seed != 7 || doc.Variant != "ambiguous" || doc.Faults != "hostile" || doc.Hash != w.Hash || len(doc.Tools) != len(w.Tools) {
		t.Fatalf("world doc: %+v", doc)
	}
	if doc.Tools[0].Description != w.Tools[0].Description("ambiguous") {
		t.Fatalf("world doc shows description %q", doc.Tools[0].Description)
	}

	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "world://crm/schema"})
	if err != nil {
		t.Fatal(err)
	}
	var schema schemaDoc
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Types) != 2 || schema.Types[0].Name != "contact" || schema.Types[0].Count != 240 {
		t.Fatalf("schema: %+v", schema)
	}
	fields := map[string]FieldDoc{}
	for _, f := range schema.Types[0].Fields {
		fields[f.Name] = f
	}
	if f := fields["stage"]; f.Type != "enum" || strings.Join(f.Values, ",") != "lead,customer,churned" {
		t.Fatalf("stage field: %+v", f)
	}
	if f := schema.Types[1].Fields[1]; f.Name != "contact" || f.Type != "ref" || f.Ref != "contact" {
		t.Fatalf("audit.contact field: %+v", f)
	}
	// How seeding fills a field is part of the schema: the generator, and
	// how often a bool starts true.
	if f := fields["name"]; f.Gen != "person_name" || f.P != nil {
		t.Fatalf("name field: %+v", f)
	}
	if f := fields["locked"]; f.P == nil || *f.P != 0.15 || f.Default != false {
		t.Fatalf("locked field: %+v", f)
	}

	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "world://shop"}); err == nil {
		t.Fatal("reading an unknown resource succeeded")
	}
}

// TestContainPanics: a panicking handler fails its own request only.
func TestContainPanics(t *testing.T) {
	s := newTestServer(t, Options{Seed: 1})
	h := ContainPanics(s.log)(func(context.Context, string, mcp.Request) (mcp.Result, error) { panic("boom") })
	res, err := h(context.Background(), "tools/call", nil)
	var werr *jsonrpc.Error
	if res != nil || !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError {
		t.Fatalf("want internal error, got %v, %v", res, err)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	w := loadCRM(t)
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{}, "no world"},
		{Options{World: w, Variant: "terse"}, `no description variant "terse" (have: clear, ambiguous)`},
		{Options{World: w, Faults: "chaos"}, `world crm has no fault profile "chaos" (it has none, realistic, hostile)`},
	} {
		_, err := New(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v, want %q", tc.opts, err, tc.want)
		}
	}
}
