package lint

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/worlds"
)

// findings returns the findings about tool on dim.
func findings(r Report, tool, dim string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Tool == tool && f.Dimension == dim {
			out = append(out, f)
		}
	}
	return out
}

// wantFinding fails unless r has a finding about tool on dim at level
// whose message contains msg, and returns it.
func wantFinding(t *testing.T, r Report, tool, dim, level, msg string) Finding {
	t.Helper()
	for _, f := range findings(r, tool, dim) {
		if f.Level == level && strings.Contains(f.Message, msg) {
			if f.Fix == "" {
				t.Errorf("%s %s: finding %q has no fix", tool, dim, f.Message)
			}
			if f.Variant != r.Variant {
				t.Errorf("%s %s: finding variant %q, want %q", tool, dim, f.Variant, r.Variant)
			}
			return f
		}
	}
	t.Fatalf("no %s %s finding containing %q on %s; findings: %+v", level, dim, msg, tool, findings(r, tool, dim))
	return Finding{}
}

// onlyOn fails if a finding at level on dim whose message contains msg is
// about any tool other than those listed: the defect is found where it
// was planted and nowhere else.
func onlyOn(t *testing.T, r Report, dim, level, msg string, tools ...string) {
	t.Helper()
	for _, f := range r.Findings {
		if f.Dimension != dim || f.Level != level || !strings.Contains(f.Message, msg) {
			continue
		}
		found := false
		for _, tool := range tools {
			found = found || f.Tool == tool
		}
		if !found {
			t.Errorf("unexpected %s %s finding on %s: %s", level, dim, f.Tool, f.Message)
		}
	}
}

func lintFile(t *testing.T, path string) Report {
	t.Helper()
	w, err := engine.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Lint(w, w.Variants[0], nil)
}

func crm(t *testing.T) *engine.World {
	t.Helper()
	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestFlagsPlaceholderDescription(t *testing.T) {
	r := lintFile(t, "testdata/defects.yaml")
	wantFinding(t, r, "list_orders", DimPurpose, LevelError, `description "TODO" is a placeholder`)
	onlyOn(t, r, DimPurpose, LevelError, "", "list_orders")
	if s, _ := r.Tool("list_orders"); s.Dimension(DimPurpose) != 0 {
		t.Errorf("list_orders purpose score = %v, want 0", s.Dimension(DimPurpose))
	}
}

func TestFlagsMissingDescription(t *testing.T) {
	// A world file cannot have an empty description; another server's
	// tool list can.
	tools := []Tool{
		{Name: "get_invoice", Description: "   ", Kind: "get", Record: "invoice", Annotations: &Annotations{ReadOnly: true}},
		{Name: "send_invoice", Description: "", Annotations: &Annotations{}},
	}
	r := LintTools(tools, Options{Variant: "clear"})
	wantFinding(t, r, "get_invoice", DimPurpose, LevelError, "has no description")
	f := wantFinding(t, r, "send_invoice", DimPurpose, LevelError, "has no description")
	if !strings.Contains(f.Fix, "what send does to an invoice") || !strings.Contains(f.Fix, "whether it can be undone") {
		t.Errorf("fix %q does not say what the description must say", f.Fix)
	}
	if r.Score > 50 {
		t.Errorf("score of undescribed tools = %v, want ≤ 50", r.Score)
	}
}

func TestFlagsTautology(t *testing.T) {
	r := lintFile(t, "testdata/defects.yaml")
	f := wantFinding(t, r, "get_order", DimPurpose, LevelWarning, `"Get on orders" only restates the name get_order`)
	if !strings.Contains(f.Fix, "Fetch one order by id: customer, total, status, note. Read-only.") {
		t.Errorf("fix %q does not propose a concrete sentence", f.Fix)
	}
	onlyOn(t, r, DimPurpose, LevelWarning, "only restates the name", "get_order")
	// The same words in another order, or with synonyms of the verb, are
	// no better.
	for _, d := range []string{"Get order.", "Fetch the order", "Retrieves a given order record."} {
		r := LintTools([]Tool{{Name: "get_order", Description: d, Kind: "get", Annotations: &Annotations{ReadOnly: true}}}, Options{})
		wantFinding(t, r, "get_order", DimPurpose, LevelWarning, "only restates the name")
	}
	// One more fact is enough.
	r = LintTools([]Tool{{Name: "get_order", Description: "Fetch an order with its line items.", Kind: "get", Annotations: &Annotations{ReadOnly: true}}}, Options{})
	if fs := findings(r, "get_order", DimPurpose); len(fs) != 0 {
		t.Errorf("a description with content is flagged: %+v", fs)
	}
}

func TestFlagsUndocumentedParams(t *testing.T) {
	r := lintFile(t, "testdata/defects.yaml")
	f := wantFinding(t, r, "update_order", DimParams, LevelWarning, "params status and note have no description")
	if !strings.Contains(f.Fix, "status: One of open, shipped, cancelled.") {
		t.Errorf("fix %q does not describe the enum param", f.Fix)
	}
	onlyOn(t, r, DimParams, LevelWarning, "no description", "update_order")
	if s, _ := r.Tool("update_order"); s.Dimension(DimParams) > 40 {
		t.Errorf("update_order params score = %v, want ≤ 40 (2 of 3 params undocumented)", s.Dimension(DimParams))
	}
}

func TestFlagsUnmarkedDestructiveTool(t *testing.T) {
	r := lintFile(t, "testdata/defects.yaml")
	wantFinding(t, r, "purge_order", DimAnnotations, LevelError, "not marked destructive")
	onlyOn(t, r, DimAnnotations, LevelError, "", "purge_order")
	// A kind: delete tool explicitly marked not destructive is flagged too.
	r = LintTools([]Tool{{Name: "drop_ticket", Kind: "delete", Description: "Permanently delete a ticket. This cannot be undone.", Annotations: &Annotations{}}}, Options{})
	wantFinding(t, r, "drop_ticket", DimAnnotations, LevelError, "it deletes records, but it is not marked destructive")
}

func TestFlagsIdenticalSiblings(t *testing.T) {
	r := lintFile(t, "testdata/defects.yaml")
	wantFinding(t, r, "cancel_order", DimDisambiguation, LevelError, "has the same description as void_order")
	wantFinding(t, r, "void_order", DimDisambiguation, LevelError, "has the same description as cancel_order")
	onlyOn(t, r, DimDisambiguation, LevelError, "same description", "cancel_order", "void_order")
}

func TestFlagsNearIdenticalDescriptions(t *testing.T) {
	tools := []Tool{
		{Name: "archive_note", Description: "Archive a note: it disappears from the default list and search results but stays in storage with its full edit history.", Annotations: &Annotations{Idempotent: true}},
		{Name: "hide_note", Description: "Hide a note: it disappears from the default list and search results but stays in storage with its full edit history.", Annotations: &Annotations{Idempotent: true}},
		{Name: "get_note", Description: "Fetch one note by id, with its text. Read-only.", Annotations: &Annotations{ReadOnly: true}},
	}
	r := LintTools(tools, Options{})
	wantFinding(t, r, "archive_note", DimDisambiguation, LevelWarning, "nearly the same as hide_note's")
	wantFinding(t, r, "hide_note", DimDisambiguation, LevelWarning, "nearly the same as archive_note's")
	if fs := findings(r, "get_note", DimDisambiguation); len(fs) != 0 {
		t.Errorf("get_note flagged: %+v", fs)
	}
}

func TestCleanWorldPasses(t *testing.T) {
	r := lintFile(t, "testdata/clean.yaml")
	if r.Counts.Errors != 0 || r.Counts.Warnings != 0 {
		t.Errorf("clean world: %v: %+v", r.Counts, r.Findings)
	}
	if r.Score < 90 {
		t.Errorf("clean world score = %v, want ≥ 90", r.Score)
	}
	for _, ts := range r.Tools {
		if ts.Score < 85 {
			t.Errorf("clean world tool %s scores %v", ts.Tool, ts.Score)
		}
	}
	if len(r.Notes) != 0 {
		t.Errorf("notes: %v", r.Notes)
	}
}

func TestSideEffects(t *testing.T) {
	tools := []Tool{
		{Name: "delete_file", Kind: "delete", Description: "Delete a file from the store.", Annotations: &Annotations{Destructive: true}},
		{Name: "trash_file", Description: "Move a file to the trash; restore it within 30 days.", Annotations: &Annotations{Destructive: true}},
		{Name: "rename_file", Description: "Rename a file.", Annotations: &Annotations{}},
		{Name: "list_files", Kind: "list", Description: "List the files in a folder.", Annotations: &Annotations{ReadOnly: true}},
	}
	r := LintTools(tools, Options{})
	wantFinding(t, r, "delete_file", DimSideEffects, LevelError, "erases data but does not say whether it can be undone")
	if fs := findings(r, "trash_file", DimSideEffects); len(fs) != 0 {
		t.Errorf("a reversible destructive tool is flagged: %+v", fs)
	}
	wantFinding(t, r, "rename_file", DimSideEffects, LevelWarning, "does not say what it changes")
	wantFinding(t, r, "list_files", DimSideEffects, LevelInfo, "does not say it changes nothing")
}

func TestParamUnitsAndFormats(t *testing.T) {
	tool := Tool{Name: "refund_charge", Description: "Refund part of a charge; the refund is recorded on the charge and cannot be undone.",
		Annotations: &Annotations{Destructive: true},
		Params: []Param{
			{Name: "charge_id", Type: "str", Required: true, Description: "The charge."},
			{Name: "amount", Type: "int", Description: "How much to refund."},
			{Name: "timeout", Type: "int", Description: "How long to wait."},
			{Name: "timeout_ms", Type: "int", Description: "How long to wait."},
			{Name: "refund_date", Type: "str", Description: "When the refund happens."},
			{Name: "customer_email", Type: "str", Description: "Who to notify."},
		}}
	r := LintTools([]Tool{tool}, Options{})
	wantFinding(t, r, "refund_charge", DimParams, LevelWarning, "param amount does not say the unit (cents or whole units?)")
	wantFinding(t, r, "refund_charge", DimParams, LevelWarning, "param timeout does not say the unit (seconds or milliseconds?)")
	wantFinding(t, r, "refund_charge", DimParams, LevelWarning, "param refund_date does not say the date format")
	wantFinding(t, r, "refund_charge", DimParams, LevelInfo, "param charge_id does not say what an id looks like")
	wantFinding(t, r, "refund_charge", DimParams, LevelInfo, "param customer_email does not say it is an email address")
	for _, f := range findings(r, "refund_charge", DimParams) {
		if strings.Contains(f.Message, "timeout_ms") {
			t.Errorf("timeout_ms has its unit in its name but is flagged: %s", f.Message)
		}
	}
	tool.Params = []Param{
		{Name: "charge_id", Type: "str", Required: true, Description: "Charge id, e.g. ch_0042."},
		{Name: "amount", Type: "int", Description: "Amount in cents."},
		{Name: "timeout", Type: "int", Description: "Seconds to wait."},
		{Name: "refund_date", Type: "str", Description: "RFC 3339 date."},
		{Name: "customer_email", Type: "str", Description: "Email address to notify."},
	}
	r = LintTools([]Tool{tool}, Options{})
	if fs := findings(r, "refund_charge", DimParams); len(fs) != 0 {
		t.Errorf("well-described params flagged: %+v", fs)
	}
}

func TestLength(t *testing.T) {
	long := strings.Repeat("Archive a note: it is hidden from lists but kept with its history. ", 12)
	tools := []Tool{
		{Name: "archive_note", Description: long, Annotations: &Annotations{Idempotent: true}},
		{Name: "pin_note", Description: "Pin a note.", Annotations: &Annotations{}},
	}
	r := LintTools(tools, Options{})
	wantFinding(t, r, "archive_note", DimLength, LevelWarning, "agents skim or skip text this long")
	wantFinding(t, r, "pin_note", DimLength, LevelWarning, "is 11 characters: too short")
}

func TestAnnotationHonesty(t *testing.T) {
	tools := []Tool{
		{Name: "get_note", Kind: "get", Description: "Fetch one note by id. Read-only.", Annotations: &Annotations{}},
		{Name: "update_note", Kind: "update", Description: "Change a note's text; other fields stay as they are.", Annotations: &Annotations{ReadOnly: true}},
		{Name: "create_note", Kind: "create", Description: "Create a new note and return it with its id.", Annotations: &Annotations{Idempotent: true}},
		{Name: "send_note", Description: "Send a note to its owner by email; each call sends one email."},
		{Name: "list_notes", Kind: "list", Description: "List notes by owner. Read-only."},
	}
	r := LintTools(tools, Options{})
	wantFinding(t, r, "get_note", DimAnnotations, LevelWarning, "only reads but is not marked read-only")
	wantFinding(t, r, "update_note", DimAnnotations, LevelError, "changes data but is marked read-only")
	wantFinding(t, r, "create_note", DimAnnotations, LevelInfo, "is marked idempotent but has no idempotency key")
	wantFinding(t, r, "send_note", DimAnnotations, LevelWarning, "has no annotations: agents cannot tell a safe call from a dangerous one")
	wantFinding(t, r, "list_notes", DimAnnotations, LevelInfo, "has no annotations")
}

func TestSiblingGuidance(t *testing.T) {
	w := crm(t)
	r := Lint(w, "ambiguous", nil)
	f := wantFinding(t, r, "delete_contact", DimUsage, LevelWarning, "look-alike siblings (archive_contact)")
	if f.Fix != "Add: 'To hide a contact, use archive_contact.'" {
		t.Errorf("fix = %q", f.Fix)
	}
	if fs := findings(Lint(w, "clear", nil), "delete_contact", DimUsage); len(fs) != 0 {
		t.Errorf("clear delete_contact names archive_contact but is flagged: %+v", fs)
	}
}

func TestCRMAmbiguousScoresLowerThanClear(t *testing.T) {
	w := crm(t)
	clear, ambiguous := Lint(w, "clear", nil), Lint(w, "ambiguous", nil)
	if !(ambiguous.Score < clear.Score) {
		t.Errorf("overall: ambiguous %v, clear %v", ambiguous.Score, clear.Score)
	}
	dc, _ := clear.Tool("delete_contact")
	da, _ := ambiguous.Tool("delete_contact")
	if !(da.Score < dc.Score) {
		t.Errorf("delete_contact: ambiguous %v, clear %v", da.Score, dc.Score)
	}
	if clear.Counts.Errors != 0 {
		t.Errorf("clear has errors: %+v", clear.Findings)
	}
	f := wantFinding(t, ambiguous, "delete_contact", DimSideEffects, LevelError, "does not say whether it can be undone")
	if f.Fix != "Add: 'This cannot be undone. To hide a contact, use archive_contact.'" {
		t.Errorf("fix = %q", f.Fix)
	}
	// The reader model: a novice asked to hide a contact picks
	// delete_contact about as often as archive_contact ("Remove a contact
	// from the list" only sounds like hiding; "Archive" is hiding, so
	// archive_contact still leads a little).
	wantFinding(t, ambiguous, "delete_contact", DimDisambiguation, LevelWarning, `agents asked to "Hide … from the active contact list, but keep their history"`)
	wantFinding(t, ambiguous, "archive_contact", DimDisambiguation, LevelWarning, "pick delete_contact")
	if fs := findings(clear, "delete_contact", DimDisambiguation); len(fs) != 0 {
		t.Errorf("clear delete_contact disambiguation: %+v", fs)
	}
}

func TestCRMBetterDescriptionsScoreHigher(t *testing.T) {
	w := crm(t)
	descs, err := LoadDescriptions("testdata/crm-better.yaml", w)
	if err != nil {
		t.Fatal(err)
	}
	ambiguous := Lint(w, "ambiguous", nil)
	better := Lint(w, "ambiguous", descs["ambiguous"])
	if !(better.Score > ambiguous.Score) {
		t.Errorf("overall: better %v, ambiguous %v", better.Score, ambiguous.Score)
	}
	for _, tool := range []string{"delete_contact", "archive_contact"} {
		b, _ := better.Tool(tool)
		a, _ := ambiguous.Tool(tool)
		if !(b.Score > a.Score) {
			t.Errorf("%s: better %v, ambiguous %v", tool, b.Score, a.Score)
		}
	}
	if better.Counts.Errors != 0 {
		t.Errorf("better texts still have errors: %+v", better.Findings)
	}
	if len(better.Overridden) != len(w.Tools) {
		t.Errorf("overridden = %v, want every tool", better.Overridden)
	}
}

func TestDeterministicJSON(t *testing.T) {
	w := crm(t)
	descs, err := LoadDescriptions("testdata/crm-better.yaml", w)
	if err != nil {
		t.Fatal(err)
	}
	render := func() []byte {
		d := &Document{World: w.Name}
		for _, v := range w.Variants {
			d.Reports = append(d.Reports, Lint(w, v, nil), Lint(w, v, descs[v]))
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, d); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := render(), render()
	if !bytes.Equal(a, b) {
		t.Fatal("two lints of the same world give different JSON")
	}
	if !bytes.Contains(a, []byte(`"dimension": "disambiguation"`)) {
		t.Fatal("JSON lacks the dimension scores")
	}
}

func TestMeasureConfusions(t *testing.T) {
	w := crm(t)
	novice := personas.Builtin().Get("novice")
	cs, err := MeasureConfusions(w, "ambiguous", nil, novice)
	if err != nil {
		t.Fatal(err)
	}
	var hide *Confusion
	for i := range cs {
		if cs[i].Goal == "hide_contact" {
			hide = &cs[i]
		}
	}
	if hide == nil || hide.Tool != "delete_contact" || hide.Meant != "archive_contact" || !hide.Destroys {
		t.Fatalf("hide_contact confusion = %+v (all: %+v)", hide, cs)
	}
	if hide.PTool < hide.PMeant-confusionMargin {
		t.Errorf("confusion outside the margin: %+v", hide)
	}
	cs, err = MeasureConfusions(w, "clear", nil, novice)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Goal == "hide_contact" {
			t.Errorf("clear wording still confuses: %+v", c)
		}
	}
	// A new variant (not in the world) reads the default variant with the
	// overrides in place: every tool given its ambiguous text confuses
	// exactly as the ambiguous variant does.
	if _, err := MeasureConfusions(w, "better", map[string]string{"delete_contact": "Permanently delete a contact."}, novice); err != nil {
		t.Errorf("new variant: %v", err)
	}
	asAmbiguous := map[string]string{}
	for _, tool := range w.Tools {
		asAmbiguous[tool.Name] = tool.Description("ambiguous")
	}
	want, err := MeasureConfusions(w, "ambiguous", nil, novice)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MeasureConfusions(w, "better", asAmbiguous, novice)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a new variant with the ambiguous texts:\n got %+v\nwant %+v", got, want)
	}
}

func TestReaderPersonaReadsDescriptions(t *testing.T) {
	p := readerPersona(personas.Builtin().Personas)
	if p == nil {
		t.Fatal("no built-in persona reads descriptions")
	}
	if !p.Traits.ReadsDescriptions() {
		t.Errorf("%s reads only names (attention %v)", p.Name, p.Traits.Attention)
	}
	for _, q := range personas.Builtin().Personas {
		if q.Traits.ReadsDescriptions() && q.Traits.Attention < p.Traits.Attention {
			t.Errorf("%s (attention %v) reads descriptions and is less attentive than %s", q.Name, q.Traits.Attention, p.Name)
		}
	}
}

func TestToResults(t *testing.T) {
	r := lintFile(t, "testdata/defects.yaml")
	got := r.ToResults()
	if len(got) != len(r.Findings) || len(got) == 0 {
		t.Fatalf("%d results for %d findings", len(got), len(r.Findings))
	}
	for i, f := range r.Findings {
		g := got[i]
		if g.Tool != f.Tool || g.Variant != f.Variant || g.Dimension != f.Dimension || g.Level != f.Level || g.Message != f.Message || g.Fix != f.Fix {
			t.Errorf("result %d = %+v, want %+v", i, g, f)
		}
	}
}

func TestNewVariantFromDescriptions(t *testing.T) {
	w := defectsWorld(t)
	descs, err := LoadDescriptions("testdata/descriptions/good.yaml", w)
	if err != nil {
		t.Fatal(err)
	}
	r := Lint(w, "better", descs["better"])
	if r.Variant != "better" {
		t.Fatalf("variant = %q", r.Variant)
	}
	// get_order's tautology is fixed by the file; list_orders' TODO too.
	if fs := findings(r, "get_order", DimPurpose); len(fs) != 0 {
		t.Errorf("get_order purpose: %+v", fs)
	}
	if fs := findings(r, "list_orders", DimPurpose); len(fs) != 0 {
		t.Errorf("list_orders purpose: %+v", fs)
	}
	// Tools the file leaves out keep the world's default text.
	wantFinding(t, r, "purge_order", DimAnnotations, LevelError, "not marked destructive")
}

// Without a reader, or in a world without goals, there are no confusions
// to measure: disambiguation is judged from the texts alone, the report
// says so, and every other dimension is scored as with a reader.
func TestDisambiguationFromTextsAlone(t *testing.T) {
	w := crm(t)
	withReader := Lint(w, "ambiguous", nil)
	r := LintWith(w, "ambiguous", nil, nil)
	if len(r.Confusions) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "no persona reads descriptions") {
		t.Fatalf("without a reader: confusions %+v, notes %q", r.Confusions, r.Notes)
	}
	if fs := findings(r, "delete_contact", DimDisambiguation); len(fs) != 0 {
		t.Errorf("without a reader, delete_contact still has confusion findings: %+v", fs)
	}
	for _, tool := range []string{"delete_contact", "archive_contact"} {
		a, _ := withReader.Tool(tool)
		b, _ := r.Tool(tool)
		if !(b.Dimension(DimDisambiguation) > a.Dimension(DimDisambiguation)) {
			t.Errorf("%s disambiguation without a reader %v, with %v: the confusion should cost", tool, b.Dimension(DimDisambiguation), a.Dimension(DimDisambiguation))
		}
		if b.Dimension(DimSideEffects) != a.Dimension(DimSideEffects) {
			t.Errorf("%s side effects without a reader %v, with %v", tool, b.Dimension(DimSideEffects), a.Dimension(DimSideEffects))
		}
	}

	src, err := os.ReadFile("testdata/defects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(src, []byte("\ngoals:"))
	if cut < 0 {
		t.Fatal("testdata/defects.yaml has no goals to cut")
	}
	noGoals, err := engine.Parse("no-goals.yaml", src[:cut+1])
	if err != nil {
		t.Fatalf("defects.yaml without its goals: %v", err)
	}
	r = Lint(noGoals, noGoals.Variants[0], nil)
	if len(r.Confusions) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "the world has no goals") {
		t.Fatalf("a world without goals: confusions %+v, notes %q", r.Confusions, r.Notes)
	}
	// The text checks still run: identical siblings are still an error.
	wantFinding(t, r, "cancel_order", DimDisambiguation, LevelError, "has the same description as void_order")
}
