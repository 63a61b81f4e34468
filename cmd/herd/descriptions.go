package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/scaffold"
)

// descriptionsOptions are the flags of herd descriptions.
type descriptionsOptions struct {
	variant string // a world's variant to read (default: its first)
	as      string // the variant the file gives the texts under
	output  string // a file to write instead of standard output
	target  toolTargetOptions
}

func newDescriptionsCmd(s *streams) *cobra.Command {
	opts := &descriptionsOptions{}
	cmd := &cobra.Command{
		Use:   "descriptions TARGET",
		Short: "Write a server's (or a world variant's) tool descriptions as a descriptions file",
		Long: `Write the tool descriptions of TARGET as a descriptions file, the format
herd swarm, lint and explain read with --descriptions: one tool per entry, its
text under one variant. Edit the texts into a rewrite and run it paired
against the original wording, the same agents under each.

TARGET is an MCP server (mcp+stdio:COMMAND… or http://HOST/mcp), a saved
tools/list JSON file, an OpenAPI 3 document, or a herd world (mock:NAME or a
file, read under --variant). Tools are named as herd new --from names them, so
a server's file fits the world drafted from it.

  herd new --from 'mcp+stdio:npx -y @modelcontextprotocol/server-memory' memory
  herd descriptions memory.yaml --as rewrite > rewrite.yaml     # edit it
  herd swarm memory.yaml --variant yours,rewrite --descriptions rewrite.yaml

  herd descriptions mock:crm --variant ambiguous > mine.yaml    # edit it
  herd swarm mock:crm --variant ambiguous --descriptions mine.yaml

--as names the variant the texts are written under: by default "yours" for a
server or document, and the variant read for a world. A name the world has not
is a new variant, which herd swarm runs when --variant names it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDescriptions(cmd.Context(), s, opts, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.variant, "variant", "", "for a world: the variant whose texts to write (default: its first)")
	f.StringVar(&opts.as, "as", "", `the variant to write the texts under (default: "yours" for a server, the variant read for a world)`)
	f.StringVarP(&opts.output, "output", "o", "", "write to FILE (never overwritten) instead of standard output")
	opts.target.addFlags(cmd)
	return cmd
}

func runDescriptions(ctx context.Context, s *streams, opts *descriptionsOptions, arg string) error {
	if opts.as != "" && !engine.ValidName(opts.as) {
		return flagErr(fmt.Errorf("--as: variant name %q must be %s", opts.as, engine.NameRule))
	}
	src, w, err := loadSourceOrWorld(ctx, arg, &opts.target)
	if err != nil {
		return err
	}
	var (
		texts       []scaffold.Text
		base, world string
		header      string
	)
	if w != nil {
		base = opts.variant
		if base == "" {
			base = w.DefaultVariant()
		}
		if !w.HasVariant(base) {
			return flagErr(fmt.Errorf("--variant: world %s has no variant %q (it has %s)", w.Name, base, strings.Join(w.Variants, ", ")))
		}
		for _, t := range w.Tools {
			texts = append(texts, scaffold.Text{Tool: t.Name, Text: t.Description(base)})
		}
		header = fmt.Sprintf("The tool descriptions of world %s, variant %s", w.Name, base)
		world = arg
	} else {
		if opts.variant != "" {
			return flagErr(fmt.Errorf("--variant: %s is not a herd world; it has one wording, its own", arg))
		}
		base = scaffold.Variant
		texts = scaffold.Texts(src)
		who := src.Name
		if src.Version != "" {
			who += " " + src.Version
		}
		header = fmt.Sprintf("The tool descriptions of %s (%s %s)", who, src.Kind, arg)
		world = "WORLD.yaml"
	}
	as := base
	if opts.as != "" {
		as = opts.as
	}
	variants := base
	if as != base {
		variants = base + "," + as
	}
	lines := []string{header + ", as variant " + as + "."}
	if as == base {
		lines = append(lines,
			"Edit the texts, then run them in place of the world's own (or write them",
			fmt.Sprintf("with --as NEW and run --variant %s,NEW to compare the two, paired):", base))
	} else {
		lines = append(lines, "Edit the texts, then run them paired with the world's own wording:")
	}
	lines = append(lines, fmt.Sprintf("  herd swarm %s --variant %s --descriptions THIS_FILE", world, variants))
	if w == nil {
		lines = append(lines, fmt.Sprintf("(WORLD.yaml from herd new --from %s; tools are named as it names them)", arg))
	}
	data := scaffold.DescriptionsFile(lines, as, texts)
	if opts.output != "" {
		if err := writeNewFile(opts.output, data); err != nil {
			return err
		}
		fmt.Fprintf(s.err, "wrote %s: %d tool descriptions as variant %s\n", opts.output, len(texts), as)
		return nil
	}
	_, err = s.out.Write(data)
	return err
}
