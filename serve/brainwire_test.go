package serve

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/brain"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/worlds"
)

// A model-backed agent reads a tool's result as the same bytes an MCP
// client of the served world reads: brain.ResultJSON and toolResult agree
// on values, lists, deletions and errors with and without retry-after.
func TestModelReadsWhatServeSends(t *testing.T) {
	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	s := b.NewSession(1, nil)
	results := []engine.Result{
		s.Call("get_contact", map[string]any{"id": "c_0001"}),
		s.Call("list_contacts", map[string]any{"limit": 3.0}),
		s.Call("get_contact", map[string]any{"id": "nobody"}),
		s.Call("delete_contact", map[string]any{"id": "c_0002"}),
		{Err: &engine.ToolError{Code: "rate_limited", Message: "slow down", RetryAfter: 1500 * time.Microsecond}},
	}
	for i := range results {
		r := &results[i]
		want := toolResult(r).Content[0].(*mcp.TextContent).Text
		if got := string(brain.ResultJSON(r)); got != want {
			t.Errorf("result %d: the model reads\n%s\nan MCP client reads\n%s", i, got, want)
		}
	}
}
