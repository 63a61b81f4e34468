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

// finishRun evaluates thresholds, prints the terminal summary, writes the
// requested files and returns the exit code the verdicts call for.
func finishRun(s *streams, res *report.Results, out outputs, thresholds []string, strict bool) (int, error) {
	if len(thresholds) > 0 {
		ts, err := report.ParseThresholds(res, thresholds)
		if err != nil {
			return exitUsage, usageErr(err)
		}
		res.Thresholds = report.Evaluate(res, ts)
	}
	// Files first: a broken terminal (closed pipe) must not lose them.
	writers := []struct {
		path   string
		render func(io.Writer, *report.Results) error
	}{
		{out.json, func(w io.Writer, r *report.Results) error { return r.Write(w) }},
		{out.html, report.HTML},
		{out.md, report.Markdown},
		{out.junit, report.JUnit},
		{out.badge, report.Badge},
	}
	for _, wr := range writers {
		if wr.path == "" {
			continue
		}
		if err := writeFileAtomic(wr.path, func(w io.Writer) error { return wr.render(w, res) }); err != nil {
			return exitUsage, usageErr(err)
		}
	}
	if err := report.Terminal(s.out, res, report.TerminalOptions{Plain: !isTerminal(s.out)}); err != nil {
		return exitUsage, err
	}
	return report.ExitCode(res.Thresholds, strict), nil
}
