package report_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// FuzzResults feeds arbitrary bytes to the results reader, as `herd report`
// meets a file from a CI artifact or a pull request. Whatever they hold,
// the bounded reader answers with a document or an error, never a panic; a
// document it returns is one Validate accepts (nothing else is rendered),
// and every renderer, a diff against itself and a merge of it as two shards
// take it without panicking or failing. What it writes as JSON reads back.
//
//	go test -run '^$' -fuzz=FuzzResults -fuzzminimizetime=1s ./report
//
// (-fuzzminimizetime: the default minimizes each new input for 60 s, which
// leaves a short run almost no time to fuzz.)
func FuzzResults(f *testing.F) {
	for _, cfg := range []reporttest.Config{
		{Seed: 1, Agents: 12},
		{Seed: 2, Agents: 30, Timing: true, Thresholds: []string{"harmful<15%", "p99<300ms"}},
		{Seed: 3, Agents: 8, Variants: []string{"clear"}, Partial: true},
		{Seed: 4, Agents: 10, Shard: &report.Shard{Index: 1, Count: 2}, Timing: true},
	} {
		var buf bytes.Buffer
		if err := reporttest.CRM(cfg).Write(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	files, _ := filepath.Glob("testdata/hostile/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"schema":"` + report.Schema + `","version":1,"run":{"variants":["a"]},"episodes":0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := report.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := res.Validate(); err != nil {
			t.Fatalf("the reader returned a document Validate refuses: %v", err)
		}
		exerciseResults(t, res)
	})
}

// exerciseResults renders a valid document in every format, diffs it
// against itself, merges it as two shards, and reads back what it writes.
func exerciseResults(t *testing.T, res *report.Results) {
	t.Helper()
	renders := everyFormat()
	renders["terminal-plain"] = func(w io.Writer, r *report.Results) error {
		return report.Terminal(w, r, report.TerminalOptions{Plain: true})
	}
	for name, render := range renders {
		if err := render(io.Discard, res); err != nil {
			t.Fatalf("%s: rendering a valid document: %v", name, err)
		}
	}

	var js bytes.Buffer
	if err := res.Write(&js); err != nil {
		t.Fatalf("writing: %v", err)
	}
	again, err := report.Decode(js.Bytes())
	if err != nil {
		t.Fatalf("a written document does not read back: %v\n%.2000s", err, js.Bytes())
	}
	if !bytes.Equal(again.DeterministicJSON(), res.DeterministicJSON()) {
		t.Fatalf("a document read back differs from the one written")
	}

	if d, err := report.Diff(res, again, report.DefaultDiffOptions()); err == nil {
		for name, render := range map[string]func(io.Writer) error{
			"diff terminal": func(w io.Writer) error { return report.DiffTerminal(w, d, true) },
			"diff markdown": func(w io.Writer) error { return report.DiffMarkdown(w, d) },
			"diff json":     func(w io.Writer) error { return report.DiffJSON(w, d) },
		} {
			if err := render(io.Discard); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if d.Regressions != 0 {
			t.Fatalf("a document diffed against itself has %d regressions", d.Regressions)
		}
	}

	// The document as both shards of a run of two: sameRun holds, so the
	// merge may only fail on what the document itself says (thresholds it
	// cannot re-evaluate); what it makes must be valid and render.
	a, b := again, mustDecode(t, js.Bytes())
	a.Run.Shard, b.Run.Shard = &report.Shard{Index: 0, Count: 2}, &report.Shard{Index: 1, Count: 2}
	merged, err := report.Merge(a, b)
	if err != nil {
		return
	}
	if err := merged.Validate(); err != nil {
		t.Fatalf("merging a valid document with itself made an invalid one: %v", err)
	}
	for name, render := range renders {
		if err := render(io.Discard, merged); err != nil {
			t.Fatalf("%s: rendering the merged document: %v", name, err)
		}
	}
}

func mustDecode(t *testing.T, data []byte) *report.Results {
	t.Helper()
	r, err := report.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
