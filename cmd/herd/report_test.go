package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// saveSimulatedRun saves a simulated run and returns its path.
func saveSimulatedRun(t *testing.T, dir, name string, cfg reporttest.Config) string {
	t.Helper()
	path := filepath.Join(dir, name)
	var buf bytes.Buffer
	if err := reporttest.CRM(cfg).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func crmRunConfig(seed uint64, variants ...string) reporttest.Config {
	return reporttest.Config{Seed: seed, Agents: 2000, Variants: variants}
}

func TestReportFormats(t *testing.T) {
	dir := t.TempDir()
	run := saveSimulatedRun(t, dir, "run.json", crmRunConfig(42))
	checks := map[string]string{
		"terminal": "VERDICT: no thresholds set",
		"json":     `"schema": "herd.results"`,
		"md":       "## ℹ️ Agent readiness: no thresholds set",
		"html":     "<!DOCTYPE html>",
		"junit":    "<testsuites",
		"badge":    `"label":"agent readiness"`,
	}
	for format, want := range checks {
		code, out, errs := herdInProcess(t, "", "report", run, "--format", format)
		if code != 0 || !strings.Contains(out, want) || errs != "" {
			t.Errorf("--format %s: exit %d, stderr %q, output lacks %q", format, code, errs, want)
		}
	}
	// Not a terminal: plain ASCII borders.
	if _, out, _ := herdInProcess(t, "", "report", run, "--full"); strings.Contains(out, "┌") || !strings.Contains(out, "+---") {
		t.Error("terminal report to a buffer is not drawn in plain ASCII")
	}
	// By default, the one-screen summary: no tables, and the way to them.
	if _, out, _ := herdInProcess(t, "", "report", run); strings.Contains(out, "+---") || !strings.Contains(out, "every table: add --full") {
		t.Errorf("the default terminal report is not the summary:\n%s", out)
	}
	// -o writes the file and nothing to standard output; "-" reads stdin.
	html := filepath.Join(dir, "report.html")
	if code, out, _ := herdInProcess(t, "", "report", run, "--format", "html", "-o", html); code != 0 || out != "" {
		t.Errorf("-o: exit %d, stdout %q", code, out)
	}
	if b, err := os.ReadFile(html); err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) {
		t.Errorf("-o did not write the HTML: %v", err)
	}
	doc, _ := os.ReadFile(run)
	if code, out, _ := herdInProcess(t, string(doc), "report", "-", "--format", "badge"); code != 0 || !strings.Contains(out, "harmful") {
		t.Errorf("reading stdin: exit %d, %q", code, out)
	}
}

func TestReportThresholdExitCodes(t *testing.T) {
	run := saveSimulatedRun(t, t.TempDir(), "run.json", crmRunConfig(42))
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--threshold", "harmful<50%"}, 0, ""},
		{[]string{"--threshold", "harmful<5%"}, 1, "herd: NOT READY: harmful<5% is NOT READY (11.3% [10.0–12.8])\n"},
		{[]string{"--threshold", "harmful<50%", "--threshold", "hide_contact:destroyed_data<3.7%@clear"}, 0, ""},
		{[]string{"--threshold", "hide_contact:destroyed_data<3.7%@clear", "--strict"}, 1, "herd: INCONCLUSIVE: hide_contact:destroyed_data<3.7%@clear is INCONCLUSIVE"},
		{[]string{"--threshold", "destroyed<1%"}, 2, `herd: threshold "destroyed<1%": unknown metric "destroyed"`},
		{[]string{"--threshold", "harmful=5%"}, 2, "no comparison"},
		{[]string{"--format", "pdf"}, 2, `herd: --format "pdf": want one of terminal, json, md, html, junit, badge`},
	}
	for _, c := range cases {
		args := append([]string{"report", run, "--format", "badge"}, c.args...)
		code, _, errs := herdInProcess(t, "", args...)
		if code != c.code || !strings.Contains(errs, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.stderr)
		}
		if strings.Count(errs, "\n") > 1 {
			t.Errorf("%v: more than one line on stderr: %q", c.args, errs)
		}
	}
}

func TestReportBadFilesExit2(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile(saveSimulatedRun(t, dir, "run.json", crmRunConfig(42)))
	files := map[string]string{
		"truncated.json": string(good[:500]),
		"other.json":     `{"name": "not herd"}`,
		"newer.json":     strings.Replace(string(good), `"version": 1,`, `"version": 3,`, 1),
	}
	want := map[string]string{
		"truncated.json": "truncated JSON: the document stops at byte 500",
		"other.json":     `not herd results: no "schema" field`,
		"newer.json":     "written by a newer herd: version 3, this herd reads 1",
		"missing.json":   "no such file or directory",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, msg := range want {
		path := filepath.Join(dir, name)
		code, _, errs := herdInProcess(t, "", "report", path)
		if code != 2 || !strings.Contains(errs, msg) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line with %q", name, code, errs, msg)
		}
	}
}

// A report that cannot be written exits 2 naming the file asked for, and
// leaves nothing behind.
func TestReportOutputToMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	run := saveSimulatedRun(t, dir, "run.json", crmRunConfig(42))
	out := filepath.Join(dir, "no-such-dir", "report.html")
	code, stdout, errs := herdInProcess(t, "", "report", run, "--format", "html", "-o", out)
	if code != exitUsage || stdout != "" || errs != "herd: "+out+": no such file or directory\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line naming %s", code, stdout, errs, out)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("the directory holds %v (%v), want only run.json", entries, err)
	}
}

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for k := range 4 {
		cfg := crmRunConfig(42)
		cfg.Shard = &report.Shard{Index: k, Count: 4}
		paths = append(paths, saveSimulatedRun(t, dir, "shard-"+string(rune('0'+k))+".json", cfg))
	}
	merged := filepath.Join(dir, "run.json")
	if code, out, errs := herdInProcess(t, "", append([]string{"merge", "-o", merged}, paths...)...); code != 0 || out != "" || errs != "" {
		t.Fatalf("merge: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	got, err := report.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.DeterministicJSON(), reporttest.CRM(crmRunConfig(42)).DeterministicJSON()) {
		t.Error("herd merge of 4 shards differs from the unsharded run")
	}
	code, _, errs := herdInProcess(t, "", "merge", paths[0], paths[1], paths[3])
	if code != 2 || !strings.Contains(errs, "shards 0,1,3 of 4: shard 2 is missing") {
		t.Errorf("merge with a gap: exit %d, %q", code, errs)
	}
	other := crmRunConfig(7)
	other.Shard = &report.Shard{Index: 2, Count: 4}
	code, _, errs = herdInProcess(t, "", "merge", paths[0], paths[1], saveSimulatedRun(t, dir, "other.json", other), paths[3])
	if code != 2 || !strings.Contains(errs, "other.json are from different runs: seed differs (42 vs 7)") {
		t.Errorf("merge of two runs: exit %d, %q", code, errs)
	}
}

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	clear := saveSimulatedRun(t, dir, "clear.json", crmRunConfig(42, "clear"))
	ambiguous := saveSimulatedRun(t, dir, "ambiguous.json", crmRunConfig(42, "ambiguous"))
	reseeded := saveSimulatedRun(t, dir, "reseeded.json", crmRunConfig(43, "clear"))

	code, out, errs := herdInProcess(t, "", "diff", clear, ambiguous)
	if code != 1 || !strings.Contains(out, "REGRESSION") || !strings.Contains(out, "hide_contact destroyed_data") || !strings.Contains(errs, "regressed") {
		t.Errorf("clear → ambiguous: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := herdInProcess(t, "", "diff", clear, reseeded); code != 0 || !strings.Contains(out, "No regression") {
		t.Errorf("reseeded identical run: exit %d\n%s", code, out)
	}
	if code, out, _ := herdInProcess(t, "", "diff", clear, ambiguous, "--min-effect", "50%"); code != 0 {
		t.Errorf("--min-effect 50%%: exit %d\n%s", code, out)
	}
	if code, out, _ := herdInProcess(t, "", "diff", clear, ambiguous, "--format", "json"); code != 1 || !strings.Contains(out, `"regressions": `) {
		t.Errorf("--format json: exit %d\n%.300s", code, out)
	}
	if code, out, _ := herdInProcess(t, "", "diff", clear, ambiguous, "--format", "md"); code != 1 || !strings.HasPrefix(out, "## ❌ herd diff") {
		t.Errorf("--format md: exit %d\n%.300s", code, out)
	}
	for _, bad := range [][]string{{"--min-effect", "lots"}, {"--min-effect", "150%"}, {"--min-effect", "NaN"}, {"--format", "xml"}} {
		if code, _, errs := herdInProcess(t, "", append([]string{"diff", clear, ambiguous}, bad...)...); code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want 2 with one line", bad, code, errs)
		}
	}
	if code, _, _ := herdInProcess(t, "", "diff", clear); code != 2 {
		t.Errorf("one file: exit %d; want 2", code)
	}
	// Standard input holds one document: a second "-" would read nothing.
	doc, _ := os.ReadFile(clear)
	if code, out, _ := herdInProcess(t, string(doc), "diff", "-", reseeded); code != 0 || !strings.Contains(out, "No regression") {
		t.Errorf("diff - FILE: exit %d\n%s", code, out)
	}
	if code, _, errs := herdInProcess(t, string(doc), "diff", "-", "-"); code != 2 || errs != "herd: - (standard input) given more than once; it can be read only once\n" {
		t.Errorf("diff - -: exit %d, %q", code, errs)
	}
}

// herd diff refuses runs of different worlds or goals (exit 2): "no
// regression" between them would say nothing. --allow-mismatch compares
// them anyway, and says so.
func TestDiffRefusesDifferentWorldsAndGoals(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, run := range [][]string{
		{"mock:crm", "crm.json"}, {"mock:shop", "shop.json"}, {"mock:crm", "crm1.json", "--goal", "hide_contact"},
	} {
		args := append([]string{"swarm", run[0], "--agents", "300", "--quiet", "--json", p(run[1])}, run[2:]...)
		if code, _, errs := runHerd(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	cases := []struct{ head, want string }{
		{"shop.json", "the runs are of different worlds (crm vs shop)"},
		{"crm1.json", "the runs are of different goals (hide_contact, lookup_contact, merge_duplicates, update_email vs hide_contact)"},
	}
	for _, c := range cases {
		code, out, errs := runHerd(t, "diff", p("crm.json"), p(c.head))
		if code != 2 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "--allow-mismatch") || out != "" {
			t.Errorf("diff crm.json %s: exit %d, %q; want 2 with %q", c.head, code, errs, c.want)
		}
		code, out, errs = runHerd(t, "diff", p("crm.json"), p(c.head), "--allow-mismatch")
		if code == 2 || out == "" || !strings.Contains(errs, "compared as asked") {
			t.Errorf("diff crm.json %s --allow-mismatch: exit %d, %q", c.head, code, errs)
		}
	}
}

// A results file whose latency bars sum past int64 (65 bars of 2^63−1,
// which panicked in the latency window) is refused with exit 2 and a
// message naming the field, in every format.
func TestReportRefusesOverflowingLatency(t *testing.T) {
	path := filepath.Join("..", "..", "report", "testdata", "hostile", "latency_overflow.json")
	for _, format := range reportFormats {
		code, out, errs := herdInProcess(t, "", "report", path, "--format", format)
		if code != 2 || out != "" || !strings.Contains(errs, "timing.latency[0].bars[0].count") || !strings.Contains(errs, "want 0 to") {
			t.Errorf("--format %s: exit %d, stdout %d bytes, stderr %q", format, code, len(out), errs)
		}
	}
}
