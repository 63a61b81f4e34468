package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/worlds"
)

func newWorldsCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "worlds",
		Short: "List the built-in worlds",
		Long: `List the built-in worlds: each one's name, how many tools it has, its goals
and what it imitates. Use a name wherever herd takes a world:

  herd inspect mock:payments
  herd swarm mock:shop`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWorlds(s.out)
		},
	}
}

// runWorlds prints one line per built-in world.
func runWorlds(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORLD\tTOOLS\tGOALS\tIMITATES")
	for _, name := range worlds.Names() {
		w, err := worlds.Resolve(name)
		if err != nil {
			// A built-in that does not compile is a bug in herd, not bad input.
			return fmt.Errorf("built-in world %s: %w", name, err)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", name, len(w.Tools), goalNames(w), summary(w.Description))
	}
	return tw.Flush()
}

// summary is the first clause of a world's description: up to the first
// colon or full stop, which in the built-ins names the real API imitated.
func summary(desc string) string {
	cut := len(desc)
	for _, sep := range []string{": ", ". "} {
		if i := strings.Index(desc, sep); i >= 0 && i < cut {
			cut = i
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(desc[:cut]), ".")
}
