package lint

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/herd-sh/herd/worlds"
)

var updateTokens = flag.Bool("update-tokens", false, "rewrite tokencounts.json from the encoder")

// builtinDefinitions are the definitions of every built-in world's tools
// under every variant: what a run on a built-in world counts.
func builtinDefinitions(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, name := range worlds.Names() {
		w, err := worlds.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range w.Variants {
			for _, tool := range FromWorld(w, v, nil) {
				out = append(out, Definition(tool))
			}
		}
	}
	return out
}

// The table of known counts holds exactly what the encoder counts, for
// every tool definition of every built-in world, variant and encoding: a
// table hit and a real count are the same number.
func TestKnownTokenCounts(t *testing.T) {
	defs := builtinDefinitions(t)
	want := map[string]int{}
	for _, enc := range Encodings {
		tok, err := NewTokenizer(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range defs {
			want[countKey(enc, d)] = tok.count(d)
		}
	}
	if *updateTokens {
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetIndent("", " ")
		if err := e.Encode(want); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("tokencounts.json", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	var got map[string]int
	if err := json.Unmarshal(tokenCountsJSON, &got); err != nil {
		t.Fatalf("tokencounts.json: %v", err)
	}
	for k, n := range want {
		if m, ok := got[k]; !ok || m != n {
			t.Fatalf("tokencounts.json is out of date (%s: %d, the encoder counts %d): run go test ./lint -run TestKnownTokenCounts -update-tokens", k, m, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("tokencounts.json has %d counts, the built-in worlds %d: regenerate it", len(got), len(want))
	}
}

// A text the table does not hold is counted by the encoder.
func TestUnknownTextIsCounted(t *testing.T) {
	tok, err := NewTokenizer(DefaultEncoding)
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.Count("hello world, a text no built-in world has"); n < 5 || n > 15 {
		t.Errorf("count %d", n)
	}
}
