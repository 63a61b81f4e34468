// Package safetext makes text from elsewhere — a world file from a pull
// request, a results file from a CI artifact, an MCP server's tool names —
// inert where herd prints it: inline in Markdown (a PR comment, a step
// summary) and on a terminal. Every renderer that interpolates such text
// goes through one of its two functions, so there is one place to get it
// right.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Markdown makes s one inert line of inline Markdown — in a paragraph, a
// table cell or the text of an HTML element such as <summary>: no line
// breaks (an injected heading or table row); "<" escaped where it could
// open a tag or a comment (raw HTML, an unclosed "<!--" that hides the
// rest of a comment), so "harmful<5%" stays as it is; "@" broken off the
// name after it (no @mention notifies anyone); links and images
// neutralized ("](" and "][" escaped, and a leading "["); "|", backticks,
// backslashes and "&" escaped; a leading "#" or ">" escaped, and a leading
// "-", "+" or "*" before a space (no heading, quote or list); control characters dropped. Escapes are
// character references ("&#124;"), which Markdown shows as the character
// and never reads as syntax, and which mean the same inside HTML. It keeps
// at most maxRunes runes (0 for no limit), ending a cut string with "…".
func Markdown(s string, maxRunes int) string {
	s = clip(s, maxRunes)
	var b strings.Builder
	b.Grow(len(s) + 8)
	prev := rune(0)
	for i, r := range s {
		next := byte(0)
		if j := i + utf8.RuneLen(r); j < len(s) && r != utf8.RuneError {
			next = s[j]
		}
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case isControl(r) || isBidi(r):
			// nothing: invisible, and only ever there to mislead
		case r == '@':
			// A zero-width space after "@" keeps "@octocat" readable but
			// no longer a mention (GitHub's needs a name right after "@";
			// "&#64;" would be decoded before mentions are found).
			b.WriteString("@\u200b")
		case r == '<' && (next == 0 || next == '/' || next == '!' || next == '?' || 'a' <= next|0x20 && next|0x20 <= 'z'):
			b.WriteString("&lt;")
		case r == '(' && prev == ']':
			b.WriteString("&#40;")
		case r == '[' && (prev == ']' || i == 0):
			b.WriteString("&#91;")
		case i == 0 && (r == '#' || r == '>' || (r == '-' || r == '+' || r == '*') && next == ' '):
			fmt.Fprintf(&b, "&#%d;", r)
		case r == '|':
			b.WriteString("&#124;")
		case r == '`':
			b.WriteString("&#96;")
		case r == '\\':
			b.WriteString("&#92;")
		case r == '&':
			b.WriteString("&amp;")
		case r == utf8.RuneError:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// Code makes s safe inside a Markdown code span (`…`): inert already, but
// a backtick would close it, a line break end it, and a "|" split the
// table cell it is in (GFM splits cells before it finds code spans), so
// backticks become "'" and pipes "¦".
func Code(s string, maxRunes int) string {
	s = clip(s, maxRunes)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '`':
			b.WriteByte('\'')
		case r == '|':
			b.WriteRune('¦')
		case r == '\n' || r == '\r' || r == '\t' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case isControl(r) || isBidi(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Terminal makes s safe to print on a terminal: every C0 and C1 control
// character (ESC sequences that clear the screen or set the title, a
// carriage return that overprints a line, a newline inside a table cell)
// and every bidirectional override is shown as \uXXXX, and invalid UTF-8
// as U+FFFD. It keeps at most maxRunes runes (0 for no limit), ending a cut
// string with "…", so that a 10 MB name prints as one short cell.
func Terminal(s string, maxRunes int) string {
	s = clip(s, maxRunes)
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || isControl(r) || isBidi(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case isControl(r) || isBidi(r):
			const hex = "0123456789abcdef"
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		case r == utf8.RuneError:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isControl reports C0 controls, DEL and C1 controls.
func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// isBidi reports the bidirectional embedding, override and isolate
// characters, which make text display in another order than it reads.
func isBidi(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }

// clip keeps at most n runes of s (all of it when n ≤ 0), without decoding
// more of s than that: a 10 MB string costs as much as a short one.
func clip(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) {
		if count == n-1 {
			// One rune left: if the rest is that one rune, keep it.
			_, size := utf8.DecodeRuneInString(s[i:])
			if i+size == len(s) {
				return s
			}
			return s[:i] + "…"
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s
}
