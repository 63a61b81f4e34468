package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/boundedio"
	"github.com/herd-sh/herd/internal/version"
	"github.com/herd-sh/herd/scaffold"
	"github.com/herd-sh/herd/swarm/target"
	"github.com/herd-sh/herd/worlds"
)

// newOptions are the flags of herd new.
type newOptions struct {
	output string // the file to write instead of NAME.yaml; "-" for standard output
	from   string // an MCP server, saved tools/list or OpenAPI document to scaffold from
	target toolTargetOptions
	// callReadOnly: call the server's safe read-only tools once each and
	// read record types from their answers.
	callReadOnly bool
}

func newNewCmd(s *streams) *cobra.Command {
	opts := &newOptions{}
	cmd := &cobra.Command{
		Use:   "new NAME | new --from TARGET [NAME]",
		Short: "Write a starter world file, or draft one from your MCP server or OpenAPI document",
		Long: `Write NAME.yaml, a small world that validates and runs as it is — a note
store with an archive, an audit log, faults and a goal — to edit into a fake
of your own system. It never overwrites a file.

  herd new billing                 # writes billing.yaml, world "billing"
  herd new my-world                # writes my-world.yaml, world "my_world"
  herd new worlds/crm-eu.yaml      # writes that file, world "crm_eu"
  herd validate billing.yaml
  herd swarm billing.yaml

The world's name is the file's base name with - turned into _: lower case
letters, digits and _, starting with a letter.

With --from, the world is drafted from your own tools: TARGET is an MCP server
(mcp+stdio:COMMAND… or http://HOST/mcp), a saved tools/list JSON file, or an
OpenAPI 3 document (YAML or JSON). Record types come from the schemas, each
tool's kind from its annotations, name and schema, the server's descriptions
are the world's one variant "yours", and goals are drafted for the tool pairs
an agent could confuse (the linter measures which). Comments marked check:
are guesses to confirm. NAME defaults to the server's name.

  herd new --from 'mcp+stdio:npx -y @modelcontextprotocol/server-memory'
  herd new --from openapi.yaml petstore
  herd new --from tools.json -o -`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.from != "" {
				return cobra.MaximumNArgs(1)(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.from != "" {
				name := ""
				if len(args) == 1 {
					name = args[0]
				}
				return runNewFrom(cmd.Context(), s, opts, name)
			}
			return runNew(s, opts, args[0])
		},
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "write to FILE instead of NAME.yaml (- for standard output)")
	cmd.Flags().StringVar(&opts.from, "from", "", "draft the world from an MCP server, a saved tools/list JSON file or an OpenAPI 3 document")
	cmd.Flags().BoolVar(&opts.callReadOnly, "call-read-only", false, "with a live --from server: call each tool it marks read-only and closed-world that needs no argument, once, and read record types from the answers")
	opts.target.addFlags(cmd)
	return cmd
}

// newTarget turns the NAME argument into the file to write and the world's
// name: "my-world" → my-world.yaml, world my_world.
func newTarget(arg string) (path, world string) {
	path = arg
	if ext := filepath.Ext(arg); ext != ".yaml" && ext != ".yml" {
		path = arg + ".yaml"
	}
	base := filepath.Base(path)
	world = strings.ReplaceAll(strings.TrimSuffix(base, filepath.Ext(base)), "-", "_")
	return path, world
}

func runNew(s *streams, opts *newOptions, arg string) error {
	path, name := newTarget(arg)
	src, err := worlds.Scaffold(name)
	if err != nil {
		return usageErrf("NAME %q: %v", arg, err)
	}
	if opts.output == "-" {
		_, err := s.out.Write(src)
		return err
	}
	if opts.output != "" {
		path = opts.output
	}
	if err := writeNewFile(path, src); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "wrote %s (world %s)\n  check it:  herd validate %s\n  try it:    herd swarm %s --agents 100\n", path, name, path, path)
	return nil
}

// writeNewFile writes a file that must not exist yet. O_EXCL: refusing to
// overwrite is decided by the file system, so two runs racing for one name
// cannot both win.
func writeNewFile(path string, src []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usageErrf("%s already exists; not overwriting it (choose another name or -o FILE)", path)
	}
	if err != nil {
		return usageErr(err)
	}
	if _, err := f.Write(src); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runNewFrom drafts a world from the tools behind opts.from.
func runNewFrom(ctx context.Context, s *streams, opts *newOptions, arg string) error {
	src, err := loadSource(ctx, opts.from, &opts.target)
	if err != nil {
		return err
	}
	if opts.callReadOnly {
		called, err := sampleReadOnly(ctx, opts.from, src, &opts.target)
		if err != nil {
			return err
		}
		if len(called) > 0 {
			fmt.Fprintf(s.err, "herd: called %s once each to read what they answer\n", strings.Join(called, ", "))
		} else {
			fmt.Fprintf(s.err, "herd: --call-read-only: no tool is marked read-only and closed-world (openWorldHint false) with no required argument; nothing called\n")
		}
	}
	world, path := scaffold.WorldName(src.Name), ""
	if arg != "" {
		path, world = newTarget(arg)
	}
	if !engine.ValidName(world) {
		return usageErrf("world name %q (from %s) must be lower case letters, digits and _, starting with a letter; give NAME", world, arg)
	}
	if path == "" {
		path = world + ".yaml"
	}
	if opts.output != "" && opts.output != "-" {
		path = opts.output
	}
	d, err := scaffold.Build(src, scaffold.Options{World: world, Header: []string{
		fmt.Sprintf("Drafted by: herd new --from %s", opts.from),
		"Run it, and compare a rewrite of the descriptions with the server's own:",
		fmt.Sprintf("    herd swarm %s --agents 1000", path),
		fmt.Sprintf("    herd descriptions %s --as rewrite > rewrite.yaml   # then edit the texts", path),
		fmt.Sprintf("    herd swarm %s --agents 1000 --variant %s,rewrite --descriptions rewrite.yaml", path, scaffold.Variant),
	}})
	if err != nil {
		return usageErr(err)
	}
	if opts.output == "-" {
		_, err := s.out.Write(d.YAML)
		return err
	}
	if err := writeNewFile(path, d.YAML); err != nil {
		return err
	}
	w := d.World
	fmt.Fprintf(s.out, "wrote %s (world %s): %s, %s and %s drafted from %s; lines marked check: are guesses\n",
		path, world, plural(len(w.Types), "record type"), plural(len(w.Tools), "tool"), plural(len(w.Goals), "goal"), opts.from)
	if len(d.Dropped) > 0 {
		fmt.Fprintf(s.out, "  goals left out (no tool an agent could take for theirs does harm): %s\n", strings.Join(d.Dropped, ", "))
	}
	fmt.Fprintf(s.out, "  check it:          herd validate %s\n  try it:            herd swarm %s --agents 1000\n", path, path)
	fmt.Fprintf(s.out, "  compare a rewrite: herd descriptions %s --as rewrite > rewrite.yaml   # edit the texts, then\n", path)
	fmt.Fprintf(s.out, "                     herd swarm %s --agents 1000 --variant %s,rewrite --descriptions rewrite.yaml\n", path, scaffold.Variant)
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// maxOpenAPIRead bounds the OpenAPI document herd new reads.
const maxOpenAPIRead = 8 << 20

// loadSource reads the API behind arg as the scaffolder reads it: an
// OpenAPI document (a YAML or JSON file with a top-level openapi key), or
// a server or saved tools/list as loadToolList reads it. A herd world is
// refused: it needs no scaffold.
func loadSource(ctx context.Context, arg string, o *toolTargetOptions) (*scaffold.Source, error) {
	src, w, err := loadSourceOrWorld(ctx, arg, o)
	if err != nil {
		return nil, err
	}
	if w != nil {
		return nil, usageErrf("%s is a herd world already; --from takes an MCP server, a saved tools/list JSON file or an OpenAPI 3 document", arg)
	}
	return src, nil
}

// loadSourceOrWorld is loadSource that returns a herd world as one.
func loadSourceOrWorld(ctx context.Context, arg string, o *toolTargetOptions) (*scaffold.Source, *engine.World, error) {
	if ext := strings.ToLower(filepath.Ext(arg)); ext == ".yaml" || ext == ".yml" || ext == ".json" {
		if data, err := boundedio.ReadFile(arg, maxOpenAPIRead); err == nil && scaffold.IsOpenAPI(data) {
			src, err := scaffold.FromOpenAPI(arg, data)
			if err != nil {
				return nil, nil, usageErr(err)
			}
			return src, nil, nil
		}
	}
	tl, err := loadToolList(ctx, arg, o)
	if err != nil {
		return nil, nil, err
	}
	if tl.Kind == toolsFromWorld {
		return nil, tl.World, nil
	}
	name, version := "", ""
	if tl.Server != nil {
		name, version = tl.Server.Name, tl.Server.Version
	}
	if tl.Kind == toolsFromFile {
		// A saved list has no server name: its file's ("server-memory.tools.json" → server-memory).
		name, _, _ = strings.Cut(filepath.Base(arg), ".")
	}
	src, err := scaffold.FromMCP(arg, name, version, "", tl.Tools)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	return src, nil, nil
}

// maxSampleAnswer bounds the text of one answer read with
// --call-read-only.
const maxSampleAnswer = 1 << 20

// sampleReadOnly calls, once each, the tools of the live server arg that
// are safe to call (scaffold.Op.Sampleable: read-only, closed-world, no
// required argument), with no arguments, and gives src what each answered
// (its structured content, or its first text read as JSON). A tool that
// fails or answers something else is skipped. It returns the tools
// called.
func sampleReadOnly(ctx context.Context, arg string, src *scaffold.Source, o *toolTargetOptions) ([]string, error) {
	spec, err := target.Parse(arg)
	if err != nil {
		return nil, usageErr(err)
	}
	var transport mcp.Transport
	switch spec.Kind {
	case target.KindHTTP:
		if err := target.CheckHost(spec.URL, o.allowHosts); err != nil {
			return nil, flagErr(err)
		}
		transport = &mcp.StreamableClientTransport{Endpoint: spec.URL.String(), HTTPClient: target.NewHTTPClient(o.targetOptions())}
	case target.KindStdio:
		transport = &mcp.CommandTransport{Command: exec.CommandContext(ctx, spec.Command[0], spec.Command[1:]...)}
	default:
		return nil, flagErr(fmt.Errorf("--call-read-only: %s is not a live server (it needs mcp+stdio:… or http://…/mcp)", arg))
	}
	timeout := o.callTimeout
	if timeout <= 0 {
		timeout = target.DefaultCallTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "herd-new", Version: version.String()}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(cctx, transport, nil)
	if err != nil {
		return nil, codeErr(exitUnreachable, fmt.Errorf("%s: %w", arg, err))
	}
	defer cs.Close()
	var called []string
	for i := range src.Ops {
		op := &src.Ops[i]
		if !op.Sampleable() {
			continue
		}
		callCtx, cancelCall := context.WithTimeout(ctx, timeout)
		res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: op.Name, Arguments: map[string]any{}})
		cancelCall()
		if err != nil || res == nil || res.IsError {
			continue
		}
		if answer := answerValue(res); answer != nil {
			if err := src.AddSample(op.Name, answer); err != nil {
				return nil, err
			}
			called = append(called, op.Name)
		}
	}
	return called, nil
}

// answerValue is what a tool's answer holds as JSON: its structured
// content, else its first text read as JSON, else nil.
func answerValue(res *mcp.CallToolResult) any {
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err == nil {
			var v any
			if json.Unmarshal(data, &v) == nil {
				return v
			}
		}
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok && len(tc.Text) <= maxSampleAnswer {
			var v any
			if json.Unmarshal([]byte(tc.Text), &v) == nil {
				return v
			}
			return nil
		}
	}
	return nil
}
