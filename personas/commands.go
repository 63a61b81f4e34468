package personas

import (
	"regexp"
	"slices"
	"strings"

	"github.com/herd-sh/herd/engine"
)

// commandNames finds the tools a text names the way the command line a
// server wraps does: "run `wiki page move`" points at move_page, "see
// `gh issue close`" at close_issue. A reader who knows the tools takes a
// command whose words hold all of one tool's name words, and of no other
// tool's, for that tool.
type commandNames struct {
	names []string   // tool names, as a text writes them
	words [][]string // each tool's name words, lower-case
}

func newCommandNames(w *engine.World) *commandNames {
	c := &commandNames{}
	for _, t := range w.Tools {
		ws := strings.Fields(strings.ToLower(nameWords(t.Name)))
		if len(ws) < 2 {
			continue // a one-word name is a word in any command
		}
		c.names = append(c.names, t.Name)
		c.words = append(c.words, ws)
	}
	return c
}

// codeSpan is a backquoted span: where texts put commands.
var codeSpan = regexp.MustCompile("`([^`\n]{1,120})`")

// rewrite replaces each code span that names exactly one tool as a command
// by that tool's name.
func (c *commandNames) rewrite(text string) string {
	if len(c.names) == 0 || !strings.Contains(text, "`") {
		return text
	}
	return codeSpan.ReplaceAllStringFunc(text, func(span string) string {
		inner := span[1 : len(span)-1]
		if strings.Contains(inner, "(") {
			return span // a call, read as it is
		}
		var ws []string
		for _, f := range strings.Fields(inner) {
			if f == strings.ToLower(f) && strings.Contains(f, "_") {
				return span // a tool's own name, read as it is
			}
			if f == strings.ToLower(f) && !strings.HasPrefix(f, "-") {
				ws = append(ws, f) // command words; not PAGE_ID or --flags
			}
		}
		if len(ws) < 2 {
			return span
		}
		found := -1
		for i, nw := range c.words {
			if !containsAll(ws, nw) {
				continue
			}
			if found >= 0 {
				return span // two tools' words: no one tool is meant
			}
			found = i
		}
		if found < 0 {
			return span
		}
		return c.names[found]
	})
}

func containsAll(ws, of []string) bool {
	for _, w := range of {
		if !slices.Contains(ws, w) {
			return false
		}
	}
	return true
}
