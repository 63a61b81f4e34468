package main

import (
	"io"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

// outputs are the files a run writes besides the terminal summary.
type outputs struct {
	json, html, md, junit, badge string
}

// checkThresholds parses the thresholds against the run's outcome classes
// before anything runs: an unknown metric is a usage error, never a pass.
func checkThresholds(plan *swarm.Plan, specs []string) error {
	if len(specs) == 0 {
		return nil
	}
	if _, err := report.ParseThresholds(plan.Skeleton(), specs); err != nil {
		return usageErr(err)
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
	for _, f := range []struct{ path, format string }{
		{out.json, "json"}, {out.html, "html"}, {out.md, "md"}, {out.junit, "junit"}, {out.badge, "badge"},
	} {
		if f.path == "" {
			continue
		}
		render, _ := reportRenderer(f.format)
		if err := writeFileAtomic(f.path, func(w io.Writer) error { return render(w, res, true) }); err != nil {
			return exitUsage, usageErr(err)
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
