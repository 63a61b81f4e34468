package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"testing"

	"github.com/herd-sh/herd/report"
)

func TestJUnit(t *testing.T) {
	res := fixture()
	out := render(t, func(b *bytes.Buffer) error { return report.JUnit(b, res) })
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("JUnit output is not XML: %v", err)
	}
	notReady := 0
	for _, v := range res.Thresholds {
		if v.Result == report.NotReady {
			notReady++
		}
	}
	thresholds, outcomes := doc.Suites[0], doc.Suites[1]
	if len(thresholds.Cases) != len(res.Thresholds) {
		t.Errorf("%d threshold test cases for %d thresholds", len(thresholds.Cases), len(res.Thresholds))
	}
	failed := 0
	for i, c := range thresholds.Cases {
		if c.Name != res.Thresholds[i].Threshold {
			t.Errorf("test case %q; want %q", c.Name, res.Thresholds[i].Threshold)
		}
		if (c.Failure != nil) != (res.Thresholds[i].Result == report.NotReady) {
			t.Errorf("%s: failure=%v for a %s verdict", c.Name, c.Failure != nil, res.Thresholds[i].Result)
		}
		if c.Failure != nil {
			failed++
		}
	}
	if failed != notReady {
		t.Errorf("%d failures for %d NOT READY thresholds", failed, notReady)
	}
	// One case per harmful class × variant: 5 harmful classes × 2 variants;
	// destroyed_data@clear fails with its threshold.
	if len(outcomes.Cases) != 10 {
		t.Errorf("%d outcome test cases; want 10", len(outcomes.Cases))
	}
	for _, c := range outcomes.Cases {
		if (c.Failure != nil) != (c.Name == "destroyed_data @clear") {
			t.Errorf("outcome case %q failure=%v", c.Name, c.Failure != nil)
		}
	}
	if doc.Tests != len(thresholds.Cases)+len(outcomes.Cases) || doc.Failures != notReady+1 {
		t.Errorf("totals tests=%d failures=%d", doc.Tests, doc.Failures)
	}
}

func TestBadge(t *testing.T) {
	type badge struct {
		SchemaVersion int    `json:"schemaVersion"`
		Label         string `json:"label"`
		Message       string `json:"message"`
		Color         string `json:"color"`
	}
	read := func(res *report.Results) badge {
		var b badge
		if err := json.Unmarshal(render(t, func(w *bytes.Buffer) error { return report.Badge(w, res) }), &b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	if b := read(fixture()); b != (badge{1, "agent readiness", "NOT READY", "red"}) {
		t.Errorf("badge %+v", b)
	}
	ready := fixture()
	ready.Thresholds = ready.Thresholds[:1] // harmful<15%@clear: READY
	if b := read(ready); b.Message != "READY" || b.Color != "brightgreen" {
		t.Errorf("badge %+v; want READY brightgreen", b)
	}
	none := fixture()
	none.Thresholds = nil
	if b := read(none); b.Message != "harmful 11.3%" || b.Color != "orange" {
		t.Errorf("badge without thresholds %+v; want the worst harmful rate, 11.3%%, orange", b)
	}
}
