package lint

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/herd-sh/herd/internal/yamlpos"

	"go.yaml.in/yaml/v3"

	"github.com/herd-sh/herd/engine"
)

// A descriptions file holds a user's own wordings of a world's tools, to
// lint them or to run a swarm with them instead of the world's:
//
//	delete_contact: "Permanently delete a contact. This cannot be undone."
//	archive_contact:
//	  ambiguous: "Archive a contact: hides it, keeps its history."
//	  better:    "Hide a contact but keep its history. Reversible."
//
// A plain text applies under every variant. A mapping gives text per
// variant. A variant the world does not have (better, above) defines a new
// one; then every tool written as a mapping must name it, so that a new
// variant is never half-written by accident. Under a new variant, tools
// the file does not give keep the world's default (first) variant's text.

// maxDescriptionsFile bounds a descriptions file: a few dozen tools of a
// few hundred characters each.
const maxDescriptionsFile = 1 << 20

// LoadDescriptions reads a descriptions file for world w and returns the
// texts per variant: variant → tool → text. Every variant of the world is
// present (with no entries when the file gives none for it), plus any new
// variant the file defines.
func LoadDescriptions(path string, w *engine.World) (map[string]map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("descriptions %s: %w", path, err)
	}
	return ParseDescriptions(path, data, w)
}

// ParseDescriptions is LoadDescriptions on bytes; name is what errors are
// reported against. Every problem is reported, each as file:line:col:
// message (an *engine.LoadError, like a world file's or a persona pack's).
func ParseDescriptions(name string, data []byte, w *engine.World) (map[string]map[string]string, error) {
	p := &descParser{world: w}
	out := p.parse(data)
	if len(p.problems) > 0 {
		return nil, &engine.LoadError{File: name, Problems: p.problems}
	}
	return out, nil
}

// VariantNames lists the variants of a descriptions result in a stable
// order: the world's, then new ones alphabetically.
func VariantNames(w *engine.World, descs map[string]map[string]string) []string {
	out := slices.Clone(w.Variants)
	var extra []string
	for v := range descs {
		if !w.HasVariant(v) {
			extra = append(extra, v)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

type descParser struct {
	world    *engine.World
	problems []engine.Problem
}

func (p *descParser) errAt(n *yaml.Node, format string, args ...any) {
	p.problemAt(n.Line, n.Column, fmt.Sprintf(format, args...))
}

func (p *descParser) problemAt(line, col int, msg string) {
	p.problems = append(p.problems, engine.Problem{Pos: engine.Pos{Line: line, Col: col}, Msg: msg})
}

// perVariant is one tool written as a mapping of variant → text.
type perVariant struct {
	tool  string
	node  *yaml.Node
	texts map[string]string
}

func (p *descParser) parse(data []byte) map[string]map[string]string {
	if len(data) > maxDescriptionsFile {
		p.problemAt(1, 1, fmt.Sprintf("file is %d bytes; a descriptions file may be at most %d", len(data), maxDescriptionsFile))
		return nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, col, msg := yamlpos.SyntaxError(err, data)
		p.problemAt(line, col, "YAML: "+msg)
		return nil
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		p.problemAt(1, 1, "empty descriptions file: want tool: text lines")
		return nil
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		p.errAt(doc, "want a mapping of tool name → description, got %s", describeNode(doc))
		return nil
	}

	flat := map[string]string{}
	var mapped []perVariant
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		key, val := doc.Content[i], doc.Content[i+1]
		if key.Kind != yaml.ScalarNode {
			p.errAt(key, "want a tool name, got %s", describeNode(key))
			continue
		}
		tool := key.Value
		if first, dup := seen[tool]; dup {
			p.errAt(key, "tool %s given twice (first at %d:%d)", tool, first.Line, first.Column)
			continue
		}
		seen[tool] = key
		if p.world.Tool(tool) == nil {
			p.errAt(key, "unknown tool %q; world %s has %s", tool, p.world.Name, strings.Join(p.world.ToolNames(), ", "))
			continue
		}
		switch val.Kind {
		case yaml.ScalarNode:
			if text, ok := p.text(val, "tool "+tool); ok {
				flat[tool] = text
			}
		case yaml.MappingNode:
			if pv, ok := p.variants(tool, val); ok {
				mapped = append(mapped, pv)
			}
		default:
			p.errAt(val, "tool %s: want a description (text) or a mapping of variant → text, got %s", tool, describeNode(val))
		}
	}
	p.checkNewVariants(mapped)
	if len(p.problems) > 0 {
		return nil
	}

	out := map[string]map[string]string{}
	variants := slices.Clone(p.world.Variants)
	for _, pv := range mapped {
		for v := range pv.texts {
			if !slices.Contains(variants, v) {
				variants = append(variants, v)
			}
		}
	}
	for _, v := range variants {
		m := map[string]string{}
		for tool, text := range flat {
			m[tool] = text
		}
		for _, pv := range mapped {
			if text, ok := pv.texts[v]; ok {
				m[pv.tool] = text
			}
		}
		out[v] = m
	}
	return out
}

// text reads one description: a non-empty string.
func (p *descParser) text(n *yaml.Node, what string) (string, bool) {
	if n.Kind == yaml.AliasNode {
		p.errAt(n, "%s: aliases are not allowed in a descriptions file", what)
		return "", false
	}
	if n.Kind != yaml.ScalarNode {
		p.errAt(n, "%s: want a description (text), got %s", what, describeNode(n))
		return "", false
	}
	switch n.ShortTag() {
	case "!!str":
	case "!!null":
		p.errAt(n, "%s: description is empty", what)
		return "", false
	default:
		p.errAt(n, "%s: want a description (text), got %s; quote it if you mean the text", what, describeNode(n))
		return "", false
	}
	text := strings.TrimSpace(n.Value)
	if text == "" {
		p.errAt(n, "%s: description is empty", what)
		return "", false
	}
	return text, true
}

// variants reads a tool given per variant.
func (p *descParser) variants(tool string, n *yaml.Node) (perVariant, bool) {
	pv := perVariant{tool: tool, node: n, texts: map[string]string{}}
	ok := true
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		v := key.Value
		if key.Kind != yaml.ScalarNode || !engine.ValidName(v) {
			p.errAt(key, "tool %s: bad variant name %s: want %s", tool, describeNode(key), engine.NameRule)
			ok = false
			continue
		}
		if first, dup := seen[v]; dup {
			p.errAt(key, "tool %s: variant %s given twice (first at %d:%d)", tool, v, first.Line, first.Column)
			ok = false
			continue
		}
		seen[v] = key
		text, good := p.text(val, fmt.Sprintf("tool %s: variant %s", tool, v))
		if !good {
			ok = false
			continue
		}
		pv.texts[v] = text
	}
	if len(n.Content) == 0 {
		p.errAt(n, "tool %s: no variants given", tool)
		ok = false
	}
	return pv, ok
}

// checkNewVariants enforces the rule for variants the world does not
// have: every tool written per variant names each of them.
func (p *descParser) checkNewVariants(mapped []perVariant) {
	definedBy := map[string]string{} // new variant → first tool naming it
	var order []string
	for _, pv := range mapped {
		names := make([]string, 0, len(pv.texts))
		for v := range pv.texts {
			names = append(names, v)
		}
		sort.Strings(names)
		for _, v := range names {
			if !p.world.HasVariant(v) {
				if _, ok := definedBy[v]; !ok {
					definedBy[v] = pv.tool
					order = append(order, v)
				}
			}
		}
	}
	for _, pv := range mapped {
		for _, v := range order {
			if _, ok := pv.texts[v]; !ok {
				p.errAt(pv.node, "tool %s: no text for variant %s; %s is not a variant of world %s (%s), so every tool given per variant must name it (%s does)",
					pv.tool, v, v, p.world.Name, strings.Join(p.world.Variants, ", "), definedBy[v])
			}
		}
	}
}

// describeNode names what a YAML node is, for "want X, got Y" messages.
func describeNode(n *yaml.Node) string { return yamlpos.Describe(n) }
