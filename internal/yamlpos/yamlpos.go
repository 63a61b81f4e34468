// Package yamlpos turns go.yaml.in/yaml/v3's errors and nodes into what a
// person fixing a file needs: a line and column, and a plain description of
// the value that was wrong. World files, persona packs and description files
// all report problems as file:line:col: message through it.
package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

var lineRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// SyntaxError places a YAML syntax error. The library never gives a
// column, omits "line N:" when the problem is on the first line, and —
// unlike its scanner errors — counts lines from 0 in its parser errors
// ("did not find expected key"), so those get one added. The column is the
// line's first non-blank character.
//
// Invalid UTF-8 is reported by the library with no line at all; it is
// located here, in characters.
func SyntaxError(err error, data []byte) (line, col int, msg string) {
	if l, c, found := firstInvalidUTF8(data); found {
		return l, c, "invalid UTF-8"
	}
	msg = err.Error()
	if strings.Contains(msg, "control characters are not allowed") {
		// The library says so with no line: place the character, and name it.
		if l, c, r, found := firstControl(data); found {
			return l, c, fmt.Sprintf("control character U+%04X is not allowed", r)
		}
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return 0, 0, strings.TrimPrefix(msg, "yaml: ")
	}
	if m[1] == "" {
		return 1, firstNonBlank(data, 1), m[2]
	}
	line, _ = strconv.Atoi(m[1])
	if isParserError(m[2]) {
		line++
	}
	return line, firstNonBlank(data, line), m[2]
}

// isParserError reports whether a YAML message comes from the parser
// (structure) rather than the scanner (characters).
func isParserError(msg string) bool {
	return strings.HasPrefix(msg, "did not find expected") ||
		msg == "found undefined tag handle" || msg == "found duplicate %YAML directive" ||
		msg == "found incompatible YAML document" || msg == "found duplicate %TAG directive"
}

// firstNonBlank returns the 1-based column of the first character on line
// (1-based) that is not a space, or 1 when the line is blank or past the
// end. Tabs count as characters: YAML forbids them in indentation, so a
// tab is usually the very thing to point at.
func firstNonBlank(data []byte, line int) int {
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return 1
		}
		data = data[i+1:]
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	for i, c := range data {
		if c != ' ' {
			return i + 1
		}
	}
	return 1
}

// Describe names what a node is, for "want X, got Y" messages: "a mapping",
// "a list", "the number 3", "the boolean true", "nothing", or the quoted text.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
	default:
		return "something else"
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return "the boolean " + n.Value
	case "!!null":
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

// firstInvalidUTF8 finds the line and column (in characters) of the first
// byte that is not valid UTF-8.
func firstInvalidUTF8(data []byte) (line, col int, found bool) {
	if utf8.Valid(data) {
		return 0, 0, false
	}
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return line, col, true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return line, col, true
}

// firstControl finds the line and column (in characters) of the first
// character YAML does not allow in a file: C0 controls other than tab,
// line feed and carriage return, DEL, C1 controls other than NEL, a
// byte-order mark after the start, and the non-characters U+FFFE, U+FFFF.
func firstControl(data []byte) (line, col int, r rune, found bool) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		bad := (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7F ||
			(r >= 0x80 && r <= 0x9F && r != 0x85) || (r == 0xFEFF && i > 0) || r == 0xFFFE || r == 0xFFFF
		if bad {
			return line, col, r, true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return 0, 0, 0, false
}
