package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/boundedio"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
	"github.com/herd-sh/herd/worlds"
)

// defaultMaxTools bounds the tools herd reads from one world, server or
// saved list. Linting and discovery cost grows with the count; thousands
// of tools is a list no agent is sent anyway, and a hostile one
// otherwise makes the linter work for minutes.
const defaultMaxTools = 2000

// maxToolListFile bounds a saved tools/list file (a large real server's
// list is a few hundred kilobytes).
const maxToolListFile = 16 << 20

// toolSourceKind is where a tool list came from.
type toolSourceKind int

const (
	toolsFromWorld  toolSourceKind = iota // mock:NAME or a world file
	toolsFromServer                       // mcp+stdio:… or http(s)://…/mcp
	toolsFromFile                         // a saved tools/list JSON file
)

// toolList is what a lint, inspect or new argument offers agents: a herd
// world's tools, a running MCP server's, or a saved tools/list answer.
type toolList struct {
	Source string // the argument as given
	Kind   toolSourceKind
	// World is the loaded world for a world reference, nil otherwise.
	World *engine.World
	// Server is what the server said it is; for a world, the world's name
	// and version; for a file, the file's base name.
	Server *mcp.Implementation
	// Tools are the tools as an MCP client lists them (for a world, under
	// its default variant).
	Tools []*mcp.Tool
}

// toolTargetOptions are the flags of a command that reads a tool list
// from a server: the host guard, the bearer token, the time and size
// limits, and the tool cap.
type toolTargetOptions struct {
	allowHosts  []string
	token       string
	callTimeout time.Duration
	maxResponse int64
	maxTools    int
}

func (o *toolTargetOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&o.allowHosts, "allow-host", nil, "allow this non-loopback server host (repeatable); herd contacts only this machine otherwise")
	f.StringVar(&o.token, "token", "", "bearer token for an HTTP server (default: $"+tokenEnv+")")
	f.DurationVar(&o.callTimeout, "call-timeout", target.DefaultCallTimeout, "longest listing a server's tools may take")
	f.Int64Var(&o.maxResponse, "max-response-bytes", target.DefaultMaxResponseBytes, "largest answer an HTTP server may send")
	f.IntVar(&o.maxTools, "max-tools", defaultMaxTools, "refuse a world, server or tool list with more tools than this")
}

func (o *toolTargetOptions) targetOptions() target.Options {
	token := o.token
	if token == "" {
		token = os.Getenv(tokenEnv)
	}
	return target.Options{AllowHosts: o.allowHosts, Token: token, CallTimeout: o.callTimeout, MaxConns: 1, MaxResponseBytes: o.maxResponse}
}

// loadToolList reads the tools behind arg: a world reference (mock:NAME
// or a world file), an MCP server (mcp+stdio:COMMAND… or
// http(s)://HOST/mcp, under the same host guard as a swarm), or a saved
// tools/list JSON file (the result object {"tools": […]}, a whole JSON-RPC
// response, or a bare array of tools). The errors carry exit codes: 2 for
// bad input (a world or file that does not load, a refused host, too many
// tools), 3 for a server that cannot be reached or breaks.
func loadToolList(ctx context.Context, arg string, o *toolTargetOptions) (*toolList, error) {
	limit := o.maxTools
	if limit <= 0 {
		limit = defaultMaxTools
	}
	spec, err := target.Parse(arg)
	if err != nil {
		return nil, usageErr(err)
	}
	switch spec.Kind {
	case target.KindHTTP, target.KindStdio:
		info, tools, err := target.ListTools(ctx, spec, o.targetOptions(), limit)
		if err != nil {
			var tooMany *target.TooManyToolsError
			if errors.As(err, &tooMany) {
				return nil, usageErrf("%v (raise it with --max-tools)", err)
			}
			if _, ok := swarm.AsFieldError(err); ok {
				return nil, flagErr(err) // a refused host: --allow-host
			}
			return nil, codeErr(exitUnreachable, err)
		}
		if err := checkToolNames(spec.Raw, tools); err != nil {
			return nil, usageErr(err)
		}
		return &toolList{Source: arg, Kind: toolsFromServer, Server: info, Tools: tools}, nil
	case target.KindServe:
		return nil, usageErrf("%s: give the world itself (%s); serve: is for herd swarm", arg, spec.World)
	}
	if strings.EqualFold(filepath.Ext(arg), ".json") {
		tools, isList, err := readToolListFile(arg, limit)
		if err != nil {
			return nil, usageErr(err)
		}
		if isList {
			return &toolList{Source: arg, Kind: toolsFromFile, Server: &mcp.Implementation{Name: filepath.Base(arg)}, Tools: tools}, nil
		}
	}
	w, err := worlds.Resolve(arg)
	if err != nil {
		return nil, usageErr(err)
	}
	if err := checkToolCount("world "+w.Name, len(w.Tools), limit); err != nil {
		return nil, err
	}
	return &toolList{Source: arg, Kind: toolsFromWorld, World: w,
		Server: &mcp.Implementation{Name: w.Name, Version: fmt.Sprint(w.Version)},
		Tools:  worldMCPTools(w, w.DefaultVariant())}, nil
}

// worldMCPTools lists a world's tools as herd serve publishes them under
// variant: the description, the params' JSON Schema and every annotation
// spelled out.
func worldMCPTools(w *engine.World, variant string) []*mcp.Tool {
	out := make([]*mcp.Tool, 0, len(w.Tools))
	for _, t := range w.Tools {
		a := t.Annotations
		destructive, openWorld := a.Destructive, a.OpenWorld
		out = append(out, &mcp.Tool{
			Name:        t.Name,
			Description: t.Description(variant),
			InputSchema: t.InputSchema(),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: a.ReadOnly, DestructiveHint: &destructive,
				IdempotentHint: a.Idempotent, OpenWorldHint: &openWorld},
		})
	}
	return out
}

// readToolListFile reads a saved tools/list answer. isList is false (and
// err nil) for a JSON object that is not one (it may be a world written
// as JSON): the caller loads it as a world.
func readToolListFile(path string, limit int) (tools []*mcp.Tool, isList bool, err error) {
	data, err := boundedio.ReadFile(path, maxToolListFile)
	if err != nil {
		return nil, false, err
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, false, fmt.Errorf("%s: empty; want a tools/list result ({\"tools\": […]})", path)
	}
	var raw json.RawMessage
	if data[0] == '[' {
		raw = data
	} else {
		var doc struct {
			Tools  json.RawMessage `json:"tools"`
			Result *struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"result"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, false, fmt.Errorf("%s: not a tools/list result: %v", path, err)
		}
		switch {
		case doc.Error != nil:
			return nil, true, fmt.Errorf("%s: a JSON-RPC error response (%d: %s), not a tools/list result", path, doc.Error.Code, doc.Error.Message)
		case doc.Result != nil && doc.Result.Tools != nil:
			raw = doc.Result.Tools
		case doc.Tools != nil:
			raw = doc.Tools
		case doc.Result != nil:
			return nil, true, fmt.Errorf("%s: the result has no \"tools\" list", path)
		default:
			return nil, false, nil
		}
	}
	// Count before decoding: a list over the cap is refused without
	// building thousands of tools.
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, true, fmt.Errorf("%s: \"tools\": want an array of tools: %v", path, err)
	}
	if len(items) > limit {
		return nil, true, fmt.Errorf("%s lists %d tools, more than the limit of %d (raise it with --max-tools)", path, len(items), limit)
	}
	tools = make([]*mcp.Tool, 0, len(items))
	for i, it := range items {
		var t mcp.Tool
		if err := json.Unmarshal(it, &t); err != nil {
			return nil, true, fmt.Errorf("%s: tool %d: %v", path, i+1, err)
		}
		tools = append(tools, &t)
	}
	if err := checkToolNames(path, tools); err != nil {
		return nil, true, err
	}
	return tools, true, nil
}

// checkToolNames refuses a list with a nameless or repeated tool: the
// spec makes names unique, and everything herd says about a tool is keyed
// by its name.
func checkToolNames(source string, tools []*mcp.Tool) error {
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		if strings.TrimSpace(t.Name) == "" {
			return fmt.Errorf("%s: tool %d has no name", source, i+1)
		}
		if seen[t.Name] {
			return fmt.Errorf("%s: tool %q is listed twice", source, t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

// checkToolCount refuses a world or server with more tools than limit
// (0: defaultMaxTools), naming the cap and the flag that raises it.
func checkToolCount(what string, n, limit int) error {
	if limit <= 0 {
		limit = defaultMaxTools
	}
	if n > limit {
		return usageErrf("%s has %d tools, more than the limit of %d (raise it with --max-tools)", what, n, limit)
	}
	return nil
}
