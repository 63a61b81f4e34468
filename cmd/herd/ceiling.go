package main

import (
	"context"
	"fmt"
	"io"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

// runCeiling is herd swarm --find-ceiling: the search's steps over tgt,
// each printed as it ends, and the results of the last step within the
// bound (with the curve in their timing).
func runCeiling(ctx context.Context, chatter io.Writer, o *swarmCmdOptions, cfg swarm.Config, tgt swarm.Target) (*report.Results, error) {
	bound, err := swarm.ParseCeilingBound(o.transport.findCeiling)
	if err != nil {
		return nil, usageErrf("--find-ceiling: %v", err)
	}
	search := swarm.CeilingSearch{From: o.transport.rate, Step: o.transport.duration, Refine: swarm.DefaultCeilingRefine, Confirm: true}
	res, err := swarm.FindCeiling(ctx, cfg, tgt, bound, search, func(st report.CeilingStep) {
		verdict := "within the bound"
		if !st.Pass {
			verdict = "outside the bound"
		}
		fmt.Fprintf(chatter, "herd: ceiling step %.1f/s: achieved %.1f/s, %d calls, p99 %.1f ms, errors %s%%: %s\n",
			st.Rate, st.Achieved, st.Calls, st.P99MS, report.Pct(st.ErrorRate), verdict)
	})
	if err != nil {
		return nil, flagErr(err)
	}
	fmt.Fprintf(chatter, "herd: ceiling: %.1f agents a second is the last rate within %s\n", res.Timing.Ceiling.Rate, bound.Spec)
	return res, nil
}
