package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/internal/version"
)

// Exit codes, documented in docs/cli.md.
const (
	exitOK          = 0 // ran, and every threshold passed
	exitThreshold   = 1 // a threshold failed (or a lint error was found)
	exitUsage       = 2 // bad usage or bad input: flags, world files, results files
	exitUnreachable = 3 // the target could not be reached or broke
)

// exitError carries an exit code through cobra to run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as bad usage or bad input (exit 2).
func usageErr(err error) error { return &exitError{code: exitUsage, err: err} }

// usageErrf is usageErr with formatting.
func usageErrf(format string, args ...any) error { return usageErr(fmt.Errorf(format, args...)) }

// codeErr returns an error that makes herd exit with code; err may be nil
// when the command already said everything it had to say.
func codeErr(code int, err error) error { return &exitError{code: code, err: err} }

// streams are the command's standard files, so tests can run commands
// in-process and read what they print.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// newRootCmd builds the whole command tree. Each subcommand is in its own
// file; add it to the list below.
func newRootCmd(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "herd",
		Short: "Swarm load tester and agent-readiness reporter for tool-using AI agents",
		Long: `herd starts a seeded, stateful fake world (CRM, payments, shop, mail, files)
exposed as MCP tools, runs scripted-persona agents against it, classifies what
they did to the world, and reports how ready the tools are for real agents.

  herd swarm mock:crm --seed 42
  herd serve mock:shop --http 127.0.0.1:8931
  herd report run.json --format md`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetVersionTemplate("herd {{.Version}}\n")
	// Flag errors are usage errors (exit 2), not generic failures.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	for _, add := range commands {
		root.AddCommand(add(s))
	}
	registerCompletions(root)
	return root
}

// commands lists the subcommand constructors. One line per command file.
var commands = []func(*streams) *cobra.Command{
	newVersionCmd,
	newWorldsCmd,
	newNewCmd,
	newDescriptionsCmd,
	newSwarmCmd,
	newReplayCmd,
	newReportCmd,
	newDiffCmd,
	newMergeCmd,
	newLintCmd,
	newServeCmd,
	newValidateCmd,
	newInspectCmd,
	newExplainCmd,
	newCalibrateCmd,
}

// run executes herd with args and returns the process exit code.
func run(ctx context.Context, args []string, in io.Reader, out, errw io.Writer) int {
	s := &streams{in: in, out: out, err: errw}
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	} else {
		// Cobra's own errors (unknown command, bad arg count) are usage errors.
		code = exitUsage
	}
	fmt.Fprintf(errw, "herd: %v\n", err)
	return code
}
