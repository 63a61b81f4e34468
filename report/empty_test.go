package report_test

import (
	"bytes"
	"testing"

	"github.com/herd-sh/herd/report"
)

// A document with nothing in it (a run interrupted before any episode
// finished, or a skeleton) renders in every format without a panic.
func TestRenderEmptyDocument(t *testing.T) {
	docs := map[string]*report.Results{
		"zero":     {},
		"skeleton": {Schema: report.Schema, Version: report.Version, Partial: true, Run: report.Run{Variants: []string{"clear"}, Goals: []string{"g"}}},
		"no timing bars": {Schema: report.Schema, Version: report.Version, Run: report.Run{Variants: []string{"clear"}},
			Timing: &report.Timing{Latency: []report.LatencyHistogram{{Tool: "all"}}, InFlight: []report.Sample{{T: 0, InFlight: 0}}}},
	}
	for name, doc := range docs {
		for format, f := range everyFormat() {
			var buf bytes.Buffer
			if err := f(&buf, doc); err != nil {
				t.Errorf("%s/%s: %v", name, format, err)
			}
			if buf.Len() == 0 {
				t.Errorf("%s/%s: nothing written", name, format)
			}
		}
	}
}
