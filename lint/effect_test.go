package lint

import (
	"strings"
	"testing"
)

// mcpHints are annotations as a server sends them, with MCP's defaults
// for what it leaves out: destructiveHint true unless given.
func mcpHints(readOnly bool, destructive *bool) *Annotations {
	a := &Annotations{ReadOnly: readOnly, Destructive: true, OpenWorld: true}
	if destructive != nil {
		a.Destructive, a.DestructiveGiven = *destructive, true
	}
	return a
}

func TestEffectClassesOfServerTools(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		tool Tool
		want Effect
	}{
		// Annotations first.
		{Tool{Name: "read_graph", Description: "Read the entire knowledge graph.", Annotations: mcpHints(true, nil)}, EffectRead},
		{Tool{Name: "open_nodes", Description: "Open specific nodes in the knowledge graph by their names.", Annotations: mcpHints(true, nil)}, EffectRead},
		{Tool{Name: "directory_tree", Description: "Get a recursive tree view of files and directories.", Annotations: mcpHints(true, &yes)}, EffectRead},
		{Tool{Name: "write_file", Description: "Create a new file or overwrite an existing one.", Annotations: mcpHints(false, &yes)}, EffectDestructive},
		{Tool{Name: "tag_note", Description: "Tag a note.", Annotations: mcpHints(false, &no)}, EffectWrite},
		// No hint that says anything: the name, then the text.
		{Tool{Name: "delete_entities", Description: "Delete multiple entities."}, EffectDestructive},
		{Tool{Name: "create_entities", Description: "Create multiple new entities.", Annotations: mcpHints(false, nil)}, EffectWrite},
		{Tool{Name: "directory_tree", Description: "Get a recursive tree view of files and directories."}, EffectRead},
		{Tool{Name: "status", Description: "Reports the service status. Read-only."}, EffectRead},
		// Verbs herd does not know, and texts that do not say: unknown,
		// not a write.
		{Tool{Name: "echo", Description: "Echoes back the input."}, EffectUnknown},
		{Tool{Name: "open_nodes", Description: "Open specific nodes in the knowledge graph by their names."}, EffectUnknown},
		{Tool{Name: "sequentialthinking", Description: "A detailed tool for dynamic and reflective problem-solving through thoughts."}, EffectUnknown},
		{Tool{Name: "echo", Description: "Echoes back the input.", Annotations: mcpHints(false, nil)}, EffectUnknown},
	} {
		r := LintTools([]Tool{c.tool}, Options{Variant: "server"})
		if got := r.Tools[0].Effect; got != c.want {
			t.Errorf("%s (%q, %+v): effect %s, want %s", c.tool.Name, c.tool.Description, c.tool.Annotations, got, c.want)
		}
	}
}

// MCP's destructiveHint defaults to true but means nothing for a
// read-only tool: a read-only tool that leaves it out (or sets it) is
// not destructive and draws no destructive finding; nor does its
// idempotentHint count.
func TestReadOnlyToolsAreNeverDestructive(t *testing.T) {
	yes := true
	for _, a := range []*Annotations{mcpHints(true, nil), mcpHints(true, &yes), {ReadOnly: true, Destructive: true, Idempotent: true, OpenWorld: true}} {
		tools := []Tool{{Name: "list_allowed_directories", Description: "Returns the list of directories this server may read. Use this first to learn where files can be found. Read-only.", Annotations: a},
			{Name: "open_nodes", Description: "Open specific nodes in the knowledge graph by their names. Read-only.", Annotations: a,
				Params: []Param{{Name: "names", Type: "array", Required: true, Description: "Entity names to open, e.g. ['Ada']."}}}}
		r := LintTools(tools, Options{Variant: "server"})
		for _, f := range r.Findings {
			if strings.Contains(f.Message, "destructive") || strings.Contains(f.Message, "erase") || f.Level == LevelError {
				t.Errorf("%+v: %s %s: %s", a, f.Tool, f.Level, f.Message)
			}
		}
		for _, ts := range r.Tools {
			if ts.Effect != EffectRead {
				t.Errorf("%+v: %s is %s, want read", a, ts.Tool, ts.Effect)
			}
		}
	}
}

// A tool of unknown effect is said to be unknown, and draws no error.
func TestUnknownEffectIsSaidNotGuessed(t *testing.T) {
	for _, a := range []*Annotations{nil, mcpHints(false, nil)} {
		r := LintTools([]Tool{{Name: "echo", Description: "Echoes back the input.",
			Params: []Param{{Name: "message", Type: "string", Required: true, Description: "The text to echo."}}, Annotations: a}},
			Options{Variant: "server"})
		for _, f := range r.Findings {
			if f.Level == LevelError {
				t.Errorf("annotations %+v: an error about a tool of unknown effect: %s: %s", a, f.Dimension, f.Message)
			}
			if strings.Contains(f.Message, "changes data") || strings.Contains(f.Message, "does not say what it changes") {
				t.Errorf("annotations %+v: taken for a write: %s", a, f.Message)
			}
		}
		if a == nil {
			wantFinding(t, r, "echo", DimAnnotations, LevelWarning, "its effect is unknown")
		}
		wantFinding(t, r, "echo", DimSideEffects, LevelInfo, "effect is unknown")
	}
}

// The hints are still checked against what the name says: a delete
// marked read-only, and a delete that says it is not destructive, are
// errors.
func TestHintsThatContradictTheNameAreErrors(t *testing.T) {
	no := false
	r := LintTools([]Tool{
		{Name: "delete_file", Description: "Delete a file permanently. This cannot be undone.", Annotations: mcpHints(true, nil)},
		{Name: "purge_cache", Description: "Purge the cache for good; it cannot be undone.", Annotations: mcpHints(false, &no)},
		{Name: "send_email", Description: "Send an email to one address; it is sent at once.", Annotations: mcpHints(true, nil)},
	}, Options{Variant: "server"})
	wantFinding(t, r, "delete_file", DimAnnotations, LevelError, "marked read-only")
	wantFinding(t, r, "purge_cache", DimAnnotations, LevelError, "not marked destructive")
	wantFinding(t, r, "send_email", DimAnnotations, LevelError, "its name says send, which changes data, but is marked read-only")
}
