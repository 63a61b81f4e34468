package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/worlds"
)

func newValidateCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check world files and report every problem as file:line:col",
		Long: `Load each world file (or built-in world, mock:NAME) the way every other
command does — YAML, names and references, CEL rules type-checked, fault
probabilities, goals and invariants checked on the seeded state — and say
whether it is valid.

  herd validate my-world.yaml
  herd validate worlds/*.yaml

A valid file prints "FILE: ok (N types, N tools, N goals)". Every problem
of an invalid one is printed on stderr as file:line:col: message, all of
them, in file order.

A valid world can still hold a goal no agent can do: one whose values are
outside the bounds of the tool that takes them, or whose target the goal
names only by a field other records share. Each is printed on stderr as
"FILE:LINE:COL: warning: goal NAME: …", at the goal's name; warnings do not
change the exit code.

Exit codes: 0 every file is valid, 2 at least one is not (or none given).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(s, args)
		},
	}
}

// runValidate checks every file, even after a bad one, so that one run
// reports everything wrong with a set of worlds.
func runValidate(s *streams, files []string) error {
	bad := 0
	for _, file := range files {
		w, err := worlds.Resolve(file)
		if err != nil {
			bad++
			printLoadError(s, err)
			continue
		}
		fmt.Fprintf(s.out, "%s: ok (%s, %s, %s)\n", file,
			nounCount(len(w.Types), "type", "types"), nounCount(len(w.Tools), "tool", "tools"), nounCount(len(w.Goals), "goal", "goals"))
		if err := printGoalProblems(s, file, w); err != nil {
			// The file loaded but its goals could not be checked: say
			// which file, and go on with the others.
			bad++
			fmt.Fprintf(s.err, "%s: checking its goals: %v\n", file, err)
		}
	}
	if bad > 0 {
		// The problems are printed already, one per line, exactly as
		// editors and CI annotators parse them: nothing to add.
		return codeErr(exitUsage, nil)
	}
	return nil
}

// printGoalProblems warns, on stderr, of goals no agent can achieve or
// whose target no agent can single out: the file is valid, but every rate
// of such a goal would measure the world's mistake, not the descriptions.
func printGoalProblems(s *streams, file string, w *engine.World) error {
	variant := ""
	if len(w.Variants) > 0 {
		variant = w.Variants[0] // which tool is meant is the world's fact, whatever the texts
	}
	m, err := personas.NewModel(w, variant)
	if err != nil {
		return err
	}
	problems, err := m.GoalProblems()
	if err != nil {
		return err
	}
	for _, p := range problems {
		where := file
		if p.Goal.Pos.Line > 0 {
			where = fmt.Sprintf("%s:%d:%d", file, p.Goal.Pos.Line, p.Goal.Pos.Col)
		}
		fmt.Fprintf(s.err, "%s: warning: goal %s: %s\n", where, p.Goal.Name, p.Message)
	}
	return nil
}

// printLoadError prints a world's problems one file:line:col: message per
// line; an error that is not about the file's content (a missing file)
// on a line of its own.
func printLoadError(s *streams, err error) {
	var le *engine.LoadError
	if errors.As(err, &le) {
		for _, line := range le.Lines() {
			fmt.Fprintln(s.err, line)
		}
		return
	}
	fmt.Fprintln(s.err, err)
}

// nounCount is "1 tool" or "3 tools".
func nounCount(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
