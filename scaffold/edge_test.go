package scaffold

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"entityType": "entity_type", "showPetById": "show_pet_by_id", "get-weather": "get_weather",
		"HTTPServer": "http_server", "list.files": "list_files", "2fa_code": "x_2fa_code", "": "x", "já": "j",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFromMCPRefusesBadLists(t *testing.T) {
	if _, err := FromMCP("s", "s", "", "", nil); err == nil || !strings.Contains(err.Error(), "lists no tools") {
		t.Errorf("no tools: %v", err)
	}
	two := []*mcp.Tool{{Name: "a", InputSchema: map[string]any{"type": "object"}}, {Name: "a", InputSchema: map[string]any{"type": "object"}}}
	if _, err := FromMCP("s", "s", "", "", two); err == nil || !strings.Contains(err.Error(), `"a" is listed twice`) {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := FromMCP("s", "s", "", "", []*mcp.Tool{{Name: " "}}); err == nil || !strings.Contains(err.Error(), "has no name") {
		t.Errorf("nameless: %v", err)
	}
}

func TestFromOpenAPIRefusesNonsense(t *testing.T) {
	if _, err := FromOpenAPI("x.yaml", []byte("openapi: 3.0.0\ninfo: [1]\n")); err == nil || !strings.Contains(err.Error(), "x.yaml") {
		t.Errorf("bad document: %v", err)
	}
	if _, err := FromOpenAPI("x.yaml", []byte("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n")); err == nil || !strings.Contains(err.Error(), "no paths") {
		t.Errorf("no paths: %v", err)
	}
	if !IsOpenAPI([]byte("# c\nopenapi: 3.0.0\n")) || !IsOpenAPI([]byte(`{"openapi": "3.1.0"}`)) || IsOpenAPI([]byte(`{"tools": []}`)) {
		t.Error("IsOpenAPI")
	}
}

// A server that sends no annotations and no descriptions is read from its
// names and schemas; the draft still loads, and says what it guessed.
func TestBareServerStillScaffolds(t *testing.T) {
	obj := func(props map[string]any, req ...string) map[string]any {
		r := make([]any, len(req))
		for i, x := range req {
			r[i] = x
		}
		return map[string]any{"type": "object", "properties": props, "required": r}
	}
	s := map[string]any{"type": "string"}
	tools := []*mcp.Tool{
		{Name: "createTicket", InputSchema: obj(map[string]any{"title": s, "priority": map[string]any{"type": "string", "enum": []any{"low", "high"}}}, "title")},
		{Name: "updateTicket", InputSchema: obj(map[string]any{"ticketId": s, "priority": map[string]any{"type": "string", "enum": []any{"low", "high"}}}, "ticketId")},
		{Name: "closeTicket", Description: "Close a ticket.", InputSchema: obj(map[string]any{"ticketId": s}, "ticketId")},
		{Name: "deleteTicket", Description: "Delete a ticket.", InputSchema: obj(map[string]any{"ticketId": s}, "ticketId")},
		{Name: "echo", Description: "Echo the input.", InputSchema: obj(map[string]any{"message": s}, "message")},
	}
	src, err := FromMCP("bare.json", "bare", "", "", tools)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := d.World
	if w.Tool("update_ticket").Kind != "update" || w.Tool("delete_ticket").Kind != "delete" || w.Tool("close_ticket").Kind != "custom" {
		t.Errorf("kinds: update %s delete %s close %s", w.Tool("update_ticket").Kind, w.Tool("delete_ticket").Kind, w.Tool("close_ticket").Kind)
	}
	if w.Goal("update_ticket") == nil {
		t.Errorf("no goal for update vs delete; goals %v", goalNames(w))
	}
	if !strings.Contains(string(d.YAML), "check: the server sends no description") {
		t.Error("a tool without a description is not marked")
	}
	if !strings.Contains(string(d.YAML), "herd cannot tell what this tool changes") {
		t.Error("close_ticket's unknown effect is not marked")
	}
}

// Only read tools: no goal has a harmful rival, and one is still kept so
// the world runs.
func TestReadOnlyServerKeepsOneGoal(t *testing.T) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	tools := []*mcp.Tool{
		{Name: "list_books", Annotations: ro, InputSchema: map[string]any{"type": "object"},
			OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"books": map[string]any{"type": "array",
				"items": map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}}}}},
		{Name: "get_book", Annotations: ro, InputSchema: map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []any{"id"}}},
	}
	src, err := FromMCP("ro.json", "library", "1", "", tools)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.World.Goals) != 1 || !strings.Contains(string(d.YAML), "kept so the world runs") {
		t.Errorf("goals %v", goalNames(d.World))
	}
}

// A read-only tool with no output schema: what one call answered gives
// the record type, where the schemas alone give none.
func TestSampleAnswerGivesTypes(t *testing.T) {
	no := false
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	obj := map[string]any{"type": "object"}
	tools := []*mcp.Tool{
		{Name: "list_invoices", Description: "List invoices.", Annotations: ro, InputSchema: obj},
		{Name: "delete_invoice", Description: "Delete an invoice.", InputSchema: map[string]any{"type": "object",
			"properties": map[string]any{"invoice_id": map[string]any{"type": "string"}}, "required": []any{"invoice_id"}}},
		{Name: "send_invoice", Description: "Send an invoice.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}, InputSchema: obj},
	}
	src, err := FromMCP("inv.json", "billing", "1", "", tools)
	if err != nil {
		t.Fatal(err)
	}
	if !src.Ops[0].Sampleable() || src.Ops[1].Sampleable() || src.Ops[2].Sampleable() {
		t.Fatalf("sampleable: %v %v %v (only a read-only, closed-world tool without required args is)",
			src.Ops[0].Sampleable(), src.Ops[1].Sampleable(), src.Ops[2].Sampleable())
	}
	answer := map[string]any{"invoices": []any{
		map[string]any{"id": "in_1", "customer": "Ada Lovelace", "total": 1200.0, "paid": false, "due": "2026-03-01T00:00:00Z"},
		map[string]any{"id": "in_2", "customer": "Alan Turing", "total": 99.5, "paid": true, "note": "late"},
	}}
	if err := src.AddSample("list_invoices", answer); err != nil {
		t.Fatal(err)
	}
	if err := src.AddSample("nope", answer); err == nil {
		t.Error("a sample of an unknown tool is accepted")
	}
	d, err := Build(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	inv := d.World.Type("invoice")
	if inv == nil {
		t.Fatalf("no invoice type:\n%s", d.YAML)
	}
	for _, f := range []string{"customer", "total", "paid", "due", "note"} {
		if inv.Field(f) == nil {
			t.Errorf("invoice has no field %s", f)
		}
	}
	if ft := inv.Field("total").Type.String(); ft != "float" {
		t.Errorf("total is %s, want float (1200 and 99.5)", ft)
	}
	if !strings.Contains(string(d.YAML), "returned when herd called it") {
		t.Error("the type does not say it was read from an answer")
	}
}

// Names that collide once in snake case, a description longer than a
// world's strings may be, and a recursive-looking deep schema: the draft
// still loads.
func TestAwkwardToolLists(t *testing.T) {
	deep := map[string]any{"type": "string"}
	for i := 0; i < 40; i++ {
		deep = map[string]any{"type": "object", "properties": map[string]any{"child": deep}}
	}
	long := strings.Repeat("Deletes a thing. ", 2000)
	obj := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	id := map[string]any{"type": "string"}
	tools := []*mcp.Tool{
		{Name: "get-item", InputSchema: obj(map[string]any{"id": id})},
		{Name: "get_item", InputSchema: obj(map[string]any{"id": id})},
		{Name: "createItem", InputSchema: obj(map[string]any{"title": id, "nested": deep})},
		{Name: "updateItem", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"id": id, "title": id}, "required": []any{"id"}}},
		{Name: "delete_item", Description: long, InputSchema: map[string]any{"type": "object", "properties": map[string]any{"id": id}, "required": []any{"id"}}},
	}
	src, err := FromMCP("awkward.json", "awkward", "", "", tools)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.World.Tool("get_item") == nil || d.World.Tool("get_item_2") == nil {
		t.Errorf("tools %v", d.World.ToolNames())
	}
	texts := Texts(src)
	if texts[1].Tool != "get_item_2" {
		t.Errorf("descriptions name the second get_item %q, the world get_item_2", texts[1].Tool)
	}
}

// An OpenAPI document in JSON drafts the same world as in YAML.
func TestOpenAPIAsJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !IsOpenAPI(js) {
		t.Fatal("a JSON OpenAPI document is not recognised")
	}
	fromJSON, err := FromOpenAPI("petstore.yaml", js)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Build(fromJSON, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(petstoreSource(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.YAML, b.YAML) {
		t.Errorf("JSON and YAML drafts differ:\n%s", firstDiff(a.YAML, b.YAML))
	}
}
