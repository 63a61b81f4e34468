package personas

import (
	"fmt"
	"strings"

	"github.com/herd-sh/herd/internal/yamlpos"

	"go.yaml.in/yaml/v3"

	"github.com/herd-sh/herd/engine"

	"github.com/herd-sh/herd/internal/boundedio"
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
	data, err := boundedio.ReadFile(path, maxPackFile)
	if err != nil {
		return nil, fmt.Errorf("persona pack %s: %w", path, err)
	}
	return ParsePack(path, data)
}

// maxPackFile bounds a pack file: packs are a few dozen lines.
const maxPackFile = 1 << 20

// packFile is how a persona pack is named in the decoder's messages.
var packFile = yamlpos.Kind{Plural: "persona packs", Empty: "empty persona pack", MaxBytes: maxPackFile}

// ParsePack reads a persona pack from YAML; name is what errors are
// reported against. Every problem is reported as file:line:col: message
// (an *engine.LoadError, the same shape as a world file's errors): unknown
// keys, values out of range, unknown `like:` personas, duplicate names.
func ParsePack(name string, data []byte) (*Pack, error) {
	pr := &packReader{d: yamlpos.Decoder{Kind: packFile}}
	var pack *Pack
	if doc := pr.d.Parse(data); doc != nil {
		pack = pr.parse(doc)
	}
	if len(pr.d.Problems) > 0 {
		return nil, &engine.LoadError{File: name, Problems: pr.d.Problems}
	}
	return pack, nil
}

// packReader reads one pack file, keeping every problem it finds.
type packReader struct {
	d yamlpos.Decoder
}

// traitKey is one key of a persona in a pack file and how its value sets
// the persona's traits. Adding a trait to the file format is one line
// here (with the field in Traits, its check in Traits.Validate and its
// paragraph in docs/personas.md); the list of accepted keys in the
// "unknown field" message follows.
type traitKey struct {
	name string
	read func(pr *packReader, n *yaml.Node, field string, t *Traits)
}

var traitKeys = []traitKey{
	{"attention", unitTrait(func(t *Traits) *float64 { return &t.Attention })},
	{"caution", unitTrait(func(t *Traits) *float64 { return &t.Caution })},
	{"literalness", unitTrait(func(t *Traits) *float64 { return &t.Literalness })},
	{"noise", func(pr *packReader, n *yaml.Node, field string, t *Traits) {
		if x, ok := pr.d.Number(n, field); ok {
			if x <= 0 || x > maxNoise {
				pr.d.Errorf(n, "%s must be in (0, %d] (a softmax temperature), got %s", field, maxNoise, n.Value)
			}
			t.Noise = x
		}
	}},
	{"verify", unitTrait(func(t *Traits) *float64 { return &t.Verify })},
	{"explore", unitTrait(func(t *Traits) *float64 { return &t.Explore })},
	{"retry", func(pr *packReader, n *yaml.Node, field string, t *Traits) { pr.retry(n, field, &t.Retry) }},
	{"patience", func(pr *packReader, n *yaml.Node, field string, t *Traits) {
		if x, ok := pr.d.Int(n, field, 1, maxPatience); ok {
			t.Patience = int(x)
		}
	}},
	{"hostility", unitTrait(func(t *Traits) *float64 { return &t.Hostility })},
	{"credulity", unitTrait(func(t *Traits) *float64 { return &t.Credulity })},
	{"order_bias", unitTrait(func(t *Traits) *float64 { return &t.OrderBias })},
}

// unitTrait reads a trait that is a number in [0, 1].
func unitTrait(field func(*Traits) *float64) func(*packReader, *yaml.Node, string, *Traits) {
	return func(pr *packReader, n *yaml.Node, what string, t *Traits) {
		x, ok := pr.d.Number(n, what)
		if !ok {
			return
		}
		if x < 0 || x > 1 {
			pr.d.Errorf(n, "%s must be in [0, 1], got %s", what, n.Value)
		}
		*field(t) = x
	}
}

var packKeys = []string{"pack", "description", "personas"}
var retryKeys = []string{"mode", "max_attempts", "idempotency_keys", "ignore_key_advice", "honor_retry_after"}

// personaKeys are the keys a persona takes: like and description, then
// the traits.
func personaKeys() []string {
	keys := []string{"like", "description", "weight"}
	for _, k := range traitKeys {
		keys = append(keys, k.name)
	}
	return keys
}

func (pr *packReader) parse(root *yaml.Node) *Pack {
	pack := &Pack{}
	var personas *yaml.Node
	for _, kv := range pr.d.Mapping(root, "persona pack", packKeys) {
		switch kv.Key.Value {
		case "pack", "description":
			pr.d.Text(kv.Value, kv.Key.Value)
		case "personas":
			personas = kv.Value
		}
	}
	if len(pr.d.Problems) > 0 {
		return nil
	}
	if personas == nil {
		pr.d.Errorf(root, "persona pack: missing \"personas\" (a mapping of persona names to traits)")
		return nil
	}
	builtin := Builtin()
	keys := personaKeys()
	for _, kv := range pr.d.Mapping(personas, "personas", nil) {
		k := kv.Key
		if !engine.ValidName(k.Value) {
			pr.d.Errorf(k, "persona name %q must be %s", k.Value, engine.NameRule)
			continue
		}
		p := pr.persona(k.Value, kv.Value, keys, pack, builtin)
		if p != nil {
			pack.Personas = append(pack.Personas, p)
		}
	}
	if len(pack.Personas) == 0 && len(pr.d.Problems) == 0 {
		pr.d.Errorf(personas, "personas: the pack defines no persona")
	}
	return pack
}

func (pr *packReader) persona(name string, n *yaml.Node, keys []string, pack, builtin *Pack) *Persona {
	what := "persona " + name
	before := len(pr.d.Problems)
	fields := pr.d.Mapping(n, what, keys)
	p := &Persona{Name: name, Traits: baseline}
	// like first, wherever it is written: the other keys change the
	// persona it names.
	for _, kv := range fields {
		if kv.Key.Value != "like" {
			continue
		}
		like, ok := pr.d.Text(kv.Value, what+": like")
		if !ok {
			continue
		}
		base := pack.Get(like)
		if base == nil {
			base = builtin.Get(like)
		}
		if base == nil {
			pr.d.Errorf(kv.Value, "%s: like: no persona %q (built-in: %s; or one defined earlier in this pack)", what, like, strings.Join(builtin.Names(), ", "))
			continue
		}
		p.Traits = base.Traits
		p.Description = base.Description
	}
	t := &p.Traits
	for _, kv := range fields {
		k, v := kv.Key, kv.Value
		field := what + ": " + k.Value
		if k.Value == "description" {
			p.Description, _ = pr.d.Text(v, field)
			continue
		}
		if k.Value == "weight" {
			if x, ok := pr.d.Number(v, field); ok {
				if x < 0 || x > 1e6 || x != x {
					pr.d.Errorf(v, "%s must be a non-negative number (a relative share of the mix), got %s", field, v.Value)
				}
				p.Weight = x
			}
			continue
		}

		for _, tk := range traitKeys {
			if tk.name == k.Value {
				tk.read(pr, v, field, t)
			}
		}
	}
	if len(pr.d.Problems) > before {
		return nil
	}
	if err := t.Validate(); err != nil {
		pr.d.Errorf(n, "%s: %v", what, err)
		return nil
	}
	return p
}

// retry reads a retry policy: a mode (the shorthand retry: until_success
// sets the mode only) or a mapping of its fields.
func (pr *packReader) retry(n *yaml.Node, what string, r *RetryPolicy) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		r.Mode = pr.retryMode(n, what, " (or a mapping of "+strings.Join(retryKeys, ", ")+")")
		return
	}
	for _, kv := range pr.d.Mapping(n, what, retryKeys) {
		k, v := kv.Key, kv.Value
		field := what + "." + k.Value
		switch k.Value {
		case "mode":
			r.Mode = pr.retryMode(v, field, "")
		case "max_attempts":
			if x, ok := pr.d.Int(v, field, 0, maxPatience); ok {
				r.MaxAttempts = int(x)
			}
		case "idempotency_keys":
			r.IdempotencyKeys, _ = pr.d.Bool(v, field)
		case "ignore_key_advice":
			r.IgnoreKeyAdvice, _ = pr.d.Bool(v, field)
		case "honor_retry_after":
			r.HonorRetryAfter, _ = pr.d.Bool(v, field)
		}
	}
}

// retryMode reads a mode: none, once or until_success. or tells the error
// message what else the place accepts.
func (pr *packReader) retryMode(n *yaml.Node, what, or string) RetryMode {
	m := RetryMode(n.Value)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		switch m {
		case RetryNone, RetryOnce, RetryUntilSuccess:
			return m
		}
	}
	pr.d.Errorf(n, "%s: must be none, once or until_success%s, got %s", what, or, yamlpos.Describe(n))
	return m
}
