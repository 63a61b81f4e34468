package report_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixtureThresholds are judged on the fixture: one fails, one passes, one
// is on latency.
var fixtureThresholds = []string{"harmful<15%@clear", "harmful<5%", "hide_contact:destroyed_data<1%@clear", "p99<300ms"}

// fixture is the crm run every golden file renders: 2,000 agents, two
// wordings, realistic faults, timing.
func fixture() *report.Results {
	return reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Timing: true, Thresholds: fixtureThresholds})
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update after checking the change)\n--- got (first 3000 bytes) ---\n%s", name, head(got, 3000))
	}
}

func head(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func render(t *testing.T, f func(*bytes.Buffer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGoldenTerminalASCII(t *testing.T) {
	got := render(t, func(b *bytes.Buffer) error {
		return report.Terminal(b, fixture(), report.TerminalOptions{Plain: true, Full: true})
	})
	if bytes.ContainsAny(got, "┌│─") {
		t.Error("plain terminal output uses box-drawing characters")
	}
	golden(t, "terminal.golden", got)
}

func TestGoldenMarkdown(t *testing.T) {
	golden(t, "summary.md.golden", render(t, func(b *bytes.Buffer) error { return report.Markdown(b, fixture()) }))
}

// everyFormat is every renderer of a results document, by format name.
func everyFormat() map[string]func(io.Writer, *report.Results) error {
	return map[string]func(io.Writer, *report.Results) error{
		"terminal": func(w io.Writer, r *report.Results) error {
			return report.Terminal(w, r, report.TerminalOptions{})
		},
		"markdown": report.Markdown,
		"json":     report.JSON,
		"html":     report.HTML,
		"junit":    report.JUnit,
		"badge":    report.Badge,
	}
}

// Rendering twice gives the same bytes: nothing depends on map order or time.
func TestRenderersAreDeterministic(t *testing.T) {
	for name, f := range everyFormat() {
		a := render(t, func(b *bytes.Buffer) error { return f(b, fixture()) })
		b := render(t, func(b *bytes.Buffer) error { return f(b, fixture()) })
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two renderings of the same document differ", name)
		}
	}
}
