package lint

import (
	"strings"
	"testing"
)

func TestTokenizersCountOffline(t *testing.T) {
	for _, c := range []struct {
		encoding string
		text     string
		want     int
	}{
		// Counts as the reference tokenizer gives them.
		{EncodingO200k, "hello world", 2},
		{EncodingCL100k, "hello world", 2},
		{EncodingCL100k, "tiktoken is great!", 6},
		{EncodingO200k, "", 0},
		// Special-token text is ordinary text, never a control token.
		{EncodingO200k, "<|endoftext|>", 7},
	} {
		tok, err := NewTokenizer(c.encoding)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Count(c.text); got != c.want {
			t.Errorf("%s %q: %d tokens, want %d", c.encoding, c.text, got, c.want)
		}
	}
	if _, err := NewTokenizer("p50k_base"); err == nil || !strings.Contains(err.Error(), "o200k_base, cl100k_base") {
		t.Errorf("an encoding herd does not ship: %v", err)
	}
}

func TestDefinitionIsWhatAModelIsSent(t *testing.T) {
	got := Definition(Tool{Name: "search_nodes", Description: "Find nodes <by> name & type.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}}})
	want := `{"name":"search_nodes","description":"Find nodes <by> name & type.","inputSchema":{"properties":{"query":{"type":"string"}},"type":"object"}}`
	if got != want {
		t.Errorf("definition\n got %s\nwant %s", got, want)
	}
	if got := Definition(Tool{Name: "ping"}); got != `{"name":"ping","description":"","inputSchema":{"type":"object"}}` {
		t.Errorf("a tool without a schema: %s", got)
	}
}

func TestTokenCostPerToolAndTotal(t *testing.T) {
	tok, err := NewTokenizer(DefaultEncoding)
	if err != nil {
		t.Fatal(err)
	}
	tools := []Tool{
		{Name: "ping", Description: "Check the server answers. Read-only."},
		{Name: "search_nodes", Description: strings.Repeat("Find nodes in the knowledge graph by name, type or observation. ", 5),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string", "description": "Words to match."}}}},
	}
	r := LintTools(tools, Options{Variant: "server", Tokenizer: tok})
	c := r.Tokens
	if c == nil || c.Encoding != EncodingO200k || len(c.Tools) != 2 {
		t.Fatalf("token cost: %+v", c)
	}
	for i, tt := range c.Tools {
		if want := tok.Count(Definition(tools[i])); tt.Tool != tools[i].Name || tt.Tokens != want {
			t.Errorf("tool %d: %+v, want %s with %d", i, tt, tools[i].Name, want)
		}
	}
	if c.Total != c.Tools[0].Tokens+c.Tools[1].Tokens || c.Tools[1].Tokens <= c.Tools[0].Tokens {
		t.Errorf("total %d of %+v", c.Total, c.Tools)
	}
	if l := c.Largest(1); len(l) != 1 || l[0].Tool != "search_nodes" {
		t.Errorf("largest: %+v", l)
	}
	if LintTools(tools, Options{Variant: "server"}).Tokens != nil {
		t.Error("counted without a tokenizer")
	}
}

func TestTokenThresholds(t *testing.T) {
	r := &Report{Variant: "clear", Tokens: &TokenCost{Encoding: EncodingO200k, Total: 900,
		Tools: []ToolTokens{{Tool: "a", Tokens: 400}, {Tool: "b", Tokens: 500}}}}
	for _, c := range []struct {
		spec   string
		tokens int
		pass   bool
	}{
		{"tokens<4000", 900, true},
		{" tokens < 900 ", 900, false},
		{"b:tokens<501", 500, true},
		{"a:tokens<400", 400, false},
	} {
		th, err := ParseTokenThreshold(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		v, err := th.Judge(r)
		if err != nil || v.Tokens != c.tokens || v.Pass != c.pass || v.Encoding != EncodingO200k || v.Variant != "clear" {
			t.Errorf("%s: %+v, %v; want %d tokens, pass %v", c.spec, v, err, c.tokens, c.pass)
		}
	}
	th, _ := ParseTokenThreshold("nope:tokens<10")
	if _, err := th.Judge(r); err == nil || !strings.Contains(err.Error(), `no tool "nope"`) {
		t.Errorf("an unknown tool: %v", err)
	}
	for _, bad := range []string{"tokens>10", "tokens<=10", "tokens<ten", "tokens<0", "harmful<5%", ":tokens<3", "tokens"} {
		if _, err := ParseTokenThreshold(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Chunked counting gives the encoder's own count for ordinary text, and
// bounds the work for a text without spaces.
func TestCountInChunks(t *testing.T) {
	tok, err := NewTokenizer(DefaultEncoding)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("Fetch one note by its id and return its title, body and tags; read-only.  Use it before  update_note. ", 400)
	if len(text) <= 4*countChunk {
		t.Fatalf("the text (%d bytes) does not span several chunks", len(text))
	}
	if got, want := tok.Count(text), len(tok.encoder().EncodeOrdinary(text)); got != want {
		t.Errorf("chunked count %d, the encoder's %d", got, want)
	}
	// A schema's JSON has long runs without a space.
	schema := Definition(Tool{Name: "add_observations", Description: "Add new observations to existing entities.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"observations": map[string]any{
			"type": "array", "description": "An array of observations to add, each with the entity's name and its contents",
			"items": map[string]any{"type": "object", "properties": map[string]any{
				"entityName": map[string]any{"type": "string", "description": "The name of the entity to add the observations to"},
				"contents":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "An array of observation contents to add"},
			}, "required": []any{"entityName", "contents"}, "additionalProperties": false}}},
			"required": []any{"observations"}, "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"}})
	for _, enc := range Encodings {
		tk, err := NewTokenizer(enc)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tk.Count(schema), len(tk.encoder().EncodeOrdinary(schema)); got != want {
			t.Errorf("%s: a definition with a schema: chunked count %d, the encoder's %d", enc, got, want)
		}
	}
	// A megabyte of one letter: merged piece by piece it would never end.
	if n := tok.Count(strings.Repeat("a", 1<<20)); n <= 0 || n > 1<<20 {
		t.Errorf("a megabyte without a space: %d tokens", n)
	}
	// Multi-byte characters are never cut in half.
	if n := tok.Count(strings.Repeat("é", 3*countChunk)); n <= 0 {
		t.Errorf("accented text: %d tokens", n)
	}
}
