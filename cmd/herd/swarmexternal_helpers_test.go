package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// externalTestHandler is a one-tool MCP server over Streamable HTTP: a
// read-only lookup that checks its argument.
func externalTestHandler() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "lookup-server", Version: "0.1.0"}, nil)
	no := false
	srv.AddTool(&mcp.Tool{
		Name:        "lookup",
		Description: "Look up one word in the dictionary and return its definition. Read-only.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &no},
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"word": map[string]any{"type": "string", "maxLength": 30, "description": "The word."}},
			"required":             []any{"word"},
			"additionalProperties": false,
		},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if err := unmarshalArgs(req.Params.Arguments, &args); err != nil {
			return toolErr("arguments must be an object"), nil
		}
		w, ok := args["word"].(string)
		if !ok || len(w) > 30 || len(args) != 1 {
			return toolErr(`lookup takes one argument, "word": a string of at most 30 characters`), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(`{"word": %q, "definition": "a word"}`, w)}}}, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
}

func toolErr(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

func unmarshalArgs(b []byte, v any) error {
	if len(b) == 0 {
		b = []byte("{}")
	}
	return json.Unmarshal(b, v)
}
