// Package target is what a swarm's agents talk to when they do not run
// in-process: a herd world served over MCP (Streamable HTTP or a stdio
// subprocess), whose control plane lets the swarm set each episode's
// session up and read its end state, or any other MCP server, which is
// discovered and judged on its answers alone.
//
// The in-process engine needs none of this; nothing here is imported by the
// engine or the personas.
package target

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/herd-sh/herd/internal/field"
)

// Kind is how a target is reached.
type Kind int

// Target kinds.
const (
	KindInProcess Kind = iota // mock:NAME or a world file: the engine itself, virtual time
	KindServe                 // serve:WORLD: herd serve started in this process, driven over Streamable HTTP
	KindHTTP                  // http://HOST:PORT/PATH: a running MCP server over Streamable HTTP
	KindStdio                 // mcp+stdio:COMMAND ARGS…: MCP servers started as subprocesses
)

func (k Kind) String() string {
	return [...]string{"in-process", "serve", "http", "stdio"}[k]
}

// Spec is a parsed TARGET argument.
type Spec struct {
	Kind    Kind
	Raw     string   // as the user wrote it
	World   string   // KindInProcess and KindServe: the world reference (mock:crm or a path)
	URL     *url.URL // KindHTTP: the MCP endpoint
	Command []string // KindStdio: the command and its arguments
}

// Stdio and serve prefixes.
const (
	stdioPrefix = "mcp+stdio:"
	servePrefix = "serve:"
)

// Parse reads a TARGET argument: mock:NAME or a world file (in-process),
// serve:WORLD, an http:// or https:// MCP URL, or mcp+stdio:COMMAND ARGS….
// It only parses: nothing is contacted.
func Parse(s string) (Spec, error) {
	raw := s
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Spec{}, fmt.Errorf("target: empty; want mock:NAME, a world file, serve:WORLD, http://127.0.0.1:PORT/mcp or mcp+stdio:COMMAND")
	case strings.HasPrefix(s, stdioPrefix):
		cmd, err := SplitCommand(strings.TrimPrefix(s, stdioPrefix))
		if err != nil {
			return Spec{}, fmt.Errorf("target %q: %w", raw, err)
		}
		if len(cmd) == 0 {
			return Spec{}, fmt.Errorf("target %q: no command after %s", raw, stdioPrefix)
		}
		return Spec{Kind: KindStdio, Raw: raw, Command: cmd}, nil
	case strings.HasPrefix(s, servePrefix):
		w := strings.TrimSpace(strings.TrimPrefix(s, servePrefix))
		if w == "" {
			return Spec{}, fmt.Errorf("target %q: no world after serve: (e.g. serve:mock:crm)", raw)
		}
		return Spec{Kind: KindServe, Raw: raw, World: w}, nil
	case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
		u, err := url.Parse(s)
		if err != nil {
			return Spec{}, fmt.Errorf("target %q: %v", raw, err)
		}
		if u.Host == "" || u.Hostname() == "" {
			return Spec{}, fmt.Errorf("target %q: no host in the URL", raw)
		}
		if u.User != nil {
			return Spec{}, field.Errorf("Token", "target %q: credentials in the URL are not supported; give a bearer token instead", raw)
		}
		if u.Path == "" {
			u.Path = "/"
		}
		return Spec{Kind: KindHTTP, Raw: raw, URL: u}, nil
	case strings.Contains(s, "://"):
		scheme, _, _ := strings.Cut(s, "://")
		return Spec{}, fmt.Errorf("target %q: unsupported scheme %q; want an http:// or https:// URL, mcp+stdio:COMMAND, serve:WORLD or mock:NAME", raw, scheme)
	}
	return Spec{Kind: KindInProcess, Raw: raw, World: s}, nil
}

// SplitCommand splits a command line into words the way a POSIX shell would
// for the simple cases: whitespace separates, single quotes keep everything,
// double quotes keep everything but \" and \\, a backslash outside quotes
// escapes the next character. No variables, globs or pipes: the command is
// run directly, not through a shell.
func SplitCommand(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\'):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\':
			if i+1 >= len(rs) {
				return nil, fmt.Errorf("command ends with a lone backslash")
			}
			i++
			cur.WriteRune(rs[i])
			in = true
		case unicode.IsSpace(r):
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("command has an unclosed %c quote", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
