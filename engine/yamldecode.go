package engine

import (
	"fmt"

	"github.com/herd-sh/herd/internal/yamlpos"

	"go.yaml.in/yaml/v3"
)

// A world file is decoded by the positional decoder shared with persona
// packs and descriptions files (internal/yamlpos): unknown keys, keys
// given twice, aliases and values of the wrong kind are refused with
// file:line:col and the list of keys that would have been accepted
// (yaml.v3's own KnownFields mode gives no column). The spec's leaf
// types below read themselves from one node, keeping where they were.

// worldFile is how a world file is named in the decoder's messages.
var worldFile = yamlpos.Kind{Plural: "world files", Empty: "empty world file", MaxBytes: maxWorldFile}

// decodeError is one problem at one place, from a check that runs after
// decoding (CEL compilation) and is reported as the decoder's are.
type decodeError struct {
	Pos Pos
	Msg string
}

func (e *decodeError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg) }

// DecodeNode reads a CEL expression: a string, quoted or not.
func (x *Expr) DecodeNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a CEL expression (a string), got %s", yamlpos.Describe(n))
	}
	*x = Expr{Src: n.Value, Pos: yamlpos.PosOf(n), Quoted: n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0}
	return nil
}

// DecodeNode keeps any scalar as written, with its tag.
func (s *Scalar) DecodeNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a single value, got %s", yamlpos.Describe(n))
	}
	*s = Scalar{Raw: n.Value, Tag: n.ShortTag(), Pos: yamlpos.PosOf(n), IsSet: n.ShortTag() != "!!null"}
	return nil
}

// DecodeNode reads free text.
func (t *Text) DecodeNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected text, got %s", yamlpos.Describe(n))
	}
	*t = Text{Src: n.Value, Pos: yamlpos.PosOf(n)}
	return nil
}

// DecodeNode reads a duration as written; the compiler parses it.
func (d *Duration) DecodeNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a duration such as 40ms or 2s, got %s", yamlpos.Describe(n))
	}
	*d = Duration{Src: n.Value, Pos: yamlpos.PosOf(n)}
	return nil
}
