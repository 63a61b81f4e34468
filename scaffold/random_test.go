package scaffold

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Random tool lists, built from the words and shapes real servers use
// (150 here; 3,000 were run once when it was written, all passing):
// the scaffolder never panics, and what it returns always loads (Build
// loads the draft, so an engine refusal would be an error here). A list
// with no tool herd can judge may be refused, with a message.
func TestRandomToolListsScaffold(t *testing.T) {
	verbs := []string{"get", "list", "search", "create", "add", "update", "set", "delete", "remove", "archive", "cancel", "send", "open", "read", "write", "move", "echo", "toggle", "run"}
	nouns := []string{"user", "users", "order", "orders", "file", "files", "note", "entity", "entities", "item", "status", "info", "by_id", "tree", "all", "relation"}
	propNames := []string{"id", "name", "title", "email", "status", "total", "amount", "path", "query", "limit", "userId", "orderId", "note", "tags", "items", "createdAt", "from", "to", "type", "in", "enabled", "content", "data"}
	scalar := func(r *rand.Rand) map[string]any {
		switch r.IntN(7) {
		case 0:
			return map[string]any{"type": "integer", "minimum": float64(r.IntN(3)), "maximum": float64(10 + r.IntN(100))}
		case 1:
			return map[string]any{"type": "number"}
		case 2:
			return map[string]any{"type": "boolean"}
		case 3:
			return map[string]any{"type": "string", "enum": []any{"a", "b", "c"}[:1+r.IntN(3)]}
		case 4:
			return map[string]any{"type": "string", "format": "date-time"}
		case 5:
			return map[string]any{"type": []any{"string", "null"}}
		}
		return map[string]any{"type": "string", "description": "the " + propNames[r.IntN(len(propNames))]}
	}
	var object func(r *rand.Rand, depth int) map[string]any
	object = func(r *rand.Rand, depth int) map[string]any {
		props := map[string]any{}
		var req []any
		for i := 0; i < r.IntN(5); i++ {
			n := propNames[r.IntN(len(propNames))]
			switch {
			case depth < 2 && r.IntN(6) == 0:
				props[n] = map[string]any{"type": "array", "items": object(r, depth+1)}
			case depth < 2 && r.IntN(8) == 0:
				props[n] = object(r, depth+1)
			case r.IntN(6) == 0:
				props[n] = map[string]any{"type": "array", "items": scalar(r)}
			default:
				props[n] = scalar(r)
			}
			if r.IntN(2) == 0 {
				req = append(req, n)
			}
		}
		return map[string]any{"type": "object", "properties": props, "required": req}
	}
	for seed := uint64(0); seed < 150; seed++ {
		r := rand.New(rand.NewPCG(seed, 16))
		var tools []*mcp.Tool
		seen := map[string]bool{}
		for i := 0; i < 1+r.IntN(8); i++ {
			name := verbs[r.IntN(len(verbs))] + "_" + nouns[r.IntN(len(nouns))]
			if r.IntN(4) == 0 {
				name = strings.ReplaceAll(name, "_", "-")
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			tool := &mcp.Tool{Name: name, InputSchema: object(r, 0)}
			if r.IntN(3) > 0 {
				tool.Description = "Does " + strings.ReplaceAll(name, "_", " ") + "."
			}
			if r.IntN(2) == 0 {
				b := r.IntN(2) == 0
				tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: r.IntN(2) == 0, DestructiveHint: &b, IdempotentHint: r.IntN(2) == 0}
			}
			if r.IntN(3) == 0 {
				tool.OutputSchema = map[string]any{"type": "object", "properties": map[string]any{
					nouns[r.IntN(len(nouns))]: map[string]any{"type": "array", "items": object(r, 1)}}}
			}
			tools = append(tools, tool)
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			src, err := FromMCP("random.json", fmt.Sprintf("random-%d", seed), "", "", tools)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Build(src, Options{})
			if err != nil {
				if strings.Contains(err.Error(), "does not load") {
					t.Fatalf("%v", err)
				}
				return
			}
			if len(d.World.Goals) == 0 {
				t.Fatal("a draft without goals")
			}
		})
	}
}
