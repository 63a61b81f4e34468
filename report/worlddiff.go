package report

import (
	"fmt"
	"strings"
)

// DiffEntry is one record a sampled episode created, changed or deleted
// outside its goal's target: the world diff of a trace, which shows the
// collateral damage an outcome class may not name.
type DiffEntry struct {
	Type   string   `json:"type"`
	ID     string   `json:"id"`
	Change string   `json:"change"`           // created, updated or deleted
	Fields []string `json:"fields,omitempty"` // updated: the fields that differ
}

// MaxWorldDiff bounds the entries of one trace's world diff.
const MaxWorldDiff = 32

// maxDiffFields bounds the fields of one diff entry.
const maxDiffFields = 256

var diffChanges = map[string]bool{"created": true, "updated": true, "deleted": true}

// validateWorldDiffs bounds every trace's world diff.
func (r *Results) validateWorldDiffs() error {
	for i, tr := range r.Traces {
		if len(tr.WorldDiff) > MaxWorldDiff {
			return fmt.Errorf("traces[%d].world_diff has %d entries, at most %d", i, len(tr.WorldDiff), MaxWorldDiff)
		}
		for j, d := range tr.WorldDiff {
			switch {
			case !diffChanges[d.Change]:
				return fmt.Errorf("traces[%d].world_diff[%d].change is %q, want created, updated or deleted", i, j, d.Change)
			case d.Type == "" || d.ID == "":
				return fmt.Errorf("traces[%d].world_diff[%d] needs a type and an id", i, j)
			case len(d.Fields) > maxDiffFields:
				return fmt.Errorf("traces[%d].world_diff[%d].fields has %d entries, at most %d", i, j, len(d.Fields), maxDiffFields)
			}
		}
	}
	return nil
}

// DiffText is a trace's world diff in one line, for every renderer:
// "1 created (audit a_0241); 1 updated (contact c_0007: company)", at
// most three records named per change; "" when the episode touched
// nothing outside its target.
func (tr Trace) DiffText() string {
	if len(tr.WorldDiff) == 0 {
		return ""
	}
	var parts []string
	for _, change := range []string{"created", "updated", "deleted"} {
		var names []string
		n := 0
		for _, d := range tr.WorldDiff {
			if d.Change != change {
				continue
			}
			n++
			if len(names) == 3 {
				continue
			}
			name := d.Type + " " + d.ID
			if len(d.Fields) > 0 {
				name += ": " + strings.Join(d.Fields, ", ")
			}
			names = append(names, name)
		}
		if n == 0 {
			continue
		}
		more := ""
		if n > len(names) {
			more = fmt.Sprintf(", and %d more", n-len(names))
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s%s)", n, change, strings.Join(names, "; "), more))
	}
	return strings.Join(parts, "; ")
}

// sampledDiffNote is the world diff of the first sampled trace of a goal ×
// variant × class that touched anything outside its target, as a note to
// append ("" when none did).
func sampledDiffNote(res *Results, goal, variant, class string) string {
	for _, tr := range res.Traces {
		if tr.Goal == goal && tr.Variant == variant && tr.Class == class {
			if d := tr.DiffText(); d != "" {
				return fmt.Sprintf("; agent %d's world diff outside the target: %s", tr.Agent, d)
			}
		}
	}
	return ""
}
