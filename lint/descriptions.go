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
//
// A new variant may also be a misspelt one ("ambigous"). ReadDescriptions
// says which variants are new and where each is first named, so that a
// caller that runs only some variants can refuse the others before it
// runs anything (Descriptions.CheckVariants).

// maxDescriptionsFile bounds a descriptions file: a few dozen tools of a
// few hundred characters each.
const maxDescriptionsFile = 1 << 20

// descriptionsFile is how a descriptions file is named in the decoder's
// messages.
var descriptionsFile = yamlpos.Kind{Plural: "descriptions files", Empty: "empty descriptions file: want tool: text lines", MaxBytes: maxDescriptionsFile}

// Descriptions is a descriptions file as read for one world.
type Descriptions struct {
	File  string
	World *engine.World
	// Texts are the texts per variant: variant → tool → text. Every
	// variant of the world is present (with no entries when the file
	// gives none for it), plus any new variant the file defines.
	Texts map[string]map[string]string
	// New lists the variants the file names that the world does not
	// have, in file order, each where it is first named. A caller that
	// runs only some variants checks them with CheckVariants: a variant
	// nobody asked for is more likely a typo than a new wording.
	New []NewVariant
}

// NewVariant is a variant a descriptions file defines: the world has no
// variant of that name.
type NewVariant struct {
	Name string
	Tool string     // the first tool that names it
	Pos  engine.Pos // where it is first named
}

// ReadDescriptions reads a descriptions file for world w.
func ReadDescriptions(path string, w *engine.World) (*Descriptions, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("descriptions %s: %w", path, err)
	}
	return ParseDescriptionsFile(path, data, w)
}

// ParseDescriptionsFile is ReadDescriptions on bytes; name is what errors
// are reported against. Every problem is reported, each as
// file:line:col: message (an *engine.LoadError, like a world file's or a
// persona pack's).
func ParseDescriptionsFile(name string, data []byte, w *engine.World) (*Descriptions, error) {
	p := &descParser{world: w, d: yamlpos.Decoder{Kind: descriptionsFile}}
	texts, news := p.parse(data)
	if len(p.d.Problems) > 0 {
		return nil, &engine.LoadError{File: name, Problems: p.d.Problems}
	}
	return &Descriptions{File: name, World: w, Texts: texts, New: news}, nil
}

// LoadDescriptions reads a descriptions file for world w and returns the
// texts per variant: variant → tool → text (Descriptions.Texts).
func LoadDescriptions(path string, w *engine.World) (map[string]map[string]string, error) {
	d, err := ReadDescriptions(path, w)
	if err != nil {
		return nil, err
	}
	return d.Texts, nil
}

// ParseDescriptions is LoadDescriptions on bytes.
func ParseDescriptions(name string, data []byte, w *engine.World) (map[string]map[string]string, error) {
	d, err := ParseDescriptionsFile(name, data, w)
	if err != nil {
		return nil, err
	}
	return d.Texts, nil
}

// CheckVariants refuses each new variant of the file that is not in
// wanted (the variants a run will use): under those, the texts the file
// gives for it would never be read. The error is an *engine.LoadError
// placing each where the file first names it, so that a misspelt variant
// ("ambigous") is found before any agent runs.
func (d *Descriptions) CheckVariants(wanted []string) error {
	var problems []engine.Problem
	for _, nv := range d.New {
		if slices.Contains(wanted, nv.Name) {
			continue
		}
		problems = append(problems, engine.Problem{Pos: nv.Pos, Msg: fmt.Sprintf(
			"tool %s: variant %q is not a variant of world %s (%s) and not one of the run's variants (%s)",
			nv.Tool, nv.Name, d.World.Name, strings.Join(d.World.Variants, ", "), strings.Join(wanted, ", "))})
	}
	if len(problems) > 0 {
		return &engine.LoadError{File: d.File, Problems: problems}
	}
	return nil
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
	world *engine.World
	d     yamlpos.Decoder
}

// perVariant is one tool written as a mapping of variant → text.
type perVariant struct {
	tool  string
	node  *yaml.Node
	texts map[string]string
	keys  map[string]*yaml.Node // variant → its key, for where it is named
}

func (p *descParser) parse(data []byte) (map[string]map[string]string, []NewVariant) {
	doc := p.d.Parse(data)
	if doc == nil {
		return nil, nil
	}
	if doc.Kind != yaml.MappingNode {
		p.d.Errorf(doc, "want a mapping of tool name → description, got %s", yamlpos.Describe(doc))
		return nil, nil
	}

	flat := map[string]string{}
	var mapped []perVariant
	for _, kv := range p.d.Mapping(doc, "", nil) {
		key, val := kv.Key, kv.Value
		tool := key.Value
		if p.world.Tool(tool) == nil {
			p.d.Errorf(key, "unknown tool %q; world %s has %s", tool, p.world.Name, strings.Join(p.world.ToolNames(), ", "))
			continue
		}
		switch val.Kind {
		case yaml.MappingNode:
			if pv, ok := p.variants(tool, val); ok {
				mapped = append(mapped, pv)
			}
		case yaml.ScalarNode, yaml.AliasNode:
			if text, ok := p.text(val, "tool "+tool); ok {
				flat[tool] = text
			}
		default:
			p.d.Errorf(val, "tool %s: want a description (text) or a mapping of variant → text, got %s", tool, yamlpos.Describe(val))
		}
	}
	news := p.checkNewVariants(mapped)
	if len(p.d.Problems) > 0 {
		return nil, nil
	}

	out := map[string]map[string]string{}
	variants := slices.Clone(p.world.Variants)
	for _, nv := range news {
		variants = append(variants, nv.Name)
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
	return out, news
}

// text reads one description: a non-empty string.
func (p *descParser) text(n *yaml.Node, what string) (string, bool) {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str":
		case "!!null":
			p.d.Errorf(n, "%s: description is empty", what)
			return "", false
		default:
			p.d.Errorf(n, "%s: want a description (text), got %s; quote it if you mean the text", what, yamlpos.Describe(n))
			return "", false
		}
	}
	text, ok := p.d.Text(n, what)
	if !ok {
		return "", false
	}
	text = strings.TrimSpace(text)
	if text == "" {
		p.d.Errorf(n, "%s: description is empty", what)
		return "", false
	}
	return text, true
}

// variants reads a tool given per variant.
func (p *descParser) variants(tool string, n *yaml.Node) (perVariant, bool) {
	pv := perVariant{tool: tool, node: n, texts: map[string]string{}, keys: map[string]*yaml.Node{}}
	before := len(p.d.Problems)
	what := "tool " + tool
	for _, kv := range p.d.Mapping(n, what, nil) {
		key, val := kv.Key, kv.Value
		v := key.Value
		if !engine.ValidName(v) {
			p.d.Errorf(key, "%s: bad variant name %s: want %s", what, yamlpos.Describe(key), engine.NameRule)
			continue
		}
		text, ok := p.text(val, fmt.Sprintf("%s: variant %s", what, v))
		if !ok {
			continue
		}
		pv.texts[v] = text
		pv.keys[v] = key
	}
	if len(n.Content) == 0 {
		p.d.Errorf(n, "%s: no variants given", what)
	}
	return pv, len(p.d.Problems) == before
}

// checkNewVariants enforces the rule for variants the world does not
// have: every tool written per variant names each of them. It returns the
// new variants in the order the file first names them.
func (p *descParser) checkNewVariants(mapped []perVariant) []NewVariant {
	var news []NewVariant
	index := map[string]int{} // new variant → its place in news
	for _, pv := range mapped {
		names := make([]string, 0, len(pv.texts))
		for v := range pv.texts {
			names = append(names, v)
		}
		// In file order within the tool.
		sort.Slice(names, func(i, j int) bool {
			a, b := pv.keys[names[i]], pv.keys[names[j]]
			return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
		})
		for _, v := range names {
			if p.world.HasVariant(v) {
				continue
			}
			if _, ok := index[v]; !ok {
				index[v] = len(news)
				news = append(news, NewVariant{Name: v, Tool: pv.tool, Pos: yamlpos.PosOf(pv.keys[v])})
			}
		}
	}
	for _, pv := range mapped {
		for _, nv := range news {
			if _, ok := pv.texts[nv.Name]; !ok {
				p.d.Errorf(pv.node, "tool %s: no text for variant %s; %s is not a variant of world %s (%s), so every tool given per variant must name it (%s does)",
					pv.tool, nv.Name, nv.Name, p.world.Name, strings.Join(p.world.Variants, ", "), nv.Tool)
			}
		}
	}
	return news
}
