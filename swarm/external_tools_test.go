package swarm

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm/target"
)

// Which tools an external run calls: read-only ones; writes with
// AllowWrites; tools that may reach the open world (the hint true, or
// absent on a tool that is not read-only: the spec's default) only with
// AllowOpenWorld; and only those the patterns keep.
func TestExternalToolSelection(t *testing.T) {
	yes, no := true, false
	tools := []*mcp.Tool{
		{Name: "read_file", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}},
		{Name: "read_url", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes}},
		{Name: "list_notes", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, // no hint, read-only: closed
		{Name: "write_file", Annotations: &mcp.ToolAnnotations{OpenWorldHint: &no}},
		{Name: "post_tweet"}, // no annotations: may write, open world
	}
	u, _ := url.Parse("http://127.0.0.1:1/mcp")
	base := ExternalConfig{Target: target.ExternalHTTP(u, nil, target.Options{}), Tools: tools}
	for _, c := range []struct {
		name  string
		cfg   func(*ExternalConfig)
		calls string
	}{
		{"default", func(*ExternalConfig) {}, "list_notes read_file"},
		{"writes", func(c *ExternalConfig) { c.AllowWrites = true }, "list_notes read_file write_file"},
		{"open world", func(c *ExternalConfig) { c.AllowOpenWorld = true }, "list_notes read_file read_url"},
		{"both", func(c *ExternalConfig) { c.AllowWrites, c.AllowOpenWorld = true, true }, "list_notes post_tweet read_file read_url write_file"},
		{"patterns", func(c *ExternalConfig) {
			c.AllowWrites, c.Select, c.Skip = true, []string{"*_file", "list_*"}, []string{"write_*"}
		}, "list_notes read_file"},
	} {
		cfg := base
		c.cfg(&cfg)
		var called []string
		for _, tl := range tools {
			if cfg.whyNot(tl) == "" {
				called = append(called, tl.Name)
			}
		}
		if got := strings.Join(slices.Sorted(slices.Values(called)), " "); got != c.calls {
			t.Errorf("%s: calls %q, want %q", c.name, got, c.calls)
		}
	}
	cfg := base
	cfg.AllowWrites = true
	if r := cfg.whyNot(tools[4]); r != report.SkipOpenWorld {
		t.Errorf("an unannotated tool with writes allowed: %q, want %s", r, report.SkipOpenWorld)
	}
	if r := base.whyNot(tools[4]); r != report.SkipWrites {
		t.Errorf("an unannotated tool: %q, want %s first", r, report.SkipWrites)
	}
	for _, bad := range [][]string{{"nosuch_*"}, {"[a"}} {
		cfg := base
		cfg.Skip = bad
		if err := cfg.checkPatterns(); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("pattern %q: %v", bad[0], err)
		}
	}
}
