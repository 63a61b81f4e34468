package herdmcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/internal/version"
	"github.com/herd-sh/herd/serve"
)

// Server is herd as an MCP server. Create it with New; it is safe for
// concurrent use.
type Server struct {
	cat   *catalogue
	store resultsStore
	mcp   *mcp.Server
	log   *slog.Logger
	// runs holds a token per run going (Config.MaxRuns).
	runs chan struct{}
}

// New checks cfg, compiles its worlds and builds the MCP server. The
// results folder is created on the first run; the runs already in it are
// listed as resources.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	cat, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dir, err := filepath.Abs(cat.resultsDir)
	if err != nil {
		return nil, fmt.Errorf("ResultsDir %s: %w", cat.resultsDir, err)
	}
	s := &Server{cat: cat, store: resultsStore{dir: dir}, log: log, runs: make(chan struct{}, cat.maxRuns)}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "herd", Title: "herd: swarm tests of tool descriptions", Version: version.String()},
		&mcp.ServerOptions{Instructions: instructions, Logger: serve.SDKLogger(log, "mcp")})
	s.mcp.AddReceivingMiddleware(serve.ContainPanics(s.log))
	s.addTools()
	if err := s.addResources(); err != nil {
		return nil, err
	}
	return s, nil
}

// instructions tell a client's model what the server is for and how its
// answers are meant to be read.
const instructions = `herd runs seeded swarms of scripted-persona agents against fake worlds (a CRM, payments, a shop, mail, files) and reports how often they damage the world's data under a given wording of the tools' descriptions.
Start with list_worlds. run_swarm runs one; compare_wordings runs the same agents under two wordings and says whether the difference is significant; explain_choice shows why a persona picks the tool it picks; lint_world scores the descriptions. Every run answer reports its seed and the exact herd swarm command that reproduces it; saved runs are resources (herd-results://RUN_ID) and read_results renders one as Markdown.
Which worlds and description files exist, where results go, and how many agents a run may have are fixed by the server's configuration: a refusal names the setting that changes it.`

// MCP is the underlying SDK server (to connect it to any transport).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ResultsDir is the absolute results folder.
func (s *Server) ResultsDir() string { return s.store.dir }

// Worlds lists the configured worlds as name (reference).
func (s *Server) Worlds() string { return s.cat.worldList() }

// ServeStdio serves one MCP session over in and out (newline-delimited
// JSON-RPC) until in ends or ctx is done.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ss, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
			return fmt.Errorf("stdio session: %w", err)
		}
		return nil
	case <-ctx.Done():
		_ = ss.Close()
		<-done
		return nil
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// HTTPOptions are the rules of the Streamable HTTP endpoint: herd serve's.
type HTTPOptions struct {
	// Token, when set, must come as "Authorization: Bearer TOKEN".
	Token string
	// AllowRemote accepts Host and Origin headers that are not loopback.
	AllowRemote bool
}

// MCPPath is where the Streamable HTTP endpoint is served.
const MCPPath = "/mcp"

// Handler serves MCP over Streamable HTTP at /mcp behind herd serve's
// guard: loopback Host and Origin only (DNS-rebinding protection) unless
// AllowRemote, and the bearer token when one is set. Answers stream as
// server-sent events, so that progress notifications reach the client
// while a run goes.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(MCPPath, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:              serve.SDKLogger(s.log, "mcp"),
		MaxRequestBodyBytes: serve.MaxRequestBytes,
		// The guard checks Host itself, and knows about AllowRemote.
		DisableLocalhostProtection: opts.AllowRemote,
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found: herd mcp serves MCP at "+MCPPath, http.StatusNotFound)
	})
	return serve.Guard(mux, opts.Token, opts.AllowRemote, s.log)
}
