package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The decoder is shared by the three kinds of file a user writes for herd
// — world files, persona packs and descriptions files — so that they
// refuse the same things with the same words, each problem placed at
// file:line:col:
//
//   - aliases ("aliases are not supported in world files");
//   - a key given twice ("persona a: "retry" given twice (first at line 3)");
//   - a key the place does not take ("unknown field "atention" (expected
//     one of: …)");
//   - a value of the wrong kind ("variants: expected a list, got "clear"").
//
// A reader either walks the nodes itself with Mapping, Text, Number, Int
// and Bool (a persona pack, whose keys come from a table of traits), or
// hands Decode a spec struct whose yaml tags name the keys (a world
// file). Both report to the same Decoder, which keeps every problem, in
// file order, so that an author fixes a file in one pass.

// Pos is a place in a file, 1-based. The zero Pos means the whole file.
type Pos struct {
	Line, Col int
}

// Problem is one error at one place in a file.
type Problem struct {
	Pos Pos
	Msg string
}

func (p *Problem) Error() string { return fmt.Sprintf("%d:%d: %s", p.Pos.Line, p.Pos.Col, p.Msg) }

// PosOf is where a node is.
func PosOf(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

// Kind names a kind of file in messages.
type Kind struct {
	Plural   string // "world files": in "aliases are not supported in world files"
	Empty    string // the message for a file with no document: "empty world file"
	MaxBytes int    // a larger file is refused before it is parsed
}

// Decoder collects the problems found while reading one file.
type Decoder struct {
	Kind     Kind
	Problems []Problem
}

// Errorf records a problem at n.
func (d *Decoder) Errorf(n *yaml.Node, format string, args ...any) {
	d.Problems = append(d.Problems, Problem{Pos: PosOf(n), Msg: fmt.Sprintf(format, args...)})
}

// errorfIn records a problem at n, in the words of the place it is in:
// what ("persona a", "variants") prefixes the message when given.
func (d *Decoder) errorfIn(n *yaml.Node, what, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if what != "" {
		msg = what + ": " + msg
	}
	d.Problems = append(d.Problems, Problem{Pos: PosOf(n), Msg: msg})
}

// Parse reads data as one YAML document and returns its top node, or nil
// with the problem recorded: a file over the kind's size limit, a syntax
// error (placed at its line), or a file with no document.
func (d *Decoder) Parse(data []byte) *yaml.Node {
	if d.Kind.MaxBytes > 0 && len(data) > d.Kind.MaxBytes {
		d.Problems = append(d.Problems, Problem{Msg: fmt.Sprintf("file is %d bytes; %s may be at most %d", len(data), d.Kind.Plural, d.Kind.MaxBytes)})
		return nil
	}
	root, second, err := parse(data)
	if err != nil {
		line, col, msg := SyntaxError(err, data)
		d.Problems = append(d.Problems, Problem{Pos: Pos{Line: line, Col: col}, Msg: "YAML: " + msg})
		return nil
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		d.Problems = append(d.Problems, Problem{Pos: Pos{Line: 1, Col: 1}, Msg: d.Kind.Empty})
		return nil
	}
	if second != nil {
		// Reading the first document alone would drop the rest unseen.
		d.Problems = append(d.Problems, Problem{Pos: PosOf(second),
			Msg: fmt.Sprintf("a second YAML document begins here; one file holds one document (put the rest of %s in a file of its own)", d.Kind.Plural)})
		return nil
	}
	return root.Content[0]
}

// parse parses data into a node tree: its first document, and the node of
// a second one when there is one (nil otherwise). A syntax error in any
// document is err. The parser is third-party code fed untrusted input;
// should it ever panic, that is a refused file, not a crashed herd.
func parse(data []byte) (root yaml.Node, second *yaml.Node, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("yaml: the YAML parser failed on this file: %v", p)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err = dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return yaml.Node{}, nil, nil // no document at all
		}
		return root, nil, err
	}
	var next yaml.Node
	switch err = dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return root, nil, nil
	case err != nil:
		return root, nil, err
	}
	return root, &next, nil
}

// alias refuses an alias node: a file is read as written, and an alias
// would let one small file expand into a huge one.
func (d *Decoder) alias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		d.Errorf(n, "aliases are not supported in %s", d.Kind.Plural)
		return true
	}
	return false
}

// KeyValue is one key of a mapping and its value.
type KeyValue struct {
	Key, Value *yaml.Node
}

// Mapping checks that n is a mapping and returns its pairs in file order.
// Keys that are not plain names, keys given twice and — when keys is not
// nil — keys not in keys are recorded as problems and left out. what
// names the place in messages ("persona a"); "" for none.
func (d *Decoder) Mapping(n *yaml.Node, what string, keys []string) []KeyValue {
	var out []KeyValue
	d.eachPair(n, what, keys, func(kv KeyValue) { out = append(out, kv) })
	return out
}

// eachPair is Mapping calling fn with each good pair as it is reached, so
// that problems inside a value come before those of the next key.
func (d *Decoder) eachPair(n *yaml.Node, what string, keys []string, fn func(KeyValue)) {
	if d.alias(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorfIn(n, what, "expected a mapping, got %s", Describe(n))
		return
	}
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorfIn(k, what, "expected a name as key, got %s", Describe(k))
			continue
		}
		if line, dup := first[k.Value]; dup {
			d.errorfIn(k, what, "%q given twice (first at line %d)", k.Value, line)
			continue
		}
		first[k.Value] = k.Line
		if keys != nil && !slices.Contains(keys, k.Value) {
			d.errorfIn(k, what, "unknown field %q (expected one of: %s)", k.Value, strings.Join(keys, ", "))
			continue
		}
		fn(KeyValue{Key: k, Value: v})
	}
}

// scalar reports whether n is a scalar with one of tags, recording
// "expected WANT, got …" when it is not.
func (d *Decoder) scalar(n *yaml.Node, what, want string, tags ...string) bool {
	if d.alias(n) {
		return false
	}
	if n.Kind == yaml.ScalarNode && (len(tags) == 0 || slices.Contains(tags, n.ShortTag())) {
		return true
	}
	d.errorfIn(n, what, "expected %s, got %s", want, Describe(n))
	return false
}

// Text reads a scalar as text; nothing (null) is not text.
func (d *Decoder) Text(n *yaml.Node, what string) (string, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		d.errorfIn(n, what, "expected text, got %s", Describe(n))
		return "", false
	}
	if !d.scalar(n, what, "text") {
		return "", false
	}
	return n.Value, true
}

// Number reads a finite number.
func (d *Decoder) Number(n *yaml.Node, what string) (float64, bool) {
	if !d.scalar(n, what, "a number", "!!int", "!!float") {
		return 0, false
	}
	x, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		d.errorfIn(n, what, "expected a finite number, got %s", n.Value)
		return 0, false
	}
	return x, true
}

// Int reads a whole number in [lo, hi]; "what must be in [lo, hi]" when
// it is out of range.
func (d *Decoder) Int(n *yaml.Node, what string, lo, hi int64) (int64, bool) {
	if !d.scalar(n, what, "a whole number", "!!int") {
		return 0, false
	}
	x, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil || x < lo || x > hi {
		d.Errorf(n, "%s must be in [%d, %d], got %s", what, lo, hi, n.Value)
		return 0, false
	}
	return x, true
}

// Bool reads true or false.
func (d *Decoder) Bool(n *yaml.Node, what string) (bool, bool) {
	if !d.scalar(n, what, "true or false", "!!bool") {
		return false, false
	}
	b, _ := strconv.ParseBool(strings.ToLower(n.Value))
	return b, true
}

// Entry is one key of a mapping whose order matters (tools, types,
// fields…): decoded in file order, so that whatever is built from it is
// deterministic.
type Entry[T any] struct {
	Name  string
	Pos   Pos
	Value T
}

// Ordered is a mapping of names to values, in file order.
type Ordered[T any] []Entry[T]

// decodeMapping is how Decode fills an Ordered: any name as key (each
// once), each value decoded as T.
func (o *Ordered[T]) decodeMapping(d *Decoder, n *yaml.Node, what string) {
	if n.ShortTag() == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		if !d.alias(n) {
			d.errorfIn(n, what, "expected a mapping of names to values, got %s", Describe(n))
		}
		return
	}
	d.eachPair(n, "", nil, func(kv KeyValue) {
		e := Entry[T]{Name: kv.Key.Value, Pos: PosOf(kv.Key)}
		d.decodeValue(kv.Value, reflect.ValueOf(&e.Value).Elem(), "")
		*o = append(*o, e)
	})
}

// orderedMapping is implemented by every *Ordered[T].
type orderedMapping interface {
	decodeMapping(d *Decoder, n *yaml.Node, what string)
}

// NodeDecoder is a value that reads itself from one node — a CEL
// expression, a duration, a scalar kept as written. A returned error is
// recorded at the node, after the key's name when it starts "expected"
// (as a wrong kind of value is worded everywhere).
type NodeDecoder interface {
	DecodeNode(n *yaml.Node) error
}

var posType = reflect.TypeFor[Pos]()

// Decode fills the struct v points to from n. Each exported field with a
// yaml tag is the key of that name; a field `Pos Pos` (tag "-") gets
// where the mapping is. Fields may be strings, bools, ints, pointers
// (left nil when the key is absent or null), slices, structs, Ordered
// mappings and NodeDecoders. Problems go to d; Decode goes on after each,
// so that every one is reported.
func (d *Decoder) Decode(n *yaml.Node, v any) {
	d.decodeValue(n, reflect.ValueOf(v).Elem(), "")
}

// decodeValue decodes n into v; what is the key n is the value of, for
// "key: expected …" messages, or "".
func (d *Decoder) decodeValue(n *yaml.Node, v reflect.Value, what string) {
	if d.alias(n) {
		return
	}
	if v.CanAddr() {
		switch p := v.Addr().Interface().(type) {
		case NodeDecoder:
			if err := p.DecodeNode(n); err != nil {
				msg := err.Error()
				if what != "" && strings.HasPrefix(msg, "expected ") {
					msg = what + ": " + msg
				}
				d.Problems = append(d.Problems, Problem{Pos: PosOf(n), Msg: msg})
			}
			return
		case orderedMapping:
			p.decodeMapping(d, n, what)
			return
		}
	}
	null := n.ShortTag() == "!!null"
	switch v.Kind() {
	case reflect.Pointer:
		if null {
			return
		}
		nv := reflect.New(v.Type().Elem())
		d.decodeValue(n, nv.Elem(), what)
		v.Set(nv)
	case reflect.Struct:
		if !null {
			d.decodeStruct(n, v, what)
		}
	case reflect.Slice:
		if null {
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.errorfIn(n, what, "expected a list, got %s", Describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decodeValue(c, s.Index(i), "")
		}
		v.Set(s)
	case reflect.String:
		// A key with nothing after it is an empty text in a spec: the
		// field is optional, and "description:" alone is not a mistake
		// worth stopping for.
		if null && n.Kind == yaml.ScalarNode {
			return
		}
		if s, ok := d.Text(n, what); ok {
			v.SetString(s)
		}
	case reflect.Bool:
		if b, ok := d.Bool(n, what); ok {
			v.SetBool(b)
		}
	case reflect.Int:
		if !d.scalar(n, what, "a whole number", "!!int") {
			return
		}
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			d.errorfIn(n, what, "expected a whole number, got %s", Describe(n))
			return
		}
		v.SetInt(i)
	default:
		d.Errorf(n, "internal: cannot decode into %s", v.Type())
	}
}

func (d *Decoder) decodeStruct(n *yaml.Node, v reflect.Value, what string) {
	t := v.Type()
	fields := map[string]int{}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == posType && f.Name == "Pos" {
			v.Field(i).Set(reflect.ValueOf(PosOf(n)))
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		fields[tag] = i
		keys = append(keys, tag)
	}
	if n.Kind != yaml.MappingNode {
		d.errorfIn(n, what, "expected a mapping, got %s", Describe(n))
		return
	}
	d.eachPair(n, "", keys, func(kv KeyValue) {
		d.decodeValue(kv.Value, v.Field(fields[kv.Key.Value]), kv.Key.Value)
	})
}
