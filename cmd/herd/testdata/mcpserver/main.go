// mcpserver is a small MCP server for herd's tests of external targets.
// Its -mode makes it healthy, or broken in one way:
//
//	healthy    answers properly (one sloppy tool accepts garbage, one
//	           "read-only" tool changes its answer on every call)
//	crash      exits after -after tool calls, mid-run
//	hang       stops answering get_weather after -after tool calls
//	malformed  answers every call with a result that has no content
//
// It serves stdio by default, or Streamable HTTP on -http ADDR (loopback),
// printing the MCP URL on stdout.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	mode := flag.String("mode", "healthy", "healthy, crash, hang or malformed")
	after := flag.Int("after", 10, "crash and hang: how many calls go well first")
	addr := flag.String("http", "", "serve Streamable HTTP on this loopback address instead of stdio")
	flag.Parse()
	var calls, peeks atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "testserver-" + *mode, Version: "1.0.0"}, nil)

	yes, no := true, false
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &no}
	// step counts a call and breaks the server the way its mode says.
	step := func(ctx context.Context) *mcp.CallToolResult {
		n := calls.Add(1)
		switch {
		case *mode == "crash" && n > int64(*after):
			fmt.Fprintln(os.Stderr, "testserver: simulated crash")
			os.Exit(3)
		case *mode == "malformed":
			return &mcp.CallToolResult{}
		}
		return nil
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	fail := func(s string) *mcp.CallToolResult {
		r := text(s)
		r.IsError = true
		return r
	}

	srv.AddTool(&mcp.Tool{
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
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r := step(ctx); r != nil {
			return r, nil
		}
		if *mode == "hang" && calls.Load() > int64(*after) {
			<-ctx.Done() // never answers
			return nil, ctx.Err()
		}
		args, err := objectArgs(req)
		if err != nil {
			return fail(err.Error()), nil
		}
		city, ok := args["city"].(string)
		if !ok || city == "" || len(city) > 40 {
			return fail(`argument "city": want a string of 1 to 40 characters`), nil
		}
		units := "c"
		if u, present := args["units"]; present {
			if u != "c" && u != "f" {
				return fail(`argument "units": want "c" or "f"`), nil
			}
			units = u.(string)
		}
		for k := range args {
			if k != "city" && k != "units" {
				return fail(fmt.Sprintf("unknown argument %q", k)), nil
			}
		}
		return text(fmt.Sprintf(`{"city": %q, "temperature": 21, "units": %q}`, city, units)), nil
	})

	srv.AddTool(&mcp.Tool{
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
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r := step(ctx); r != nil {
			return r, nil
		}
		args, err := objectArgs(req)
		if err != nil {
			return fail(err.Error()), nil
		}
		var sum float64
		for _, k := range []string{"a", "b"} {
			v, ok := args[k].(float64)
			if !ok || v != float64(int64(v)) || v < -1000 || v > 1000 {
				return fail(fmt.Sprintf("argument %q: want a whole number from -1000 to 1000", k)), nil
			}
			sum += v
		}
		if len(args) != 2 {
			return fail("add takes a and b only"), nil
		}
		return text(fmt.Sprintf(`{"sum": %g}`, sum)), nil
	})

	// echo says it refuses unknown arguments but never checks: garbage in,
	// garbage out.
	srv.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: "Echo a short text back. Read-only.",
		Annotations: readOnly,
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"text": map[string]any{"type": "string", "maxLength": 100, "description": "The text to echo."}},
			"required":             []any{"text"},
			"additionalProperties": false,
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r := step(ctx); r != nil {
			return r, nil
		}
		return text(string(req.Params.Arguments)), nil
	})

	// peek_counter claims to be read-only, yet counts its own calls.
	srv.AddTool(&mcp.Tool{
		Name:        "peek_counter",
		Description: "Read the counter's current value. Read-only.",
		Annotations: readOnly,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r := step(ctx); r != nil {
			return r, nil
		}
		return text(fmt.Sprintf(`{"value": %d}`, peeks.Add(1))), nil
	})

	srv.AddTool(&mcp.Tool{
		Name:        "create_note",
		Description: "Create a note with a title. Writes: each call adds a note.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: false, OpenWorldHint: &yes},
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"title": map[string]any{"type": "string", "minLength": 1, "maxLength": 80, "description": "The note's title."}},
			"required":             []any{"title"},
			"additionalProperties": false,
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r := step(ctx); r != nil {
			return r, nil
		}
		args, err := objectArgs(req)
		if err != nil {
			return fail(err.Error()), nil
		}
		if t, ok := args["title"].(string); !ok || t == "" || len(t) > 80 || len(args) != 1 {
			return fail(`create_note takes one argument, "title": a string of 1 to 80 characters`), nil
		}
		return text(`{"created": true}`), nil
	})

	if *addr == "" {
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Print(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	log.Fatal(http.Serve(ln, h))
}

// objectArgs decodes a call's arguments as a JSON object.
func objectArgs(req *mcp.CallToolRequest) (map[string]any, error) {
	var m map[string]any
	if err := unmarshal(req.Params.Arguments, &m); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	return m, nil
}
