package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/herd-sh/herd/internal/yamlpos"

	"go.yaml.in/yaml/v3"
)

// The strict decoder walks a yaml.Node tree into the spec structs. yaml.v3's
// own KnownFields mode reports "field x not found in type engine.fooSpec"
// without a column; world authors deserve `file:line:col: unknown field "x"`
// and the list of fields that would have been accepted.

// decodeError is one problem at one place.
type decodeError struct {
	Pos Pos
	Msg string
}

func (e *decodeError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg) }

func posOf(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

func errAt(n *yaml.Node, format string, args ...any) error {
	return &decodeError{Pos: posOf(n), Msg: fmt.Sprintf(format, args...)}
}

var (
	posType      = reflect.TypeFor[Pos]()
	exprType     = reflect.TypeFor[Expr]()
	scalarType   = reflect.TypeFor[Scalar]()
	durationType = reflect.TypeFor[Duration]()
	textType     = reflect.TypeFor[Text]()
)

// decodeStrict decodes n into the value v points to.
func decodeStrict(n *yaml.Node, v any) error {
	return decodeValue(n, reflect.ValueOf(v).Elem())
}

func decodeValue(n *yaml.Node, v reflect.Value) error {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return decodeValue(n.Content[0], v)
	}
	if n.Kind == yaml.AliasNode {
		return errAt(n, "aliases are not supported in world files")
	}
	switch v.Type() {
	case exprType:
		if n.Kind != yaml.ScalarNode {
			return errAt(n, "expected a CEL expression (a string), got %s", yamlpos.Describe(n))
		}
		v.Set(reflect.ValueOf(Expr{Src: n.Value, Pos: posOf(n), Quoted: n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0}))
		return nil
	case scalarType:
		if n.Kind != yaml.ScalarNode {
			return errAt(n, "expected a single value, got %s", yamlpos.Describe(n))
		}
		v.Set(reflect.ValueOf(Scalar{Raw: n.Value, Tag: n.ShortTag(), Pos: posOf(n), IsSet: n.ShortTag() != "!!null"}))
		return nil
	case textType:
		if n.Kind != yaml.ScalarNode {
			return errAt(n, "expected text, got %s", yamlpos.Describe(n))
		}
		v.Set(reflect.ValueOf(Text{Src: n.Value, Pos: posOf(n)}))
		return nil
	case durationType:
		if n.Kind != yaml.ScalarNode {
			return errAt(n, "expected a duration such as 40ms or 2s, got %s", yamlpos.Describe(n))
		}
		v.Set(reflect.ValueOf(Duration{Src: n.Value, Pos: posOf(n)}))
		return nil
	}
	if isOrdered(v.Type()) {
		return decodeOrdered(n, v)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.ShortTag() == "!!null" {
			return nil
		}
		nv := reflect.New(v.Type().Elem())
		if err := decodeValue(n, nv.Elem()); err != nil {
			return err
		}
		v.Set(nv)
		return nil
	case reflect.Struct:
		return decodeStruct(n, v)
	case reflect.Slice:
		if n.ShortTag() == "!!null" {
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return errAt(n, "expected a list, got %s", yamlpos.Describe(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			if err := decodeValue(c, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return errAt(n, "expected text, got %s", yamlpos.Describe(n))
		}
		v.SetString(n.Value)
		return nil
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			return errAt(n, "expected true or false, got %s", yamlpos.Describe(n))
		}
		b, _ := strconv.ParseBool(strings.ToLower(n.Value))
		v.SetBool(b)
		return nil
	case reflect.Int:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			return errAt(n, "expected a whole number, got %s", yamlpos.Describe(n))
		}
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			return errAt(n, "expected a whole number, got %s", yamlpos.Describe(n))
		}
		v.SetInt(i)
		return nil
	}
	return errAt(n, "internal: cannot decode into %s", v.Type())
}

// withKey names the key when the error is about the key's own value
// ("variants: expected a list, got \"clear\""); errors deeper inside the
// value already say where they are.
func withKey(key string, val *yaml.Node, err error) error {
	de, ok := err.(*decodeError)
	if !ok || de.Pos != posOf(val) || !strings.HasPrefix(de.Msg, "expected ") {
		return err
	}
	return &decodeError{Pos: de.Pos, Msg: key + ": " + de.Msg}
}

func isOrdered(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && strings.HasPrefix(t.Name(), "Ordered[")
}

func decodeOrdered(n *yaml.Node, v reflect.Value) error {
	if n.ShortTag() == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return errAt(n, "expected a mapping of names to values, got %s", yamlpos.Describe(n))
	}
	elem := v.Type().Elem() // Entry[T]
	s := reflect.MakeSlice(v.Type(), 0, len(n.Content)/2)
	seen := map[string]Pos{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return errAt(k, "expected a name as key, got %s", yamlpos.Describe(k))
		}
		if prev, dup := seen[k.Value]; dup {
			return errAt(k, "duplicate name %q (first at line %d)", k.Value, prev.Line)
		}
		seen[k.Value] = posOf(k)
		e := reflect.New(elem).Elem()
		e.Field(0).SetString(k.Value)
		e.Field(1).Set(reflect.ValueOf(posOf(k)))
		if err := decodeValue(val, e.Field(2)); err != nil {
			return err
		}
		s = reflect.Append(s, e)
	}
	v.Set(s)
	return nil
}

func decodeStruct(n *yaml.Node, v reflect.Value) error {
	if n.ShortTag() == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return errAt(n, "expected a mapping, got %s", yamlpos.Describe(n))
	}
	t := v.Type()
	fields := map[string]int{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if f.Type == posType && f.Name == "Pos" {
			v.Field(i).Set(reflect.ValueOf(posOf(n)))
			continue
		}
		if tag == "" || tag == "-" {
			continue
		}
		fields[tag] = i
		names = append(names, tag)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		idx, ok := fields[k.Value]
		if !ok {
			return errAt(k, "unknown field %q (expected one of: %s)", k.Value, strings.Join(names, ", "))
		}
		if seen[k.Value] {
			return errAt(k, "field %q given twice", k.Value)
		}
		seen[k.Value] = true
		if err := decodeValue(val, v.Field(idx)); err != nil {
			return withKey(k.Value, val, err)
		}
	}
	return nil
}
