package lint

import (
	"fmt"
	"testing"
	"time"
)

// 4,000 near-identical tools (a world or a server from elsewhere) are
// linted in seconds, not minutes: each tool's words are read once, and a
// tool's findings name at most maxTwinsNamed look-alikes, counting the rest.
func TestManyLookAlikeToolsLintFast(t *testing.T) {
	tools := make([]Tool, 4000)
	for i := range tools {
		tools[i] = Tool{Name: fmt.Sprintf("get_note_%d", i), Kind: "get", Record: "note",
			Description: fmt.Sprintf("Fetch one note by its id and return its title and body, read-only, variant %d.", i),
			Params:      []Param{{Name: "id", Type: "str", Required: true, Description: "Note id, e.g. n_0001."}}}
	}
	start := time.Now()
	r := LintTools(tools, Options{World: "many", Variant: "clear"})
	took := time.Since(start)
	t.Logf("4,000 tools linted in %s", took.Round(time.Millisecond))
	// About 6 s on a shared 2-core machine; 310 s before. The bound is
	// loose so that a loaded CI runner does not fail it, tight enough that
	// the quadratic re-tokenizing cannot come back unnoticed.
	if took > 30*time.Second {
		t.Errorf("linting 4,000 tools took %s, want well under 30 s", took)
	}
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
