package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/herd-sh/herd/report"
)

// outputs are the files a run writes besides the terminal summary. A
// path "-" is standard output: the report goes there instead of the
// terminal summary, so `--json - | jq` reads one JSON document.
type outputs struct {
	json, html, md, junit, badge string
	// quiet leaves out the terminal summary (and, where the command
	// reads it, the progress and the run's other lines on stderr).
	quiet bool
	// full prints every table instead of the one-screen summary; zeros
	// keeps the outcome rows no episode ended in.
	full, zeros bool
	// htmlURL is where the Markdown's first line links to the HTML report
	// (a CI artifact's URL); without it there is no link line.
	htmlURL string
}

// addTerminalFlags registers --full and --zeros, which say how the terminal
// report is drawn, and --html-url, where the Markdown links.
func (o *outputs) addTerminalFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.full, "full", false, "print every table of the report (misuse map, invariants, personas, comparison, faults, confusions, latency, traces) instead of the one-screen summary")
	f.BoolVar(&o.zeros, "zeros", false, "with --full, keep the outcome rows no episode ended in (hidden by default)")
	f.StringVar(&o.htmlURL, "html-url", "", "link the Markdown report's first line to the HTML report at this URL (the uploaded artifact's)")
}

// markdownOptions link the Markdown to the HTML report at --html-url.
// The --html file is not linked by itself: a PR comment or a step summary
// (where the Markdown is read) cannot reach a path on the runner; the URL
// of the uploaded artifact can.
func (o outputs) markdownOptions() report.MarkdownOptions {
	return report.MarkdownOptions{HTMLLink: o.htmlURL}
}

// summaryFooter is where the summary says the rest of the report is: the
// files just written, and how to see every table.
func (o outputs) summaryFooter() []string {
	if o.full {
		return nil
	}
	names := map[string]string{"json": "results", "html": "full report", "md": "Markdown", "junit": "JUnit", "badge": "badge"}
	var written []string
	for _, f := range o.files() {
		if f.path != stdoutPath {
			written = append(written, names[f.flag]+" "+f.path)
		}
	}
	lines := []string{"every table: add --full; the full report: --html report.html"}
	if o.html != "" && o.html != stdoutPath {
		lines = []string{"every table: add --full"}
	}
	if len(written) > 0 {
		lines = append([]string{"written: " + strings.Join(written, " · ")}, lines...)
	}
	return lines
}

// stdoutPath is the path that names standard output.
const stdoutPath = "-"

// outputFile is one requested file; its flag names its format too.
type outputFile struct{ flag, path string }

// files lists the requested files, in the order they are written.
func (o outputs) files() []outputFile {
	var out []outputFile
	for _, f := range []outputFile{{"json", o.json}, {"html", o.html}, {"md", o.md}, {"junit", o.junit}, {"badge", o.badge}} {
		if f.path != "" {
			out = append(out, f)
		}
	}
	return out
}

// check refuses, before the run, a file whose folder does not exist, so
// that a long run cannot end in "no such file or directory" and lose its
// results.
func (o outputs) check() error {
	toStdout := ""
	for _, f := range o.files() {
		if f.path == stdoutPath {
			if toStdout != "" {
				// Two documents on one stream parse as neither.
				return usageErrf("--%s -: --%s goes to standard output already; only one report can", f.flag, toStdout)
			}
			toStdout = f.flag
			continue
		}
		dir := filepath.Dir(f.path)
		st, err := os.Stat(dir)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the folder is named below
		}
		if err == nil && !st.IsDir() {
			err = errors.New("not a folder")
		}
		if err != nil {
			return usageErrf("--%s %s: folder %s: %v", f.flag, f.path, dir, err)
		}
	}
	return nil
}

// judge replaces res's verdicts with those of the given thresholds; with
// none, res keeps the verdicts it has.
func judge(res *report.Results, specs []string) error {
	if len(specs) == 0 {
		return nil
	}
	ts, err := report.ParseThresholds(res, specs)
	if err != nil {
		return usageErr(err)
	}
	res.Thresholds = report.Evaluate(res, ts)
	return nil
}

// finishRun evaluates thresholds, writes the requested files, prints the
// terminal summary and returns the exit code the verdicts call for. An
// error means the thresholds or files could not be handled.
func finishRun(s *streams, res *report.Results, out outputs, thresholds []string, strict bool) (int, error) {
	if err := judge(res, thresholds); err != nil {
		return exitUsage, err
	}
	// Files first: a broken terminal (closed pipe) must not lose them.
	summary := !out.quiet
	var toStdout *outputFile
	for _, f := range out.files() {
		if f.path == stdoutPath {
			toStdout, summary = &f, false
			continue
		}
		render := out.renderer(f.flag)
		if err := writeFileAtomic(f.path, func(w io.Writer) error { return render(w, res, true) }); err != nil {
			return exitUsage, usageErrf("--%s: %w", f.flag, err)
		}
	}
	if toStdout != nil {
		render := out.renderer(toStdout.flag)
		if err := writeOutput(s, "", func(w io.Writer) error { return render(w, res, true) }); err != nil {
			return exitUsage, fmt.Errorf("--%s -: standard output: %w", toStdout.flag, err)
		}
	}
	if summary {
		if err := report.Terminal(s.out, res, report.TerminalOptions{
			Plain: !isTerminal(s.out), Full: out.full, Zeros: out.zeros, Footer: out.summaryFooter(),
		}); err != nil {
			return exitUsage, err
		}
		printLintSummary(s.out, res)
	}
	return report.ExitCode(res.Thresholds, strict), nil
}

// renderer is the renderer of a file flag, the Markdown linked to the HTML.
func (o outputs) renderer(flag string) func(io.Writer, *report.Results, bool) error {
	if flag == "md" {
		opts := o.markdownOptions()
		return func(w io.Writer, r *report.Results, _ bool) error { return report.MarkdownWith(w, r, opts) }
	}
	render, _ := reportRenderer(flag)
	return render
}

// exitFor is the error that makes herd exit with code (nil for exitOK),
// when everything to say about it is printed already.
func exitFor(code int) error {
	if code == exitOK {
		return nil
	}
	return codeErr(code, nil)
}
