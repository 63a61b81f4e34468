package target

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// External is any MCP server: no control plane, so the swarm sees only its
// answers. Connections are pooled like a Served target's.
type External struct {
	name        string
	callTimeout time.Duration
	pool
}

// ExternalHTTP is an MCP server over Streamable HTTP at u.
func ExternalHTTP(u *url.URL, hc *http.Client, opts Options) *External {
	endpoint := u.String()
	dial := func(ctx context.Context) (*conn, error) {
		cs, err := connectHTTP(ctx, endpoint, hc)
		if err != nil {
			return nil, err
		}
		return &conn{cs: cs, close: cs.Close}, nil
	}
	return newExternal(endpoint, dial, opts)
}

// External turns the stdio server into a target judged on its answers: a
// pool of subprocesses, the first one already started.
func (s *Stdio) External(name string) *External {
	command := s.command
	dial := func(ctx context.Context) (*conn, error) {
		p, err := startProcess(ctx, command)
		if err != nil {
			return nil, err
		}
		return &conn{cs: p.cs, close: p.close, stderr: p.stderr}, nil
	}
	e := newExternal(name, dial, s.opts)
	if s.first != nil {
		e.adopt(&conn{cs: s.first.cs, close: s.first.close, stderr: s.first.stderr})
		s.first = nil
	}
	return e
}

func newExternal(name string, d dialer, opts Options) *External {
	t := opts.CallTimeout
	if t <= 0 {
		t = DefaultCallTimeout
	}
	return &External{name: name, callTimeout: t, pool: newPool(name, d)}
}

// Name is the target as given.
func (e *External) Name() string { return e.name }

// Server describes the server and lists its tools (every page).
func (e *External) Server(ctx context.Context) (*mcp.Implementation, []*mcp.Tool, error) {
	c, err := e.take(ctx)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.callTimeout)
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			e.release(c, false)
			return nil, nil, fmt.Errorf("%s: listing tools: %w%s", e.name, err, c.note())
		}
		tools = append(tools, t)
	}
	info := &mcp.Implementation{Name: "unknown"}
	if r := c.cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		info = r.ServerInfo
	}
	e.release(c, true)
	return info, tools, nil
}

// ExternalCall is one call's answer and what became of it.
type ExternalCall struct {
	Result *mcp.CallToolResult // nil unless the server answered with a result
	Class  Class
	Err    error // the protocol, transport or timeout error
	Took   time.Duration
}

// ExternalSession is a connection held for one agent's calls.
type ExternalSession struct {
	e   *External
	c   *conn
	bad bool
}

// Open takes a connection for one agent.
func (e *External) Open(ctx context.Context) (*ExternalSession, error) {
	c, err := e.take(ctx)
	if err != nil {
		return nil, err
	}
	return &ExternalSession{e: e, c: c}, nil
}

// Call makes one metered call.
func (s *ExternalSession) Call(ctx context.Context, tool string, args map[string]any, m Meter) ExternalCall {
	m.Started()
	start := time.Now()
	r, class, err := callTool(ctx, s.c.cs, s.e.callTimeout, tool, args, nil)
	took := time.Since(start)
	m.Ended(tool, took, class, toolErrorCode(r, class))
	if class == ClassTransport || class == ClassTimeout {
		s.bad = true
		if err != nil {
			err = fmt.Errorf("%w%s", err, s.c.note())
		}
	}
	return ExternalCall{Result: r, Class: class, Err: err, Took: took}
}

// Close gives the connection back, or drops it after a transport failure.
func (s *ExternalSession) Close() {
	if s.c != nil {
		s.e.release(s.c, !s.bad)
		s.c = nil
	}
}

// Close ends every connection and subprocess.
func (e *External) Close() error { return e.closeAll() }

// note is the end of a subprocess's stderr, for an error message.
func (c *conn) note() string {
	if c.stderr == nil {
		return ""
	}
	return strings.TrimSpace(c.stderr.tailNote())
}

// toolErrorCode is the code of a tool error that names one the way herd
// worlds do ({"error": {"code": …}}); most servers' errors are free text,
// and their code is "".
func toolErrorCode(r *mcp.CallToolResult, class Class) string {
	if class != ClassToolError || r == nil {
		return ""
	}
	text, err := resultText(r)
	if err != nil || len(text) == 0 || text[0] != '{' {
		return ""
	}
	var we struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(text, &we) != nil || we.Error == nil {
		return ""
	}
	return we.Error.Code
}
