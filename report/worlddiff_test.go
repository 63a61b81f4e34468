package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestDiffTextAndValidation(t *testing.T) {
	tr := Trace{WorldDiff: []DiffEntry{
		{Type: "audit", ID: "a_1", Change: "created"},
		{Type: "contact", ID: "c_7", Change: "updated", Fields: []string{"company", "version"}},
		{Type: "audit", ID: "a_2", Change: "created"},
		{Type: "audit", ID: "a_3", Change: "created"},
		{Type: "audit", ID: "a_4", Change: "created"},
	}}
	want := "4 created (audit a_1; audit a_2; audit a_3, and 1 more); 1 updated (contact c_7: company, version)"
	if got := tr.DiffText(); got != want {
		t.Errorf("DiffText = %q, want %q", got, want)
	}
	if (Trace{}).DiffText() != "" {
		t.Error("an empty diff has text")
	}
	r := &Results{Traces: []Trace{{WorldDiff: []DiffEntry{{Type: "x", ID: "1", Change: "moved"}}}}}
	if err := r.validateWorldDiffs(); err == nil || !strings.Contains(err.Error(), "traces[0].world_diff[0].change") {
		t.Errorf("a bad change kind: %v", err)
	}
	r.Traces[0].WorldDiff = make([]DiffEntry, MaxWorldDiff+1)
	if err := r.validateWorldDiffs(); err == nil {
		t.Error("an oversized diff passed")
	}
}

// Every renderer that shows traces shows the diff, and JUnit notes it.
func TestWorldDiffInRenderers(t *testing.T) {
	tr := Trace{Agent: 3, Goal: "g", Persona: "p", Variant: "clear", Class: "acted", Severity: "harmful", Replay: "herd replay x",
		WorldDiff: []DiffEntry{{Type: "audit", ID: "a_9", Change: "created"}}}
	var buf bytes.Buffer
	tw := &termWriter{w: &buf}
	tw.traces(&Results{Traces: []Trace{tr}}, 5)
	if !strings.Contains(buf.String(), "world diff outside the target: 1 created (audit a_9)") {
		t.Errorf("terminal:\n%s", buf.String())
	}
	if md := mdTraceOf(tr, 10); md.Diff != "1 created (audit a_9)" {
		t.Errorf("markdown diff %q", md.Diff)
	}
	res := &Results{Traces: []Trace{tr}}
	if n := sampledDiffNote(res, "g", "clear", "acted"); !strings.Contains(n, "agent 3's world diff outside the target: 1 created (audit a_9)") {
		t.Errorf("junit note %q", n)
	}
}
