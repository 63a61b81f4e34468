package lint

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/herd-sh/herd/internal/stemset"
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
	for _, f := range r.Findings {
		if n := len(f.Message) + len(f.Fix); n > 600 {
			t.Fatalf("%s %s: a finding of %d bytes (it names every look-alike?): %.200s", f.Tool, f.Dimension, n, f.Message)
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
// before each tool's words were read once; about 9 s after that; under a
// second of CPU since tools are grouped once and near-duplicates found
// through their rarest stems): go test -run '^$' -bench ManyLookAlikes -benchtime 1x ./lint
func BenchmarkLintManyLookAlikes(b *testing.B) {
	tools := manyLookAlikes(4000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		LintTools(tools, Options{World: "many", Variant: "clear"})
	}
}

// The near-duplicates found through the rarest stems are exactly those a
// comparison of every pair finds, in the same order and count.
func TestTwinsMatchEveryPairCompared(t *testing.T) {
	vocab := strings.Fields("fetch note order refund archive contact hide keep history")
	rng := rand.New(rand.NewPCG(7, 11))
	tools := make([]Tool, 300)
	for i := range tools {
		var ws []string
		for range 5 + rng.IntN(5) {
			ws = append(ws, vocab[rng.IntN(len(vocab))])
		}
		tools[i] = Tool{Name: fmt.Sprintf("tool_%d", i), Description: strings.Join(ws, " ") + "."}
	}
	ts := newToolSet(slices.Clone(tools), Options{})
	found, beyond := 0, 0
	for i := range ts.tools {
		tool := &ts.tools[i]
		got, more := ts.twins(tool)
		found += len(got)
		beyond += more
		var want []twin
		for j := range ts.tools {
			a, b := ts.stems[i], ts.stems[j]
			if j == i || len(a) == 0 || len(b) == 0 {
				continue
			}
			if ts.norm[i] == ts.norm[j] {
				want = append(want, twin{u: &ts.tools[j], at: j, j: 1, same: true})
			} else if jac := stemset.Jaccard(a, b); jac >= nearIdentical {
				want = append(want, twin{u: &ts.tools[j], at: j, j: jac})
			}
		}
		slices.SortStableFunc(want, func(x, y twin) int {
			switch {
			case closer(x, y):
				return -1
			case closer(y, x):
				return 1
			}
			return 0
		})
		if len(want) > maxTwinsNamed {
			want = want[:maxTwinsNamed]
		}
		if len(got) != len(want) || more != max(0, countTwins(ts, i)-len(want)) {
			t.Fatalf("%s: %d twins and %d more, want %d and %d", tool.Name, len(got), more, len(want), countTwins(ts, i)-len(want))
		}
		for k := range got {
			if got[k].u != want[k].u || got[k].same != want[k].same {
				t.Errorf("%s: twin %d is %s, want %s", tool.Name, k, got[k].u.Name, want[k].u.Name)
			}
		}
	}
	t.Logf("%d twins named, %d beyond", found, beyond)
	if found == 0 || beyond == 0 {
		t.Fatalf("the tool set has %d twins named and %d beyond: it tests nothing", found, beyond)
	}
}

// countTwins counts tool i's same or near-same tools by comparing every pair.
func countTwins(ts *toolSet, i int) int {
	n := 0
	for j := range ts.tools {
		a, b := ts.stems[i], ts.stems[j]
		if j != i && len(a) > 0 && len(b) > 0 && (ts.norm[i] == ts.norm[j] || stemset.Jaccard(a, b) >= nearIdentical) {
			n++
		}
	}
	return n
}
