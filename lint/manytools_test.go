package lint

import (
	"fmt"
	"testing"
)

// manyLookAlikes is n near-identical tools: a world or a server from
// elsewhere that repeats one tool.
func manyLookAlikes(n int) []Tool {
	tools := make([]Tool, n)
	for i := range tools {
		tools[i] = Tool{Name: fmt.Sprintf("get_note_%d", i), Kind: "get", Record: "note",
			Description: fmt.Sprintf("Fetch one note by its id and return its title and body, read-only, variant %d.", i),
			Params:      []Param{{Name: "id", Type: "str", Required: true, Description: "Note id, e.g. n_0001."}}}
	}
	return tools
}

// Many near-identical tools give each tool at most maxTwinsNamed named
// look-alikes and one "and N more" finding: the output stays linear in the
// tools, whatever their number. (How long 4,000 take is BenchmarkLintManyLookAlikes.)
func TestManyLookAlikeToolsAreSummarized(t *testing.T) {
	tools := manyLookAlikes(400)
	r := LintTools(tools, Options{World: "many", Variant: "clear"})
	per := map[string]int{}
	more := 0
	for _, f := range r.Findings {
		if f.Dimension == DimDisambiguation {
			per[f.Tool]++
			if f.Message == fmt.Sprintf("and %d more tools read the same or nearly the same", len(tools)-1-maxTwinsNamed) {
				more++
			}
		}
	}
	for tool, n := range per {
		if n > maxTwinsNamed+1 {
			t.Fatalf("%s has %d disambiguation findings, want at most %d", tool, n, maxTwinsNamed+1)
		}
	}
	if more != len(tools) {
		t.Errorf("%d tools say how many more look alike, want all %d", more, len(tools))
	}
}

// BenchmarkLintManyLookAlikes lints 4,000 near-identical tools (310 s
// before each tool's words were read once; about 9 s on a shared 2-core
// machine after): go test -run '^$' -bench ManyLookAlikes -benchtime 1x ./lint
func BenchmarkLintManyLookAlikes(b *testing.B) {
	tools := manyLookAlikes(4000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		LintTools(tools, Options{World: "many", Variant: "clear"})
	}
}
