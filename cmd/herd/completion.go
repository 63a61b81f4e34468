package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/worlds"
)

// Shell completion (herd completion bash|zsh|fish|powershell, cobra's):
// world names where a command takes a world, and for the flags that name
// something of a world — --faults, --variant, --goal — the names in the
// world the command line gives. The lists live here, beside nothing else,
// so that a command file declares its flags and this file knows how each
// kind of value is completed.

// servePrefix is the target form of a world herd serves in-process for a
// swarm (serve:mock:crm; see docs/targets.md).
const servePrefix = "serve:"

// worldArgCommands take a world (or, for swarm, a target) as their first
// argument.
var worldArgCommands = []string{"swarm", "replay", "serve", "lint", "inspect", "explain"}

// formatsOf are the --format values of each command that has one.
var formatsOf = map[string][]string{
	"report":  reportFormats,
	"lint":    lintFormats,
	"inspect": {"text", "json"},
	"diff":    {"terminal", "md", "json"},
}

// registerCompletions adds the completions to the commands of root.
func registerCompletions(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		name := cmd.Name()
		switch {
		case slices.Contains(worldArgCommands, name):
			cmd.ValidArgsFunction = completeWorldArg(name == "swarm")
		case name == "report" || name == "diff" || name == "merge":
			cmd.ValidArgsFunction = completeFiles("json")
		case name == "validate":
			cmd.ValidArgsFunction = completeFiles("yaml", "yml")
		}
		flag := func(flag string, fn cobra.CompletionFunc) {
			if cmd.Flags().Lookup(flag) != nil {
				_ = cmd.RegisterFlagCompletionFunc(flag, fn) // only fails for an unknown or doubly registered flag
			}
		}
		flag("faults", completeFromWorld(faultNames))
		flag("variant", completeList(completeFromWorld(func(w *engine.World) []string { return w.Variants })))
		flag("goal", completeFromWorld(goalList))
		flag("persona", fixed(personas.Builtin().Names()...))
		flag("progress", fixed("auto", "always", "never"))
		if formats, ok := formatsOf[name]; ok {
			flag("format", fixed(formats...))
		}
	}
}

// completeWorldArg completes a command's first argument: the built-in
// worlds (and, for swarm, each served: serve:mock:crm), or a world file.
func completeWorldArg(swarmTarget bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names := worlds.Names()
		if swarmTarget {
			for _, n := range worlds.Names() {
				names = append(names, servePrefix+n)
			}
		}
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		if len(out) == 0 {
			// Not a built-in world's name: a world file.
			return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFromWorld completes a flag with names of the world the command
// line gives (its first argument, or --world); nothing when it names none
// that loads.
func completeFromWorld(names func(*engine.World) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		w := worldOfCommandLine(cmd, args)
		if w == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, n := range names(w) {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// worldOfCommandLine is the world a partial command line names: --world
// when given, else its first argument (a served target's world for
// serve:WORLD); nil when there is none or it does not load.
func worldOfCommandLine(cmd *cobra.Command, args []string) *engine.World {
	ref := ""
	if f := cmd.Flags().Lookup("world"); f != nil && f.Changed {
		ref = f.Value.String()
	} else if len(args) > 0 {
		ref = strings.TrimPrefix(args[0], servePrefix)
	}
	if ref == "" {
		return nil
	}
	w, err := worlds.Resolve(ref)
	if err != nil {
		return nil
	}
	return w
}

// completeList completes one item of a comma-separated list: the items
// before the last comma are kept, and one already given is not offered
// again.
func completeList(item cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cut := strings.LastIndex(toComplete, ",") + 1
		given := strings.Split(toComplete[:max(cut-1, 0)], ",")
		names, dir := item(cmd, args, toComplete[cut:])
		var out []cobra.Completion
		for _, n := range names {
			if !slices.Contains(given, n) {
				out = append(out, toComplete[:cut]+n)
			}
		}
		return out, dir
	}
}

// completeFiles completes file names with the given extensions.
func completeFiles(exts ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

// fixed completes a flag with a fixed list of values.
func fixed(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// faultNames are the fault profiles a world offers: none first, then its
// own and the built-in ones.
func faultNames(w *engine.World) []string {
	out := make([]string, 0, len(w.Profiles))
	for _, p := range w.Profiles {
		out = append(out, p.Name)
	}
	return out
}

// goalList are a world's goals in file order.
func goalList(w *engine.World) []string {
	out := make([]string, len(w.Goals))
	for i, g := range w.Goals {
		out[i] = g.Name
	}
	return out
}
