package report_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
	"github.com/herd-sh/herd/report/stats"
)

// The clear wording destroys data in about 3% of hide_contact episodes, the
// ambiguous one in about 19%: diffing a clear run against an ambiguous one
// (same seed, 2,000 agents) must flag it, paired.
func TestDiffFlagsARealRegression(t *testing.T) {
	base := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Variants: []string{"clear"}})
	head := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Variants: []string{"ambiguous"}})
	d, err := report.Diff(base, head, report.DefaultDiffOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !d.Paired {
		t.Error("same seed, agents and mix: want a paired comparison")
	}
	var found *report.DiffRow
	for i, r := range d.Rows {
		if r.Goal == "hide_contact" && r.Metric == "destroyed_data" && r.Persona == "" {
			found = &d.Rows[i]
		}
	}
	if found == nil {
		t.Fatal("no row for hide_contact destroyed_data")
	}
	if !found.Regression || !found.Paired || found.PAdjusted >= 0.001 {
		t.Errorf("hide_contact destroyed_data %s → %s: regression=%v paired=%v p=%v; want a paired regression with p < 0.001",
			report.RateText(found.Base), report.RateText(found.Head), found.Regression, found.Paired, found.PAdjusted)
	}
	if found.Base.P > 0.05 || found.Head.P < 0.15 {
		t.Errorf("fixture rates %v → %v; want about 3%% → 19%%", found.Base.P, found.Head.P)
	}
	if d.Regressions == 0 {
		t.Error("no regression counted")
	}
	// Reversed, the same change is an improvement.
	back, err := report.Diff(head, base, report.DefaultDiffOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range back.Rows {
		if r.Goal == "hide_contact" && r.Metric == "destroyed_data" && (r.Regression || r.Worse) {
			t.Error("ambiguous → clear counted as worse")
		}
	}
}

// Two runs of the same configuration with different seeds differ only by
// chance: the diff, corrected for its dozens of rates, stays quiet.
func TestDiffQuietOnReseededRun(t *testing.T) {
	for _, seeds := range [][2]uint64{{1, 2}, {42, 43}, {7, 1007}, {100, 200}} {
		base := reporttest.CRM(reporttest.Config{Seed: seeds[0], Agents: 2000})
		head := reporttest.CRM(reporttest.Config{Seed: seeds[1], Agents: 2000})
		d, err := report.Diff(base, head, report.DefaultDiffOptions())
		if err != nil {
			t.Fatal(err)
		}
		if d.Paired {
			t.Errorf("seeds %v: different seeds compared as paired", seeds)
		}
		if d.Regressions != 0 {
			for _, r := range d.Rows {
				if r.Regression {
					t.Errorf("seeds %v: %s flagged (%v → %v, p=%v)", seeds, r.Label(), r.Base.P, r.Head.P, r.PAdjusted)
				}
			}
		}
		if len(d.Rows) < 40 {
			t.Errorf("seeds %v: only %d rows compared", seeds, len(d.Rows))
		}
	}
}

func TestDiffMinEffect(t *testing.T) {
	base := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Variants: []string{"clear"}})
	head := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Variants: []string{"ambiguous"}})
	d, err := report.Diff(base, head, report.DiffOptions{MinEffect: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if d.Regressions != 0 {
		t.Errorf("with a 50-point minimum effect, %d regressions; want none", d.Regressions)
	}
}

func TestDiffRefusesUnrelatedVariants(t *testing.T) {
	base := reporttest.CRM(reporttest.Config{Seed: 1, Agents: 400, Variants: []string{"clear", "ambiguous"}})
	head := reporttest.CRM(reporttest.Config{Seed: 1, Agents: 400, Variants: []string{"terse", "verbose"}})
	_, err := report.Diff(base, head, report.DefaultDiffOptions())
	if err == nil || !strings.Contains(err.Error(), "none is in both") {
		t.Errorf("error %v; want one saying no variant is in both", err)
	}
}

// The paired test bounds the discordant agents from the counts; McNemar's
// p must be largest at the bound, or the bound is not conservative.
func TestPairedBoundIsConservative(t *testing.T) {
	for _, c := range [][3]int{{60, 380, 2000}, {10, 25, 300}, {500, 560, 1000}, {900, 950, 1000}, {3, 3, 400}} {
		k1, k2, n := c[0], c[1], c[2]
		d := k2 - k1
		mMax := min(k1+k2, 2*n-k1-k2)
		pMax := stats.McNemarExact((mMax-d)/2, (mMax+d)/2)
		for m := max(d, -d); m <= mMax; m += 2 {
			if p := stats.McNemarExact((m-d)/2, (m+d)/2); p > pMax+1e-12 {
				t.Errorf("k1=%d k2=%d n=%d: p=%v with %d discordant exceeds the bound's %v", k1, k2, n, p, m, pMax)
			}
		}
	}
}

// A minimum effect of zero is a choice ("any significant change"), not an
// unset option silently replaced by 2 points.
func TestDiffMinEffectZeroIsHonoured(t *testing.T) {
	base := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Variants: []string{"clear"}})
	head := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Variants: []string{"ambiguous"}})
	d, err := report.Diff(base, head, report.DiffOptions{MinEffect: 0})
	if err != nil {
		t.Fatal(err)
	}
	if d.MinEffect != 0 {
		t.Fatalf("min effect %v, want 0", d.MinEffect)
	}
	def, err := report.Diff(base, head, report.DefaultDiffOptions())
	if err != nil {
		t.Fatal(err)
	}
	if d.Regressions < def.Regressions {
		t.Fatalf("min effect 0 flags %d regressions, fewer than 2 points' %d", d.Regressions, def.Regressions)
	}
}

// Runs of different worlds or goals are refused unless AllowMismatch; a
// new version of the same world is what a diff is for.
func TestDiffRefusesMismatchedRuns(t *testing.T) {
	base := reporttest.CRM(reporttest.Config{Seed: 1, Agents: 400})
	for name, change := range map[string]func(r *report.Results){
		"worlds": func(r *report.Results) { r.Run.World.Name = "shop" },
		"goals":  func(r *report.Results) { r.Run.Goals = r.Run.Goals[:1] },
	} {
		head := reporttest.CRM(reporttest.Config{Seed: 1, Agents: 400})
		change(head)
		_, err := report.Diff(base, head, report.DefaultDiffOptions())
		var me *report.MismatchError
		if !errors.As(err, &me) || me.What != name {
			t.Errorf("different %s: error %v; want a MismatchError", name, err)
		}
		opts := report.DefaultDiffOptions()
		opts.AllowMismatch = true
		if _, err := report.Diff(base, head, opts); err != nil {
			t.Errorf("different %s with AllowMismatch: %v", name, err)
		}
	}
	head := reporttest.CRM(reporttest.Config{Seed: 1, Agents: 400})
	head.Run.World.Version++
	head.Run.World.Hash = "another"
	if _, err := report.Diff(base, head, report.DefaultDiffOptions()); err != nil {
		t.Errorf("a new version of the world: %v", err)
	}
}
