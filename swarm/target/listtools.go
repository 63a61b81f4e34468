package target

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TooManyToolsError is a server that lists more tools than the caller
// allows: the linter's and the swarm's work grows with the tool count, so
// a server (or a saved list) is refused before that work starts.
type TooManyToolsError struct {
	Source string // the server or file, as given
	Limit  int
}

func (e *TooManyToolsError) Error() string {
	return fmt.Sprintf("%s lists more than %d tools, the limit", e.Source, e.Limit)
}

// ListTools connects to the MCP server spec names (Streamable HTTP or a
// stdio subprocess), asks what it is and what tools it has (every page),
// and closes the connection. The host guard applies as for a run: a
// non-loopback host is refused unless opts.AllowHosts names it, before
// anything is contacted. At most maxTools tools are read (0: no limit);
// a server listing more fails with a *TooManyToolsError, without reading
// the rest. Listing is bounded by opts.CallTimeout.
func ListTools(ctx context.Context, spec Spec, opts Options, maxTools int) (*mcp.Implementation, []*mcp.Tool, error) {
	var (
		cs    *mcp.ClientSession
		close func() error
		note  func() string
	)
	switch spec.Kind {
	case KindHTTP:
		if err := CheckHost(spec.URL, opts.AllowHosts); err != nil {
			return nil, nil, err
		}
		c, err := connectHTTP(ctx, spec.URL.String(), NewHTTPClient(opts))
		if err != nil {
			return nil, nil, err
		}
		cs, close, note = c, c.Close, func() string { return "" }
	case KindStdio:
		// A server's log lines on stdout are skipped here too: listing
		// its tools must not fail where a run does not.
		p, err := startProcess(ctx, spec.Command, &SkippedLines{})
		if err != nil {
			return nil, nil, err
		}
		cs, close, note = p.cs, p.close, p.stderr.tailNote
	default:
		return nil, nil, fmt.Errorf("%s: not an MCP server (want http://…/mcp or mcp+stdio:COMMAND)", spec.Raw)
	}
	defer close()
	timeout := opts.CallTimeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(lctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("%s: listing tools: %w%s", spec.Raw, err, note())
		}
		if maxTools > 0 && len(tools) == maxTools {
			return nil, nil, &TooManyToolsError{Source: spec.Raw, Limit: maxTools}
		}
		tools = append(tools, t)
	}
	info := &mcp.Implementation{Name: "unknown"}
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		info = r.ServerInfo
	}
	return info, tools, nil
}
