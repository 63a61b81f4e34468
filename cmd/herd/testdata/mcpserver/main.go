// mcpserver is a small MCP server for herd's tests of external targets.
// Its -mode makes it healthy, or broken in one way:
//
//	healthy    answers properly (one sloppy tool accepts garbage, one
//	           "read-only" tool changes its answer on every call)
//	crash      exits after -after tool calls, mid-run
//	hang       stops answering every call after -after tool calls
//	slow       never answers get_weather after -after tool calls (the
//	           other tools answer as usual)
//	malformed  answers every call with a result that has no content
//	noisy      healthy, but writes log lines to stdout (which a stdio
//	           server must not): one before it serves, one after every
//	           third answer
//
// It serves stdio by default, or Streamable HTTP on -http ADDR (loopback),
// printing the MCP URL on stdout.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	mode := flag.String("mode", "healthy", "healthy, crash, hang, slow, malformed or noisy")
	after := flag.Int("after", 10, "crash and hang: how many calls go well first")
	addr := flag.String("http", "", "serve Streamable HTTP on this loopback address instead of stdio")
	flag.Parse()
	s := &server{
		mcp:   mcp.NewServer(&mcp.Implementation{Name: "testserver-" + *mode, Version: "1.0.0"}, nil),
		mode:  *mode,
		after: int64(*after),
	}
	s.addTools()

	if *addr == "" {
		// One writer for messages and log lines, so that a log line never
		// lands inside a message.
		s.stdout = &lockedWriter{w: os.Stdout}
		if s.mode == "noisy" {
			s.log("MCP test server running on stdio")
		}
		if err := s.mcp.Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: s.stdout}); err != nil {
			log.Print(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	log.Fatal(http.Serve(ln, h))
}

// server is the MCP server and the state its modes need.
type server struct {
	mcp    *mcp.Server
	mode   string
	after  int64
	calls  atomic.Int64 // tool calls so far, every tool
	peeks  atomic.Int64 // peek_counter's calls
	stdout *lockedWriter
}

// lockedWriter is stdout shared by the transport and the log lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// log writes a line to stdout, between messages.
func (s *server) log(line string) {
	if s.stdout != nil {
		_, _ = s.stdout.Write([]byte(line + "\n"))
	}
}

// add registers a tool. Every call is counted first and broken the way
// -mode says; only a call that goes well reaches answer.
func (s *server) add(t *mcp.Tool, answer mcp.ToolHandler) {
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := s.calls.Add(1)
		switch {
		case s.mode == "crash" && n > s.after:
			fmt.Fprintln(os.Stderr, "testserver: simulated crash")
			os.Exit(3)
		case s.mode == "malformed":
			return &mcp.CallToolResult{}, nil
		case s.mode == "hang" && n > s.after,
			s.mode == "slow" && t.Name == "get_weather" && n > s.after:
			<-ctx.Done() // never answers
			return nil, ctx.Err()
		}
		if s.mode == "noisy" && n%3 == 0 {
			// The answer to this call is written after the line, so the
			// line comes between two answers.
			s.log(fmt.Sprintf("[info] handled %d calls", n))
		}
		return answer(ctx, req)
	})
}

// withArgs adapts a tool that reads its arguments as a JSON object; any
// other arguments are refused with a tool error.
func withArgs(answer func(args map[string]any) *mcp.CallToolResult) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := req.Params.Arguments
		if len(raw) == 0 {
			raw = []byte("{}")
		}
		var args map[string]any
		if err := json.Unmarshal(raw, &args); err != nil {
			return fail(fmt.Sprintf("arguments must be a JSON object: %v", err)), nil
		}
		return answer(args), nil
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func fail(s string) *mcp.CallToolResult {
	r := text(s)
	r.IsError = true
	return r
}

func (s *server) addTools() {
	yes, no := true, false
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &no}

	s.add(&mcp.Tool{
		Name:        "get_weather",
		Description: "Get the current weather for one city. Read-only; changes nothing. Returns the temperature in the units asked for.",
		Annotations: readOnly,
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"city":  map[string]any{"type": "string", "minLength": 1, "maxLength": 40, "description": "The city's name, e.g. Lisbon."},
				"units": map[string]any{"type": "string", "enum": []any{"c", "f"}, "description": "c for Celsius, f for Fahrenheit."},
			},
			"required":             []any{"city"},
			"additionalProperties": false,
		},
	}, withArgs(func(args map[string]any) *mcp.CallToolResult {
		city, ok := args["city"].(string)
		if !ok || city == "" || len(city) > 40 {
			return fail(`argument "city": want a string of 1 to 40 characters`)
		}
		units := "c"
		if u, present := args["units"]; present {
			if units, ok = u.(string); !ok || (units != "c" && units != "f") {
				return fail(`argument "units": want "c" or "f"`)
			}
		}
		for k := range args {
			if k != "city" && k != "units" {
				return fail(fmt.Sprintf("unknown argument %q", k))
			}
		}
		return text(fmt.Sprintf(`{"city": %q, "temperature": 21, "units": %q}`, city, units))
	}))

	s.add(&mcp.Tool{
		Name:        "add",
		Description: "Add two whole numbers between -1000 and 1000 and return the sum. Read-only.",
		Annotations: readOnly,
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"a": map[string]any{"type": "integer", "minimum": -1000, "maximum": 1000, "description": "The first number."},
				"b": map[string]any{"type": "integer", "minimum": -1000, "maximum": 1000, "description": "The second number."},
			},
			"required":             []any{"a", "b"},
			"additionalProperties": false,
		},
	}, withArgs(func(args map[string]any) *mcp.CallToolResult {
		var sum float64
		for _, k := range []string{"a", "b"} {
			v, ok := args[k].(float64)
			if !ok || v != float64(int64(v)) || v < -1000 || v > 1000 {
				return fail(fmt.Sprintf("argument %q: want a whole number from -1000 to 1000", k))
			}
			sum += v
		}
		if len(args) != 2 {
			return fail("add takes a and b only")
		}
		return text(fmt.Sprintf(`{"sum": %g}`, sum))
	}))

	// echo says it refuses unknown arguments but never checks: garbage in,
	// garbage out.
	s.add(&mcp.Tool{
		Name:        "echo",
		Description: "Echo a short text back. Read-only.",
		Annotations: readOnly,
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"text": map[string]any{"type": "string", "maxLength": 100, "description": "The text to echo."}},
			"required":             []any{"text"},
			"additionalProperties": false,
		},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(string(req.Params.Arguments)), nil
	})

	// peek_counter claims to be read-only, yet counts its own calls.
	s.add(&mcp.Tool{
		Name:        "peek_counter",
		Description: "Read the counter's current value. Read-only.",
		Annotations: readOnly,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(fmt.Sprintf(`{"value": %d}`, s.peeks.Add(1))), nil
	})

	s.add(&mcp.Tool{
		Name:        "create_note",
		Description: "Create a note with a title. Writes: each call adds a note.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: false, OpenWorldHint: &yes},
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"title": map[string]any{"type": "string", "minLength": 1, "maxLength": 80, "description": "The note's title."}},
			"required":             []any{"title"},
			"additionalProperties": false,
		},
	}, withArgs(func(args map[string]any) *mcp.CallToolResult {
		if t, ok := args["title"].(string); !ok || t == "" || len(t) > 80 || len(args) != 1 {
			return fail(`create_note takes one argument, "title": a string of 1 to 80 characters`)
		}
		return text(`{"created": true}`)
	}))
}
