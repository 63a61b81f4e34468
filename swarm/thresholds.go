package swarm

import (
	"github.com/herd-sh/herd/report"
)

// CheckThresholds checks thresholds against what the run will measure,
// before it runs: every goal, outcome class and variant they name, and for
// a latency threshold, that the run measures latency at all (realTime: its
// target is over a transport; an in-process run keeps virtual time) and
// measures it for the tool named. An error names the Thresholds field.
func (p *Plan) CheckThresholds(specs []string, realTime bool) error {
	if len(specs) == 0 {
		return nil
	}
	sk := p.Skeleton()
	if realTime {
		// Every tool the agents may call can have a histogram: one per
		// tool, and one over all calls.
		sk.Timing = &report.Timing{Latency: []report.LatencyHistogram{{Tool: report.AllTools}}}
		for _, t := range p.layout.tools {
			sk.Timing.Latency = append(sk.Timing.Latency, report.LatencyHistogram{Tool: t})
		}
	}
	ts, err := report.ParseThresholds(sk, specs)
	if err != nil {
		return &FieldError{Field: "Thresholds", Err: err}
	}
	if !realTime {
		for _, t := range ts {
			if t.Latency() {
				return fieldErr("Thresholds", "threshold %q: this run measures no latency: it runs in-process, on virtual time; latency is measured over a transport (serve:WORLD, an http:// URL or mcp+stdio:)", t.Spec)
			}
		}
	}
	return nil
}
