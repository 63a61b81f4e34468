package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// Below stats.MinEpisodes episodes under a variant, every human-readable
// report says the run is too small to decide; above it, none does.
func TestSmallRunSaysTooFewToDecide(t *testing.T) {
	renderers := map[string]func(*bytes.Buffer, *report.Results) error{
		"terminal": func(b *bytes.Buffer, r *report.Results) error {
			return report.Terminal(b, r, report.TerminalOptions{Plain: true})
		},
		"markdown": func(b *bytes.Buffer, r *report.Results) error { return report.Markdown(b, r) },
		"html":     func(b *bytes.Buffer, r *report.Results) error { return report.HTML(b, r) },
	}
	const warning = "Too few episodes to decide: 120 under clear; a verdict needs at least 300."
	small := reporttest.CRM(reporttest.Config{Seed: 3, Agents: 120})
	for name, f := range renderers {
		if out := render(t, func(b *bytes.Buffer) error { return f(b, small) }); !bytes.Contains(out, []byte(warning)) {
			t.Errorf("%s report of 120 agents does not say %q", name, warning)
		}
		if out := render(t, func(b *bytes.Buffer) error { return f(b, fixture()) }); bytes.Contains(out, []byte("Too few episodes")) {
			t.Errorf("%s report of 2,000 agents says there are too few episodes", name)
		}
	}
}

// Commands and replay lines go into Markdown code spans; a backtick in one
// must not end the span early.
func TestMarkdownKeepsCodeSpansWhole(t *testing.T) {
	res := fixture()
	res.Run.Command = "herd swarm ./odd`name.yaml --agents 2000"
	for i := range res.Traces {
		res.Traces[i].Replay = "herd replay ./odd`name.yaml --agent 1"
	}
	md := string(render(t, func(b *bytes.Buffer) error { return report.Markdown(b, res) }))
	if strings.Contains(md, "odd`name") {
		t.Error("a backtick inside a command ends its code span")
	}
	if !strings.Contains(md, "reproduce: `herd swarm ./odd'name.yaml --agents 2000`") || !strings.Contains(md, "Replay: `herd replay ./odd'name.yaml --agent 1`") {
		t.Error("the command or the replay line is missing from the summary")
	}
}
