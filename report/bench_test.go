package report_test

import (
	"io"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// BenchmarkRenderAll renders every format of a 1,000,000-agent run (two
// wordings, full latency histograms of six million calls): what `herd
// report` does at the end of a big run, per format.
func BenchmarkRenderAll(b *testing.B) {
	res := reporttest.CRM(reporttest.Config{Seed: 1, Agents: 1_000_000, Timing: true,
		Thresholds: []string{"harmful<5%", "hide_contact:destroyed_data<1%@clear", "p99<300ms"}})
	bars := 0
	for _, h := range res.Timing.Latency {
		bars += len(h.Bars)
	}
	b.Logf("%d episodes, %d latency bars, %d traces", res.Episodes, bars, len(res.Traces))
	renderers := []struct {
		name string
		f    func(io.Writer, *report.Results) error
	}{
		{"terminal", func(w io.Writer, r *report.Results) error {
			return report.Terminal(w, r, report.TerminalOptions{Plain: true})
		}},
		{"json", report.JSON},
		{"markdown", report.Markdown},
		{"html", report.HTML},
		{"junit", report.JUnit},
		{"badge", report.Badge},
	}
	for _, r := range renderers {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				if err := r.f(io.Discard, res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			for _, r := range renderers {
				if err := r.f(io.Discard, res); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
