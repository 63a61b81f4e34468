package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/report"
)

// reportOptions are the flags of herd report.
type reportOptions struct {
	format     string
	thresholds []string
	strict     bool
	output     string
	full       bool
	zeros      bool
	htmlURL    string
}

var reportFormats = []string{"terminal", "json", "md", "html", "junit", "badge"}

func newReportCmd(s *streams) *cobra.Command {
	opts := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report RUN.json",
		Short: "Render a results document: terminal, JSON, Markdown, HTML, JUnit or badge",
		Long: `Render the readiness report of a saved run. Every format reads only the
results document, so a report rendered later is the one the run printed.

Thresholds given here replace the ones judged during the run:

  herd report run.json --format md --threshold 'harmful<5%' >> "$GITHUB_STEP_SUMMARY"
  herd report run.json --format html -o report.html
  herd report run.json --threshold 'hide_contact:destroyed_data<1%@clear' --strict

Exit codes: 0 ready (or no thresholds), 1 a threshold is NOT READY (or
INCONCLUSIVE with --strict), 2 bad usage or an unreadable results file.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(s, opts, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "terminal", "output format: "+strings.Join(reportFormats, ", "))
	f.StringArrayVar(&opts.thresholds, "threshold", nil, "readiness threshold, e.g. 'harmful<5%', 'destroyed_data<1%@clear', 'p99<300ms' (repeatable)")
	f.BoolVar(&opts.strict, "strict", false, "treat INCONCLUSIVE verdicts as failures (exit 1)")
	f.StringVarP(&opts.output, "output", "o", "", "write the report to FILE instead of standard output")
	f.BoolVar(&opts.full, "full", false, "terminal format: print every table instead of the one-screen summary")
	f.BoolVar(&opts.zeros, "zeros", false, "terminal format with --full: keep the outcome rows no episode ended in")
	f.StringVar(&opts.htmlURL, "html-url", "", "md format: link to the HTML report at this URL (a CI artifact) on the first line")
	return cmd
}

// runReport reads, judges and renders one results document.
func runReport(s *streams, opts *reportOptions, path string) error {
	render, ok := reportRenderer(opts.format)
	if opts.format == "terminal" || opts.format == "text" {
		render = func(w io.Writer, r *report.Results, plain bool) error {
			to := report.TerminalOptions{Plain: plain, Full: opts.full, Zeros: opts.zeros}
			if !opts.full {
				to.Footer = []string{"every table: add --full; the full report: --format html -o report.html"}
			}
			return report.Terminal(w, r, to)
		}
	}
	if opts.format == "md" || opts.format == "markdown" {
		mo := report.MarkdownOptions{HTMLLink: opts.htmlURL}
		render = func(w io.Writer, r *report.Results, _ bool) error { return report.MarkdownWith(w, r, mo) }
	}
	if !ok {
		return usageErrf("--format %q: want one of %s", opts.format, strings.Join(reportFormats, ", "))
	}
	res, err := readResults(s, path)
	if err != nil {
		return usageErr(err)
	}
	if err := judge(res, opts.thresholds); err != nil {
		return err
	}
	plain := opts.output != "" || !isTerminal(s.out)
	err = writeOutput(s, opts.output, func(w io.Writer) error {
		if err := render(w, res, plain); err != nil {
			return fmt.Errorf("rendering %s: %w", opts.format, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if report.ExitCode(res.Thresholds, opts.strict) != exitOK {
		return codeErr(exitThreshold, fmt.Errorf("%s: %s", report.Overall(res.Thresholds), failingThresholds(res.Thresholds, opts.strict)))
	}
	return nil
}

// reportRenderer maps a --format name to its renderer.
func reportRenderer(format string) (func(io.Writer, *report.Results, bool) error, bool) {
	switch format {
	case "terminal", "text":
		return func(w io.Writer, r *report.Results, plain bool) error {
			return report.Terminal(w, r, report.TerminalOptions{Plain: plain})
		}, true
	case "json":
		return func(w io.Writer, r *report.Results, _ bool) error { return report.JSON(w, r) }, true
	case "md", "markdown":
		return func(w io.Writer, r *report.Results, _ bool) error { return report.Markdown(w, r) }, true
	case "html":
		return func(w io.Writer, r *report.Results, _ bool) error { return report.HTML(w, r) }, true
	case "junit":
		return func(w io.Writer, r *report.Results, _ bool) error { return report.JUnit(w, r) }, true
	case "badge":
		return func(w io.Writer, r *report.Results, _ bool) error { return report.Badge(w, r) }, true
	}
	return nil, false
}

// failingThresholds lists the thresholds behind a non-zero exit.
func failingThresholds(vs []report.Verdict, strict bool) string {
	var out []string
	for _, v := range vs {
		if v.Fails(strict) {
			out = append(out, fmt.Sprintf("%s is %s (%s)", v.Threshold, v.Result, report.VerdictValue(v)))
		}
	}
	return strings.Join(out, "; ")
}

// readResults reads a results document from a file, or from standard input
// when path is "-".
func readResults(s *streams, path string) (*report.Results, error) {
	if path == "-" {
		res, err := report.Read(s.in)
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		return res, nil
	}
	return report.ReadFile(path)
}

// readAllResults reads the documents at paths, in order. Standard input
// ("-") can be read once: a second "-" would read nothing and be reported
// as an empty document.
func readAllResults(s *streams, paths []string) ([]*report.Results, error) {
	docs := make([]*report.Results, len(paths))
	for i, p := range paths {
		if p == "-" && slices.Contains(paths[:i], "-") {
			return nil, usageErrf("- (standard input) given more than once; it can be read only once")
		}
		res, err := readResults(s, p)
		if err != nil {
			return nil, usageErr(err)
		}
		docs[i] = res
	}
	return docs, nil
}
