package safetext

import (
	"strings"
	"testing"
)

const hostile = "<script>alert(1)</script> @octocat <!-- [x](http://e) |a| `c`\nline2\x1b]0;title\x07\x1b[2J\u009b\u202e"

func TestMarkdownIsInert(t *testing.T) {
	got := Markdown(hostile, 0)
	for _, live := range []string{"<", "@o", "\n", "\x1b", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(got, live) {
			t.Errorf("Markdown(%q) = %q still holds %q", hostile, got, live)
		}
	}
	for _, live := range []string{"|", "`", "](", "<!", "<s", "</"} {
		if strings.Contains(got, live) {
			t.Errorf("Markdown = %q still holds %q", got, live)
		}
	}
	if !strings.Contains(got, "&lt;script>") || !strings.Contains(got, "@\u200boctocat") || !strings.Contains(got, "[x]&#40;http") ||
		!strings.Contains(got, "&#124;a&#124;") || !strings.Contains(got, "&#96;c&#96;") {
		t.Errorf("Markdown = %q: the text is not kept readable", got)
	}
}

func TestTerminalShowsControls(t *testing.T) {
	got := Terminal(hostile, 0)
	for _, live := range []string{"\n", "\x1b", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(got, live) {
			t.Errorf("Terminal = %q still holds %q", got, live)
		}
	}
	for _, shown := range []string{`\u000a`, `\u001b]0;title\u0007`, `\u009b`, `\u202e`} {
		if !strings.Contains(got, shown) {
			t.Errorf("Terminal = %q lacks %q", got, shown)
		}
	}
	if Terminal("plain café", 0) != "plain café" {
		t.Error("plain text changed")
	}
	if s := Terminal("a\xffb", 0); s != "a\uFFFDb" {
		t.Errorf("invalid UTF-8 shown as %q", s)
	}
}

func TestClipIsBoundedAndRuneSafe(t *testing.T) {
	huge := strings.Repeat("é", 5<<20)
	if got := Terminal(huge, 80); len([]rune(got)) != 80 || !strings.HasSuffix(got, "…") {
		t.Errorf("clipped to %d runes", len([]rune(got)))
	}
	if got := Markdown("abc", 3); got != "abc" {
		t.Errorf("a string of exactly the limit was cut: %q", got)
	}
	if got := Terminal("abcd", 3); got != "ab…" {
		t.Errorf("Terminal(abcd, 3) = %q", got)
	}
}

func TestMarkdownKeepsHerdTextReadable(t *testing.T) {
	for _, s := range []string{"harmful<5%", "3.7% [2.5–5.4]", "p < 0.001", "+17.3 pp", "-0.5", "hide_contact → destroyed_data"} {
		if got := Markdown(s, 0); got != s {
			t.Errorf("Markdown(%q) = %q, want it unchanged", s, got)
		}
	}
	for in, want := range map[string]string{"# title": "&#35; title", "[a]: http://e": "&#91;a]: http://e", "x][y]": "x]&#91;y]", "a<": "a&lt;", "- item": "&#45; item"} {
		if got := Markdown(in, 0); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCodeStaysOneSpan(t *testing.T) {
	if got := Code("a`b|c\nd\x1b", 0); got != "a'b¦c d" {
		t.Errorf("Code = %q", got)
	}
}
