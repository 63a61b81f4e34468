// Package jsonstr appends a string as encoding/json writes it, without
// reflection or allocation: the world's values (engine) and herd serve's
// tool results (serve) are written on every call, and json.Marshal of a
// string is most of what they would cost.
package jsonstr

import "unicode/utf8"

// Append appends s as a JSON string exactly as json.Marshal writes a Go
// string (HTML escaping on, its default): <, > and & as \u003c, \u003e,
// \u0026; control characters as \b, \f, \n, \r, \t or \u00XX; invalid
// UTF-8 as \ufffd; U+2028 and U+2029 escaped.
func Append[S ~string | ~[]byte](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		// A rune's bytes, copied out so that one decoder serves both
		// string and []byte without converting (and allocating).
		var buf [utf8.UTFMax]byte
		r, size := utf8.DecodeRune(buf[:copy(buf[:], s[i:])])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
