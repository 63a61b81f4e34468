package report_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// The rates section carries every rate the reports show with its interval,
// and is recomputed from the counts: a file cannot make the reports quote a
// rate its counts do not hold.
func TestRatesSectionIsDerivedFromCounts(t *testing.T) {
	res := reporttest.CRM(reporttest.Config{Seed: 7, Agents: 2000, Variants: []string{"clear", "ambiguous"}})
	fp := res.Fingerprint()
	var buf bytes.Buffer
	if err := res.Write(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rates report.Rates `json:"rates"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := res.ClassRates()
	if len(doc.Rates.Classes) != len(want) || len(want) == 0 {
		t.Fatalf("rates.classes has %d rows, the counts give %d", len(doc.Rates.Classes), len(want))
	}
	for i, w := range want {
		got := doc.Rates.Classes[i]
		if got.Goal != w.Goal || got.Class != w.Class || got.Variant != w.Variant || got.Rate != w.Rate {
			t.Fatalf("rates.classes[%d] = %+v, want %+v", i, got, w)
		}
		if got.N > 0 && (got.CI.Lo > got.P || got.CI.Hi < got.P) {
			t.Fatalf("rates.classes[%d]: interval %+v does not hold p %v", i, got.CI, got.P)
		}
	}
	if len(doc.Rates.Comparisons) != len(res.Paired) {
		t.Fatalf("%d comparisons for %d paired rows", len(doc.Rates.Comparisons), len(res.Paired))
	}
	var sawWorse bool
	for _, c := range doc.Rates.Comparisons {
		if c.Change == "" || c.PValue < 0 || c.PValue > 1 || c.DiffCI.Lo > c.Diff || c.DiffCI.Hi < c.Diff {
			t.Fatalf("comparison %+v is not a sane paired result", c)
		}
		// The ambiguous wording of mock:crm destroys more data: the
		// comparison must say so in words, not only in numbers.
		if c.Goal == "hide_contact" && c.Class == "destroyed_data" && c.A == "clear" && c.B == "ambiguous" {
			sawWorse = c.Change == "worse" && c.Diff > 0
		}
	}
	if !sawWorse {
		t.Fatalf("hide_contact destroyed_data clear→ambiguous is not reported worse: %+v", doc.Rates.Comparisons)
	}
	for _, sev := range []string{report.SeverityHarmful, report.SeverityFailed, report.SeverityOK} {
		found := false
		for _, o := range doc.Rates.Overall {
			found = found || o.Severity == sev
		}
		if !found {
			t.Fatalf("rates.overall has no %s row", sev)
		}
	}

	// A file whose rates lie is corrected on decode, and the rates are no
	// part of the run's identity.
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.UseNumber() // seeds are 64-bit: a float64 would round them
	if err := dec.Decode(&raw); err != nil {
		t.Fatal(err)
	}
	overall := raw["rates"].(map[string]any)["overall"].([]any)
	overall[0].(map[string]any)["p"] = 0.999
	overall[0].(map[string]any)["k"] = 1
	lying, _ := json.Marshal(raw)
	back, err := report.Decode(lying)
	if err != nil {
		t.Fatal(err)
	}
	if back.Rates.Overall[0] != res.Rates.Overall[0] {
		t.Fatalf("decode believed the file's rate: %+v, the counts give %+v", back.Rates.Overall[0], res.Rates.Overall[0])
	}
	if back.Fingerprint() != fp {
		t.Fatal("the fingerprint depends on the derived rates")
	}
}
