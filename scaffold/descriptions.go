package scaffold

import (
	"bytes"
	"fmt"
	"strings"
)

// Text is one tool's description as a descriptions file gives it.
type Text struct {
	Tool string // the world's name for the tool
	Text string
}

// toolNames are the world names of a source's tools, in order: Name of
// each, with a repeat numbered (a server may list get-item and get_item).
func toolNames(src *Source) []string {
	out := make([]string, len(src.Ops))
	seen := map[string]int{}
	for i, op := range src.Ops {
		n := Name(op.Name)
		seen[n]++
		if seen[n] > 1 {
			n = fmt.Sprintf("%s_%d", n, seen[n])
		}
		out[i] = n
	}
	return out
}

// descriptionOf is the text a scaffolded world gives a tool: the server's
// description, else its title, else its name in words (and the world
// marks that for a check).
func descriptionOf(op *Op, name string) string {
	if d := strings.TrimSpace(op.Description); d != "" {
		return d
	}
	return firstNonEmpty(op.Title, words(name))
}

// Texts are the source's tool descriptions under the names a world
// scaffolded from it gives its tools.
func Texts(src *Source) []Text {
	names := toolNames(src)
	out := make([]Text, len(names))
	for i := range src.Ops {
		out[i] = Text{Tool: names[i], Text: descriptionOf(&src.Ops[i], names[i])}
	}
	return out
}

// DescriptionsFile writes texts as a descriptions file (the format herd
// swarm, lint and explain read with --descriptions), each text under
// variant, after the header lines as comments.
func DescriptionsFile(header []string, variant string, texts []Text) []byte {
	var b bytes.Buffer
	for _, h := range header {
		if h == "" {
			b.WriteString("#\n")
			continue
		}
		b.WriteString("# " + h + "\n")
	}
	for _, t := range texts {
		fmt.Fprintf(&b, "%s:\n  %s: %s\n", t.Tool, variant, q(t.Text))
	}
	return b.Bytes()
}
