package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
)

var updateExplain = flag.Bool("update-explain", false, "rewrite the golden files in testdata/explain/")

// herd explain on one goal of each shipped world: the full reading of one
// persona and every persona side by side. The goldens are what a user sees;
// a change to the reader model that moves them is reviewed as a diff.
func TestExplainGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"crm-hide_contact-ambiguous-careful", []string{"explain", "mock:crm", "--goal", "hide_contact", "--variant", "ambiguous", "--persona", "careful"}},
		{"crm-hide_contact-all", []string{"explain", "mock:crm", "--goal", "hide_contact"}},
		{"payments-refund_charge-novice", []string{"explain", "mock:payments", "--goal", "refund_charge", "--persona", "novice"}},
		{"shop-cancel_not_return-careful", []string{"explain", "mock:shop", "--goal", "cancel_not_return", "--persona", "careful"}},
		{"email-reply_in_thread-hasty", []string{"explain", "mock:email", "--goal", "reply_in_thread", "--persona", "hasty"}},
		{"files-remove_file-literal", []string{"explain", "mock:files", "--goal", "remove_file", "--persona", "literal"}},
		// A world of its own, for the action lines a goal's constraints
		// give ("keep it on file", "for good").
		{"permits-take_away-careful", []string{"explain", filepath.Join("testdata", "explain", "permits.yaml"), "--goal", "take_away", "--persona", "careful"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runHerd(t, c.args...)
			if code != 0 {
				t.Fatalf("herd %s: exit %d\n%s", strings.Join(c.args, " "), code, errOut)
			}
			path := filepath.Join("testdata", "explain", c.name+".txt")
			if *updateExplain {
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/herd -run TestExplainGolden -update-explain)", err)
			}
			if out != string(want) {
				t.Errorf("herd %s differs from %s (rerun with -update-explain and review the diff):\n%s", strings.Join(c.args, " "), path, out)
			}
		})
	}
}

// The JSON form holds the same reading, and the persona's probabilities
// add up to one.
func TestExplainJSON(t *testing.T) {
	code, out, errOut := runHerd(t, "explain", "mock:crm", "--goal", "hide_contact", "--persona", "careful", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var exps []personas.Explanation
	if err := json.Unmarshal([]byte(out), &exps); err != nil {
		t.Fatal(err)
	}
	if len(exps) != 1 || exps[0].Persona != "careful" || exps[0].Meant != "archive_contact" || len(exps[0].Actions) == 0 {
		t.Fatalf("unexpected explanation: %+v", exps)
	}
	sum := 0.0
	for _, tool := range exps[0].Actions[0].Tools {
		sum += tool.Parts.P
	}
	if sum < 0.99 || sum > 1.01 {
		t.Fatalf("first-choice probabilities add up to %v", sum)
	}
}

// Bad input says what is wrong and which flag, with exit 2.
func TestExplainBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "mock:crm"}, "--goal: which goal"},
		{[]string{"explain", "mock:crm", "--goal", "hide_contakt"}, `--goal: world crm has no goal "hide_contakt"`},
		{[]string{"explain", "mock:crm", "--goal", "hide_contact", "--variant", "clearr"}, `--variant: world crm has no variant "clearr"`},
		{[]string{"explain", "mock:crm", "--goal", "hide_contact", "--persona", "carefull"}, `--persona: no persona "carefull"`},
		{[]string{"explain", "mock:nope", "--goal", "x"}, "nope"},
	} {
		code, _, errOut := runHerd(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("herd %s: exit %d, %q; want exit 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// herd replay --explain shows, after the trace, the explanation of the
// agent's first choice, and its probabilities are the ones the trace's
// first act step was sampled from.
func TestReplayExplainsTheFirstChoice(t *testing.T) {
	code, out, errOut := runHerd(t, "replay", "mock:crm", "--seed", "42", "--agents", "200", "--agent", "3", "--variant", "ambiguous", "--explain", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var got []struct {
		Trace       report.Trace         `json:"trace"`
		Explanation personas.Explanation `json:"explanation"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Explanation.Persona != got[0].Trace.Persona || got[0].Explanation.Goal != got[0].Trace.Goal {
		t.Fatalf("the explanation is not of the replayed agent: %+v", got)
	}
	p := map[string]float64{}
	for _, tool := range got[0].Explanation.Actions[0].Tools {
		p[tool.Tool] = tool.Parts.P
	}
	for _, st := range got[0].Trace.Steps {
		if st.Kind != "act" || len(st.Scores) == 0 {
			continue
		}
		for _, sc := range st.Scores {
			if d := sc.P - p[sc.Tool]; d > 1e-3 || d < -1e-3 {
				t.Fatalf("trace scores %s at p=%v, the explanation at %v", sc.Tool, sc.P, p[sc.Tool])
			}
		}
		break
	}
	code, text, _ := runHerd(t, "replay", "mock:crm", "--seed", "42", "--agents", "200", "--agent", "3", "--explain")
	if code != 0 || !strings.Contains(text, "persona "+got[0].Trace.Persona+" reads:") || !strings.Contains(text, "verb:") {
		t.Fatalf("replay --explain printed no explanation:\n%s", text)
	}
}

// A descriptions file's variant typo is refused by explain as by swarm:
// otherwise explain would show the world's own texts and say nothing.
func TestExplainRefusesDescriptionsOfAnUnknownVariant(t *testing.T) {
	file := filepath.Join(t.TempDir(), "descriptions.yaml")
	if err := os.WriteFile(file, []byte("archive_contact:\n  ambigous: Hide a contact from lists; its history is kept.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runHerd(t, "explain", "mock:crm", "--goal", "hide_contact", "--variant", "ambiguous", "--descriptions", file)
	if want := `variant "ambigous" is not one of world crm`; code != exitUsage || !strings.Contains(errOut, want) || !strings.Contains(errOut, "--descriptions") {
		t.Errorf("exit %d, stderr %q; want 2 naming --descriptions and %q", code, errOut, want)
	}
	code, out, errOut := runHerd(t, "explain", "mock:crm", "--goal", "hide_contact", "--variant", "ambigous", "--descriptions", file, "--persona", "careful")
	if code != exitOK || !strings.Contains(out, "its history is kept") {
		t.Errorf("the new variant asked for by name: exit %d, %s%s", code, errOut, out)
	}
}

// When every tool opens with the same sentence that reads as what a tool
// does, a novice reads only that; explain names it instead of claiming the
// novice saw nothing at all.
func TestExplainNamesTheSharedOpeningANoviceStoppedAt(t *testing.T) {
	code, texts, errOut := runHerd(t, "descriptions", "mock:crm")
	if code != exitOK {
		t.Fatalf("descriptions: exit %d, %s", code, errOut)
	}
	const open = "Manages contacts, deals and notes for the sales team through the Acme CRM API. "
	prefixed := strings.ReplaceAll(texts, `  clear: "`, `  clear: "`+open)
	file := filepath.Join(t.TempDir(), "descriptions.yaml")
	if err := os.WriteFile(file, []byte(prefixed), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runHerd(t, "explain", "mock:crm", "--goal", "hide_contact", "--descriptions", file, "--persona", "novice")
	if code != exitOK || !strings.Contains(out, "sees: Manages contacts, deals") || !strings.Contains(out, "— the opening every tool shares, so it goes by the name") {
		t.Errorf("exit %d, %s; want the shared opening named in:\n%s", code, errOut, out)
	}
	code, out, _ = runHerd(t, "explain", "mock:crm", "--goal", "hide_contact", "--descriptions", file, "--persona", "careful")
	if code != exitOK || strings.Contains(out, "the opening every tool shares") {
		t.Errorf("a careful reader reads past the opening: exit %d\n%s", code, out)
	}
}
