package swarm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
)

// The aggregator of a run against a server with many tools keeps its
// trace sample bounded, with room for every tool × class four times over
// (so it is not cut back, a sort, on every episode), and keeps the lowest
// agents of each.
func TestExternalAggregatorKeepsLowestAgentsPerClass(t *testing.T) {
	const tools, agents = 40, 20_000
	var ts []*mcp.Tool
	for k := range tools {
		ts = append(ts, &mcp.Tool{Name: fmt.Sprintf("tool%02d", k)})
	}
	l := newExternalLayout(ts)
	l.trace = func(r *AgentResult, v int) (report.Trace, error) {
		return ToReportTrace(r.Index, r.Seed, ExternalVariant, r.Outcomes[v], ""), nil
	}
	a := newAggregator(l)
	bound := 4 * report.TracesPerClass * len(a.traceMax)
	if bound < 4*report.TracesPerClass*tools*len(personas.ExternalClasses) {
		t.Fatalf("bound %d cannot hold the %d tool × class samples four times over", bound, tools*len(personas.ExternalClasses))
	}
	classes := []string{"answered", "rejected_clearly", "tool_error"}
	for i := agents - 1; i >= 0; i-- { // highest first: the sample must replace what it kept
		tool := i % tools
		o := personas.Outcome{Class: classes[(i/tools)%len(classes)],
			Trace: &personas.Trace{Goal: ts[tool].Name, Persona: personas.PersonaExerciser}}
		if err := a.Add(&AgentResult{Index: i, Goal: tool, Outcomes: []personas.Outcome{o}}); err != nil {
			t.Fatal(err)
		}
		if len(a.traces) > bound {
			t.Fatalf("after %d episodes the sample holds %d traces, bound %d", agents-i, len(a.traces), bound)
		}
	}
	r := report.Results{Traces: a.traces}
	r.Normalize()
	kept := map[string][]int{}
	for _, tr := range r.Traces {
		k := tr.Goal + "/" + tr.Class
		kept[k] = append(kept[k], tr.Agent)
	}
	if len(kept) != tools*len(classes) {
		t.Fatalf("%d tool × class samples, want %d", len(kept), tools*len(classes))
	}
	for k, got := range kept {
		tool, class, _ := strings.Cut(k, "/")
		var want []int
		for i := 0; i < agents && len(want) < report.TracesPerClass; i++ {
			if fmt.Sprintf("tool%02d", i%tools) == tool && classes[(i/tools)%len(classes)] == class {
				want = append(want, i)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: kept agents %v, want the lowest %v", k, got, want)
		}
	}
	if a.Episodes() != agents || a.Agents()[0] != agents {
		t.Errorf("counted %d episodes, %v agents per persona; want %d", a.Episodes(), a.Agents(), agents)
	}
}
