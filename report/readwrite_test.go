package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
)

func TestReadRefusesBadDocumentsClearly(t *testing.T) {
	var doc bytes.Buffer
	if err := fixture().Write(&doc); err != nil {
		t.Fatal(err)
	}
	good := doc.String()
	cases := []struct {
		name, input, want string
	}{
		{"empty", "", "not JSON: the file is empty"},
		{"not JSON", "hello", "not JSON: invalid character 'h'"},
		{"syntax error with offset", `{"schema": "herd.results", "version": 1,, }`, "at byte 41"},
		{"truncated", good[:1000], "truncated JSON: the document stops at byte 1000"},
		{"array", `[1, 2]`, "not herd results: the document is a JSON array, not an object"},
		{"no schema", `{"version": 1}`, `not herd results: no "schema" field`},
		{"wrong schema", `{"schema": "k6.summary", "version": 1}`, `schema is "k6.summary", want "herd.results"`},
		{"no version", `{"schema": "herd.results"}`, `no "version" field`},
		{"newer", strings.Replace(good, `"version": 1,`, `"version": 2,`, 1), "written by a newer herd: version 2, this herd reads 1"},
		{"version zero", `{"schema": "herd.results", "version": 0}`, "version 0 is not a herd results version"},
		{"wrong type", strings.Replace(good, `"episodes": 4000`, `"episodes": "many"`, 1), "field episodes: got a JSON string, want a whole number"},
		{"negative count", strings.Replace(good, `"n": 51`, `"n": -3`, 1), "counts[0].n is -3"},
		{"unknown severity", strings.Replace(good, `"severity": "ok"`, `"severity": "fine"`, 1), `"fine" is not a severity`},
		{"no variants", strings.Replace(good, `"variants": [`, `"variants": [], "old_variants": [`, 1), "run.variants is empty"},
		{"more recovered than injected", recoveredAbove(t, good), "recovered of injected: count 1000 exceeds its total"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := report.Read(strings.NewReader(c.input))
			if err == nil {
				t.Fatalf("read succeeded; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, []byte(`{"schema":"herd.results","version":7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := report.ReadFile(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+": written by a newer herd: version 7") {
		t.Errorf("error = %v; want it to start with the path and say the version", err)
	}
}

// Write → Read → Write gives the same bytes, and the document survives the
// trip unchanged (fingerprint included).
func TestWriteReadRoundTrip(t *testing.T) {
	res := fixture()
	var a bytes.Buffer
	if err := res.Write(&a); err != nil {
		t.Fatal(err)
	}
	back, err := report.Read(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := back.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("writing a document read back gives different bytes")
	}
	if res.Fingerprint() != back.Fingerprint() {
		t.Error("fingerprint changed over a write/read round trip")
	}
	if !strings.Contains(a.String(), `"threshold": "harmful<5%"`) {
		t.Error(`thresholds are HTML-escaped in the JSON; want "harmful<5%" as typed`)
	}
	if !strings.Contains(a.String(), `"ci": {`) || strings.Contains(a.String(), `"Lo"`) {
		t.Error(`verdict intervals are not written as {"lo","hi"}`)
	}
}

// The fingerprint covers the reproducible part only: timing (and verdicts
// on latency, which are timing) can change without changing it; a count
// cannot.
func TestFingerprintIgnoresTimingOnly(t *testing.T) {
	base := fixture().Fingerprint()
	if len(base) != 64 {
		t.Fatalf("fingerprint %q is not sha256 hex", base)
	}
	r := fixture()
	r.Timing.Seconds *= 3
	r.Timing.Host = "elsewhere"
	r.Timing.Latency[0].Bars[0].Count += 1000
	for i := range r.Thresholds {
		if r.Thresholds[i].Metric == "p99" {
			r.Thresholds[i].Value *= 2
		}
	}
	if got := r.Fingerprint(); got != base {
		t.Error("changing timing changed the fingerprint")
	}
	r.Timing = nil
	if got := r.Fingerprint(); got != base {
		t.Error("dropping timing changed the fingerprint")
	}
	r.Counts[0].N++
	if got := r.Fingerprint(); got == base {
		t.Error("changing a count did not change the fingerprint")
	}
}

// Normalize orders everything and cuts the samples to their bounds, so a
// producer that appends in any order writes the same bytes.
func TestNormalizeIsCanonical(t *testing.T) {
	a := fixture()
	b := fixture()
	reverse(b.Counts)
	reverse(b.Traces)
	reverse(b.Flipped)
	reverse(b.Faults)
	reverse(b.Paired)
	reverse(b.Confusions)
	reverse(b.Timing.Latency)
	b.Traces = append(b.Traces, b.Traces...) // duplicates from overlapping samples
	b.Flipped = append(b.Flipped, b.Flipped...)
	b.Counts = append(b.Counts, report.Count{Goal: "hide_contact", Persona: "careful", Variant: "clear", Class: "achieved", Severity: "ok", N: 0})
	if !bytes.Equal(a.DeterministicJSON(), b.DeterministicJSON()) {
		t.Error("the same content in another order gives other bytes")
	}
	perGroup := map[[3]string]int{}
	for _, tr := range a.Traces {
		perGroup[[3]string{tr.Goal, tr.Variant, tr.Class}]++
	}
	for k, n := range perGroup {
		if n > report.TracesPerClass {
			t.Errorf("%v keeps %d traces; the bound is %d", k, n, report.TracesPerClass)
		}
	}
	flipsPerPair := map[string]int{}
	for _, f := range a.Flipped {
		pair := f.Goal
		for _, side := range []map[string]string{f.From, f.To} {
			for variant := range side { // one entry each: its key is the variant
				pair += " " + variant
			}
		}
		flipsPerPair[pair]++
	}
	for k, n := range flipsPerPair {
		if n > report.FlipsPerPair {
			t.Errorf("%s keeps %d flips; the bound is %d", k, n, report.FlipsPerPair)
		}
	}
	for i := 1; i < len(a.Traces); i++ {
		p, c := a.Traces[i-1], a.Traces[i]
		if p.Goal == c.Goal && p.Variant == c.Variant && p.Class == c.Class && p.Agent >= c.Agent {
			t.Errorf("traces of %s/%s/%s are not in ascending agent order", c.Goal, c.Variant, c.Class)
		}
	}
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// recoveredAbove is doc with its first fault row claiming more recoveries
// than faults injected.
func recoveredAbove(t *testing.T, doc string) string {
	t.Helper()
	re := regexp.MustCompile(`"recovered": [0-9]+`)
	if !re.MatchString(doc) {
		t.Fatal("the fixture has no fault rows")
	}
	return re.ReplaceAllLiteralString(doc, `"recovered": 1000`)
}
