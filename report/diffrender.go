package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// DiffJSON writes the diff report as indented JSON.
func DiffJSON(w io.Writer, d *DiffReport) error { return encode(w, d, true) }

// notable are the rows worth a line: every significant change (after
// correction), regressions first, then by adjusted p.
func (d *DiffReport) notable() []DiffRow {
	var out []DiffRow
	for _, r := range d.Rows {
		if r.PAdjusted < d.Alpha {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b DiffRow) int {
		if a.Regression != b.Regression {
			if a.Regression {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.PAdjusted, b.PAdjusted)
	})
	return out
}

func (d *DiffReport) verdictLine() string {
	if d.Regressions == 0 {
		return fmt.Sprintf("No regression: no rate got significantly worse by %s points or more.", Pct(d.MinEffect))
	}
	noun := "rates"
	if d.Regressions == 1 {
		noun = "rate"
	}
	return fmt.Sprintf("REGRESSION: %d %s got significantly worse by %s points or more.", d.Regressions, noun, Pct(d.MinEffect))
}

// diffTable lists rows: how each changed, both rates, the difference and
// its corrected p.
func diffTable(rows []DiffRow) textTable {
	t := columns([]string{"Change", "Rate", "Wording", "Base", "Head", "Head − Base [95% CI]", "p (Holm)"}, false, false, false, true, true, true, true)
	t.what, t.more = "significant changes", "the JSON form of the diff lists them all"
	for _, r := range rows {
		mark := "changed"
		switch {
		case r.Regression:
			mark = "REGRESSION"
		case r.Worse:
			mark = "worse (small)"
		case r.Diff != 0:
			mark = "better"
		}
		t.Rows = append(t.Rows, []string{mark, r.Label(), r.Wording(), RateText(r.Base), RateText(r.Head),
			DiffText(r.Diff, r.CI), PText(r.PAdjusted)}) // no rank: notable already put the rows in order
	}
	return t
}

// DiffTerminal writes the diff as text: the verdict, then every significant
// change as a table.
func DiffTerminal(w io.Writer, d *DiffReport, plain bool) error {
	t := &termWriter{w: w, plain: plain}
	t.printf("herd diff — base %s seed %d (%s) vs head %s seed %d (%s)\n",
		d.Base.World, d.Base.Seed, shortHash(d.Base.Fingerprint), d.Head.World, d.Head.Seed, shortHash(d.Head.Fingerprint))
	t.printf("test: %s\n\n%s\n", d.Test, d.verdictLine())
	rows := d.notable()
	t.table(diffTable(rows))
	t.printf("%d of %d rates compared changed significantly.\n", len(rows), len(d.Rows))
	return t.err
}

// DiffMarkdown writes the diff for a PR comment.
func DiffMarkdown(w io.Writer, d *DiffReport) error {
	var b strings.Builder
	icon := "✅"
	if d.Regressions > 0 {
		icon = "❌"
	}
	fmt.Fprintf(&b, "## %s herd diff\n\n%s\n\n", icon, d.verdictLine())
	// The worlds' names and the fingerprints come from the two results
	// files, which a pull request may have written.
	fmt.Fprintf(&b, "Base: %s, seed %d, %s agents (`%s`) · Head: %s, seed %d, %s agents (`%s`)  \nTest: %s.\n\n",
		markdownInline(d.Base.World), d.Base.Seed, Thousands(int64(d.Base.Agents)), markdownCode(shortHash(d.Base.Fingerprint)),
		markdownInline(d.Head.World), d.Head.Seed, Thousands(int64(d.Head.Agents)), markdownCode(shortHash(d.Head.Fingerprint)), markdownInline(d.Test))
	rows := d.notable()
	if len(rows) > 0 {
		tmpl, err := markdownTemplate()
		if err != nil {
			return fmt.Errorf("markdown template: %w", err)
		}
		const maxRows = 200 // keeps the comment well under GitHub's limit
		if err := tmpl.ExecuteTemplate(&b, "table", diffTable(rows).cut(maxRows)); err != nil {
			return fmt.Errorf("markdown: %w", err)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%d of %d rates compared changed significantly.\n", len(rows), len(d.Rows))
	_, err := io.WriteString(w, b.String())
	return err
}
