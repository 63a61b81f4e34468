package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/herd-sh/herd/report"
)

// outputs are the files a run writes besides the terminal summary.
type outputs struct {
	json, html, md, junit, badge string
}

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
	for _, f := range o.files() {
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
	for _, f := range out.files() {
		render, _ := reportRenderer(f.flag)
		if err := writeFileAtomic(f.path, func(w io.Writer) error { return render(w, res, true) }); err != nil {
			return exitUsage, usageErrf("--%s: %w", f.flag, err)
		}
	}
	if err := report.Terminal(s.out, res, report.TerminalOptions{Plain: !isTerminal(s.out)}); err != nil {
		return exitUsage, err
	}
	return report.ExitCode(res.Thresholds, strict), nil
}

// exitFor is the error that makes herd exit with code (nil for exitOK),
// when everything to say about it is printed already.
func exitFor(code int) error {
	if code == exitOK {
		return nil
	}
	return codeErr(code, nil)
}
