package personas

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/herd-sh/herd/internal/yamlpos"

	"go.yaml.in/yaml/v3"

	"github.com/herd-sh/herd/engine"
)

// Pack is a population of personas, in file order.
type Pack struct {
	Personas []*Persona
}

// Get returns the named persona or nil.
func (p *Pack) Get(name string) *Persona {
	for _, x := range p.Personas {
		if x.Name == name {
			return x
		}
	}
	return nil
}

// Names lists the personas' names in pack order.
func (p *Pack) Names() []string {
	out := make([]string, len(p.Personas))
	for i, x := range p.Personas {
		out[i] = x.Name
	}
	return out
}

// LoadPack reads a persona pack file.
func LoadPack(path string) (*Pack, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("persona pack %s: %w", path, err)
	}
	return ParsePack(path, data)
}

// maxPackFile bounds a pack file: packs are a few dozen lines.
const maxPackFile = 1 << 20

// ParsePack reads a persona pack from YAML; name is what errors are
// reported against. Every problem is reported as file:line:col: message
// (an *engine.LoadError, the same shape as a world file's errors): unknown
// keys, values out of range, unknown `like:` personas, duplicate names.
func ParsePack(name string, data []byte) (*Pack, error) {
	pp := &packParser{file: name}
	if len(data) > maxPackFile {
		pp.problems = append(pp.problems, engine.Problem{Msg: fmt.Sprintf("file is %d bytes; persona packs may be at most %d", len(data), maxPackFile)})
		return nil, pp.err()
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		pp.problems = append(pp.problems, yamlProblem(err, data))
		return nil, pp.err()
	}
	if root.Kind == 0 || (root.Kind == yaml.DocumentNode && len(root.Content) == 0) {
		pp.problems = append(pp.problems, engine.Problem{Pos: engine.Pos{Line: 1, Col: 1}, Msg: "empty persona pack"})
		return nil, pp.err()
	}
	pack := pp.parse(root.Content[0])
	if len(pp.problems) > 0 {
		return nil, pp.err()
	}
	return pack, nil
}

// yamlProblem places a YAML syntax error at its line.
func yamlProblem(err error, data []byte) engine.Problem {
	line, col, msg := yamlpos.SyntaxError(err, data)
	return engine.Problem{Pos: engine.Pos{Line: line, Col: col}, Msg: "YAML: " + msg}
}

type packParser struct {
	file     string
	problems []engine.Problem
}

func (pp *packParser) err() error {
	return &engine.LoadError{File: pp.file, Problems: pp.problems}
}

func (pp *packParser) errorf(n *yaml.Node, format string, args ...any) {
	pp.problems = append(pp.problems, engine.Problem{Pos: engine.Pos{Line: n.Line, Col: n.Column}, Msg: fmt.Sprintf(format, args...)})
}

// mapping checks n is a mapping and returns its key/value pairs, refusing
// keys not in allowed and keys given twice.
func (pp *packParser) mapping(n *yaml.Node, what string, allowed []string) [][2]*yaml.Node {
	if n.Kind == yaml.AliasNode {
		pp.errorf(n, "aliases are not supported in persona packs")
		return nil
	}
	if n.Kind != yaml.MappingNode {
		pp.errorf(n, "%s: expected a mapping, got %s", what, describeNode(n))
		return nil
	}
	var out [][2]*yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			pp.errorf(k, "%s: expected a name as key, got %s", what, describeNode(k))
			continue
		}
		if line, dup := seen[k.Value]; dup {
			pp.errorf(k, "%s: %q given twice (first at line %d)", what, k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			pp.errorf(k, "%s: unknown field %q (expected one of: %s)", what, k.Value, strings.Join(allowed, ", "))
			continue
		}
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}

var packKeys = []string{"pack", "description", "personas"}
var personaKeys = []string{"like", "description", "attention", "caution", "literalness", "noise", "verify", "explore", "retry", "patience", "hostility", "credulity", "order_bias"}
var retryKeys = []string{"mode", "max_attempts", "idempotency_keys", "honor_retry_after"}

func (pp *packParser) parse(root *yaml.Node) *Pack {
	pack := &Pack{}
	var personas *yaml.Node
	for _, kv := range pp.mapping(root, "persona pack", packKeys) {
		switch kv[0].Value {
		case "pack", "description":
			pp.text(kv[1], kv[0].Value)
		case "personas":
			personas = kv[1]
		}
	}
	if len(pp.problems) > 0 {
		return nil
	}
	if personas == nil {
		pp.errorf(root, "persona pack: missing \"personas\" (a mapping of persona names to traits)")
		return nil
	}
	builtin := Builtin()
	for _, kv := range pp.mapping(personas, "personas", nil) {
		k := kv[0]
		if !engine.ValidName(k.Value) {
			pp.errorf(k, "persona name %q must be %s", k.Value, engine.NameRule)
			continue
		}
		p := pp.persona(k.Value, kv[1], pack, builtin)
		if p != nil {
			pack.Personas = append(pack.Personas, p)
		}
	}
	if len(pack.Personas) == 0 && len(pp.problems) == 0 {
		pp.errorf(personas, "personas: the pack defines no persona")
	}
	return pack
}

func (pp *packParser) persona(name string, n *yaml.Node, pack, builtin *Pack) *Persona {
	what := "persona " + name
	fields := pp.mapping(n, what, personaKeys)
	p := &Persona{Name: name, Traits: baseline}
	for _, kv := range fields {
		if kv[0].Value != "like" {
			continue
		}
		like := pp.text(kv[1], what+": like")
		base := pack.Get(like)
		if base == nil {
			base = builtin.Get(like)
		}
		if base == nil {
			pp.errorf(kv[1], "%s: like: no persona %q (built-in: %s; or one defined earlier in this pack)", what, like, strings.Join(builtin.Names(), ", "))
			continue
		}
		p.Traits = base.Traits
		p.Description = base.Description
	}
	before := len(pp.problems)
	t := &p.Traits
	for _, kv := range fields {
		k, v := kv[0], kv[1]
		field := what + ": " + k.Value
		switch k.Value {
		case "description":
			p.Description = pp.text(v, field)
		case "attention":
			t.Attention = pp.unit(v, field)
		case "caution":
			t.Caution = pp.unit(v, field)
		case "literalness":
			t.Literalness = pp.unit(v, field)
		case "verify":
			t.Verify = pp.unit(v, field)
		case "explore":
			t.Explore = pp.unit(v, field)
		case "hostility":
			t.Hostility = pp.unit(v, field)
		case "credulity":
			t.Credulity = pp.unit(v, field)
		case "order_bias":
			t.OrderBias = pp.unit(v, field)
		case "noise":
			if x, ok := pp.number(v, field); ok {
				if x <= 0 || x > maxNoise {
					pp.errorf(v, "%s must be in (0, %d] (a softmax temperature), got %s", field, maxNoise, v.Value)
				}
				t.Noise = x
			}
		case "patience":
			t.Patience = pp.integer(v, field, 1, maxPatience)
		case "retry":
			pp.retry(v, field, &t.Retry)
		}
	}
	if len(pp.problems) > before {
		return nil
	}
	if err := t.Validate(); err != nil {
		pp.errorf(n, "%s: %v", what, err)
		return nil
	}
	return p
}

// retry reads a retry policy: a mode (the shorthand retry: until_success
// sets the mode only) or a mapping of its fields.
func (pp *packParser) retry(n *yaml.Node, what string, r *RetryPolicy) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		r.Mode = pp.retryMode(n, what, " (or a mapping of "+strings.Join(retryKeys, ", ")+")")
		return
	}
	for _, kv := range pp.mapping(n, what, retryKeys) {
		k, v := kv[0], kv[1]
		field := what + "." + k.Value
		switch k.Value {
		case "mode":
			r.Mode = pp.retryMode(v, field, "")
		case "max_attempts":
			r.MaxAttempts = pp.integer(v, field, 0, maxPatience)
		case "idempotency_keys":
			r.IdempotencyKeys = pp.boolean(v, field)
		case "honor_retry_after":
			r.HonorRetryAfter = pp.boolean(v, field)
		}
	}
}

// retryMode reads a mode: none, once or until_success. or tells the error
// message what else the place accepts.
func (pp *packParser) retryMode(n *yaml.Node, what, or string) RetryMode {
	m := RetryMode(n.Value)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		switch m {
		case RetryNone, RetryOnce, RetryUntilSuccess:
			return m
		}
	}
	pp.errorf(n, "%s: must be none, once or until_success%s, got %s", what, or, describeNode(n))
	return m
}

func (pp *packParser) text(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		pp.errorf(n, "%s: expected text, got %s", what, describeNode(n))
		return ""
	}
	return n.Value
}

func (pp *packParser) number(n *yaml.Node, what string) (float64, bool) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		pp.errorf(n, "%s: expected a number, got %s", what, describeNode(n))
		return 0, false
	}
	x, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		pp.errorf(n, "%s: expected a finite number, got %s", what, n.Value)
		return 0, false
	}
	return x, true
}

func (pp *packParser) unit(n *yaml.Node, what string) float64 {
	x, ok := pp.number(n, what)
	if ok && (x < 0 || x > 1) {
		pp.errorf(n, "%s must be in [0, 1], got %s", what, n.Value)
	}
	return x
}

func (pp *packParser) integer(n *yaml.Node, what string, lo, hi int) int {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		pp.errorf(n, "%s: expected a whole number, got %s", what, describeNode(n))
		return lo
	}
	x, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil || x < int64(lo) || x > int64(hi) {
		pp.errorf(n, "%s must be in [%d, %d], got %s", what, lo, hi, n.Value)
		return lo
	}
	return int(x)
}

func (pp *packParser) boolean(n *yaml.Node, what string) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		pp.errorf(n, "%s: expected true or false, got %s", what, describeNode(n))
		return false
	}
	b, _ := strconv.ParseBool(strings.ToLower(n.Value))
	return b
}

func describeNode(n *yaml.Node) string { return yamlpos.Describe(n) }
