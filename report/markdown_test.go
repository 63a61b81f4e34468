package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

func TestMarkdownLeadsWithTheVerdict(t *testing.T) {
	md := string(render(t, func(b *bytes.Buffer) error { return report.Markdown(b, fixture()) }))
	first := strings.SplitN(strings.TrimSpace(md), "\n", 2)[0]
	if first != "## ❌ Agent readiness: NOT READY" {
		t.Errorf("first line %q; want the verdict", first)
	}
	order := []string{"Agent readiness", "| Result |", "### Misuse map", "### Variant comparison", "### Harmful outcomes by persona", "### Fault handling", "### Sampled traces", "<details>"}
	last := -1
	for _, s := range order {
		i := strings.Index(md, s)
		if i < 0 || i < last {
			t.Errorf("%q missing or out of order", s)
		}
		last = i
	}
	// "@" is followed by a zero-width space: "@clear" must not mention a user.
	if !strings.Contains(md, "hide_contact:destroyed_data<1%@\u200bclear") || !strings.Contains(md, "herd replay mock:crm --seed 42 --agent") {
		t.Error("thresholds or replay commands missing")
	}
}

// A big run — 50 goals × 10 personas × 3 wordings, over a thousand sampled
// traces — still makes a summary GitHub accepts, and it says what it cut.
func TestMarkdownStaysUnder60KB(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 30,000 agents × 3 variants")
	}
	big := reporttest.CRM(reporttest.Config{Seed: 5, Agents: 30000, ExtraGoals: 47, ExtraPersonas: 3,
		Variants: []string{"clear", "ambiguous", "terse"}, Timing: true,
		Thresholds: []string{"harmful<5%", "destroyed_data<2%", "p99<100ms"}})
	if len(big.Run.Goals) != 50 || len(big.Run.Mix) != 10 || len(big.Traces) < 1000 {
		t.Fatalf("fixture has %d goals, %d personas, %d traces; want 50, 10, ≥1000", len(big.Run.Goals), len(big.Run.Mix), len(big.Traces))
	}
	md := render(t, func(b *bytes.Buffer) error { return report.Markdown(b, big) })
	if len(md) >= report.MarkdownLimit {
		t.Errorf("markdown is %d bytes; the limit is %d", len(md), report.MarkdownLimit)
	}
	for _, want := range []string{"## ❌ Agent readiness: NOT READY", "### Misuse map", "Showing ", "sampled traces, harmful first"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("the cut summary lacks %q", want)
		}
	}
	t.Logf("markdown for %d goals, %d traces: %d bytes", len(big.Run.Goals), len(big.Traces), len(md))
}
