package personas

import (
	"github.com/herd-sh/herd/worlds"
	"slices"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
)

// An emoji-sectioned description puts an icon on every line: the icon on
// the title ("🛑 Cancel an order") is the tool's, not a warning, and a
// warning icon on one line does not reach the next line's own icon.
func TestIconTitlesAndIconLines(t *testing.T) {
	roles := func(desc string) string {
		var out []string
		for _, s := range readStructure(desc) {
			out = append(out, s.role.String()+":"+s.text)
		}
		return strings.Join(out, "|")
	}
	cases := []struct{ desc, want string }{
		{"🛑 Cancel an order\nCancels an order that has not shipped.\n♻️ The order is kept.",
			"title:Cancel an order|body:Cancels an order that has not shipped.|body:The order is kept."},
		{"🗑️ Delete an item\nPermanently deletes an item.\n⚠️ This cannot be undone.\n💡 To stop selling it, use discontinue_item.",
			"title:Delete an item|body:Permanently deletes an item.|warning:This cannot be undone.|body:To stop selling it, use discontinue_item."},
		// A first line that warns by its own words stays a warning.
		{"🚨 Deletes everything permanently\nUse with care.", "warning:Deletes everything permanently|warning:Use with care."},
		{"⚠️ WARNING: PERMANENT\nThe record is gone.", "warning:PERMANENT|warning:The record is gone."},
		// A pros-cons text's labels: what it is for, what not, and what
		// to be careful of, which is a warning.
		{"End a tenancy.\nUse for: a tenant who gives the plot up.\nNot for: passing a plot on (use transfer_tenancy).\nCareful: the tenant loses the plot.",
			"body:End a tenancy.|body:a tenant who gives the plot up.|avoid:passing a plot on (use transfer_tenancy).|warning:the tenant loses the plot."},
	}
	for _, c := range cases {
		if got := roles(c.desc); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.desc, got, c.want)
		}
	}
}

// A careful reader weighs a warning of irreversible loss whenever the goal
// does not ask for destruction, said ("keep") or not; a goal that asks to
// delete accepts the loss it warns of.
func TestLossWarningsWeighUnlessTheGoalDestroys(t *testing.T) {
	tools := []rtool{
		{name: "update_item", kind: "custom", text: "Update an item."},
		{name: "purge_item", kind: "custom", text: "Permanently purge an item and all its versions. This cannot be undone.", destructive: true},
	}
	careful := Builtin().Get("careful")
	cuesOf := func(intent string) float64 {
		_, m, g := readerScores(t, intent, tools, "", careful)
		return partOf(m.Explain(careful, g), "purge_item").Cues
	}
	if c := cuesOf("Move the item to the archive shelf"); c >= -0.2 {
		t.Errorf("a goal that does not ask for destruction: purge's warnings weigh (cues %.3f)", c)
	}
	if c := cuesOf("Delete the item"); c != 0 {
		t.Errorf("a goal that asks to delete accepts the loss: cues %.3f, want 0", c)
	}
}

// A reader slips more where it saw less: under bare names a careful agent
// picks the destructive tool now and then, under a description that warns
// of the loss almost never, and it never slips where one tool clearly wins
// on well-described tools.
func TestLapseGrowsWithAmbiguityAndKeepsTheTextEffect(t *testing.T) {
	careful := Builtin().Get("careful")
	intent := "Point the item at the new shelf"
	terse := []rtool{
		{name: "update_item", kind: "custom", text: "Update an item."},
		{name: "delete_item", kind: "custom", text: "Delete an item.", destructive: true},
		{name: "create_item", kind: "custom", text: "Create an item."},
	}
	clear := []rtool{
		{name: "update_item", kind: "custom", text: "Update an item in place: change its shelf, where it points, or its name; everything else is kept as it was."},
		{name: "delete_item", kind: "custom", text: "Permanently delete an item and its whole history. This cannot be undone; to change where it points, use update_item.", destructive: true},
		{name: "create_item", kind: "custom", text: "Create a new item with a name and a shelf; it gets a new id and no history."},
	}
	st, _, _ := readerScores(t, intent, terse, "", careful)
	sc, _, _ := readerScores(t, intent, clear, "", careful)
	pt, pc := pOf(st, "delete_item"), pOf(sc, "delete_item")
	t.Logf("delete: bare %.4f, warned %.4f", pt, pc)
	if !(pt > 0.003 && pt > 3*pc) {
		t.Errorf("careful slips to delete under bare texts (%.4f) clearly more often than under a warning text (%.4f)", pt, pc)
	}
	if s := lapseShare([]float64{1, 0}, 1); s > 0.01 {
		t.Errorf("a clear win on informed tools leaves almost no lapse, got %.3f", s)
	}
	if s := lapseShare([]float64{0.5, 0.5}, 1); s != lapseRate {
		t.Errorf("a tie slips at the full rate %.2f, got %.3f", lapseRate, s)
	}
	if s := lapseShare([]float64{1, 0}, 0); s != lapseRate {
		t.Errorf("a reader that saw no text slips at the full rate %.2f, got %.3f", lapseRate, s)
	}
}

// A skimmer reads a title over the text and then to a word budget, not one
// sentence: facts an emoji layout spreads over short lines reach it, and a
// long first sentence is still all it reads.
// skim is what a first-sentence reader of desc reads, its segments joined.
func skim(desc string) string {
	tt := toolText{segs: readStructure(desc)}
	var out []string
	for _, i := range tt.skimmed(skimWords) {
		out = append(out, tt.segs[i].text)
	}
	return strings.Join(out, " ")
}

func TestSkimmerReadsToAWordBudget(t *testing.T) {
	if got := skim("🚫 Discontinue an item\nThe item can no longer be sold.\n♻️ Its stock history is kept.\n💡 Reversible."); got != "Discontinue an item The item can no longer be sold. Its stock history is kept." {
		t.Errorf("short lines: skimmed %q", got)
	}
	// A warning line with an icon of its own is the layout's next item: a
	// reader of first lines stops at it (and glances at its cues).
	if got := skim("🗑️ Delete a gift, as one entered twice.\n⚠️ It is removed from the donor's history."); got != "Delete a gift, as one entered twice." {
		t.Errorf("a warning line of its own: skimmed %q", got)
	}
	long := "Discontinue an item: it can no longer be sold or reordered, but its stock history is kept. Reversible."
	if got := skim(long); got != "Discontinue an item: it can no longer be sold or reordered, but its stock history is kept." {
		t.Errorf("a long first sentence is all a skimmer reads: %q", got)
	}
	if got := FirstSentence("The item can no longer be sold.\nIts history is kept."); got != "The item can no longer be sold." {
		t.Errorf("FirstSentence is still the sentence: %q", got)
	}
	// A tagged section is a section: a skimmer reads the <summary>, and
	// <when_not_to_use> is what not to use the tool for.
	tagged := readStructure("<summary>Delete an item.</summary>\n<when_not_to_use>To keep it: use archive_item.</when_not_to_use>")
	if len(tagged) != 2 || tagged[0].text != "Delete an item." || tagged[1].role != roleAvoid || !tagged[1].sectioned {
		t.Errorf("tagged sections read as %+v", tagged)
	}
	// A section header ends the summary: a skimmer does not read on into
	// a command's NOTES.
	if got := skim("Usage: wiki page delete PAGE_ID\n\nDelete a page.\n\nNOTES\n  The page and its history are purged."); got != "Delete a page." {
		t.Errorf("a section header ends the summary: skimmed %q", got)
	}
	// So does a markdown header of any name under the summary: "###
	// Effects" is a section, not more of the summary.
	if got := skim("**Delete a vehicle.**\n\n### Effects\n- Removes the vehicle from the fleet\n- **Cannot be undone**"); got != "Delete a vehicle." {
		t.Errorf("a header under the summary ends it: skimmed %q", got)
	}
	if got := skim("## Delete a vehicle\nRemoves the vehicle from the fleet."); got != "Delete a vehicle Removes the vehicle from the fleet." {
		t.Errorf("a title over the text is still read with it: skimmed %q", got)
	}
}

// The sentence every tool of a world opens with is skipped, not free: a
// skimmer spends part of its budget learning it is the same everywhere, so
// after it reads one informative sentence where it would have read two.
// It still reads that one: boilerplate must not hide what the tool does.
func TestBoilerplateCostsTheSkimmersBudget(t *testing.T) {
	text := "Delete a release's record. To go back to the previous version, use rollback_release."
	plain := toolText{segs: readStructure(text)}
	with := toolText{segs: readStructure("This endpoint is part of the Flagpole Management API v2 and requires an API access token. " + text)}
	with.segs[0].boiler = true // as model.go marks a sentence most tools share
	read := func(tt toolText) string {
		var out []string
		for _, i := range tt.skimmed(skimWords) {
			out = append(out, tt.segs[i].text)
		}
		return strings.Join(out, " ")
	}
	if got := read(plain); !strings.Contains(got, "rollback_release") {
		t.Errorf("without boilerplate a skimmer reads both short sentences: %q", got)
	}
	if got := read(with); got != "Delete a release's record." {
		t.Errorf("after boilerplate a skimmer reads the first informative sentence only: %q", got)
	}
}

// Placeholders joined by punctuation are one value to a reader: the dot of
// "{{host}}.{{zone}}" is no sentence break that would cut the goal's verb
// from its object.
func TestJoinedPlaceholdersAreOneValue(t *testing.T) {
	got := removePlaceholders("Take {{target.host}}.{{target.zone}} (record {{knows.id}}) offline")
	if strings.Contains(got, ".") {
		t.Errorf("removePlaceholders kept the joining dot: %q", got)
	}
	r := newRelater(nil)
	ins := parseIntent(got, r.isAction, r)
	if len(ins) != 1 || ins[0].verb == "record" {
		t.Errorf("the goal's verb is not the record it names: %+v", ins)
	}
}

// A phrasal verb's particle may follow its object: "bump the ticket up",
// "take a name offline" — in a goal and in a tool's text alike.
func TestSeparatedParticles(t *testing.T) {
	r := newRelater(nil)
	if ins := parseIntent("Bump ticket up to urgent priority", r.isAction, r); ins[0].verb != "bump up" {
		t.Errorf("bump … up: verb %q", ins[0].verb)
	}
	if ins := parseIntent("Take the www record offline for a week", r.isAction, r); ins[0].verb != "take offlin" {
		t.Errorf("take … offline: verb %q", ins[0].verb)
	}
	if ins := parseIntent("Delete the record and add a new one", r.isAction, r); ins[0].verb != key("delete") {
		t.Errorf("no particle, no phrase: verb %q", ins[0].verb)
	}
}

// A phrasal verb's particle says part of what it does: "take … offline"
// is disabling, "bump … up" raising, though no tool says the phrase.
func TestParticleSenses(t *testing.T) {
	tools := []rtool{
		{name: "update_item", kind: "custom", text: "Update an item."},
		{name: "disable_item", kind: "custom", text: "Disable an item."},
		{name: "raise_item", kind: "custom", text: "Raise an item's rank."},
	}
	prefers(t, "take offline is disabling", "Take item {{target.name}} offline for a week", tools, "", "careful", "disable_item", "update_item")
	prefers(t, "bump up is raising", "Bump item {{target.name}} up in rank", tools, "", "careful", "raise_item", "update_item")
}

// A phrasal verb written as one word is that phrase: "rollback_deploy"
// rolls back, and a goal that says "roll back" finds it.
func TestClosedCompoundsArePhrases(t *testing.T) {
	r := newRelater(nil)
	aug, first := r.augment(stems("rollback deploy"))
	if !slices.Contains(aug, "roll back") || !slices.Contains(first, "roll back") {
		t.Errorf("rollback: augment %q, first %q", aug, first)
	}
	tools := []rtool{
		{name: "redeploy_service", kind: "custom", text: "Deploy a service again."},
		{name: "rollback_service", kind: "custom", text: "Return a service to its previous release."},
	}
	literal := Builtin().Get("literal")
	sc, m, g := readerScores(t, "Roll back the service {{target.name}}", tools, "", literal)
	if c := m.Confidence(literal, g); c < 0.9 || pOf(sc, "rollback_service") <= pOf(sc, "redeploy_service") {
		t.Errorf("roll back = rollback, even word for word: confidence %.2f, %+v", c, sc)
	}
}

// A placeholder that opens a clause is the clause's subject: "{{name}}
// finds the plan too expensive" states a situation, and the request is the
// clause in the imperative.
func TestClauseSubjectIsNoRequest(t *testing.T) {
	if got := subjectPlaceholders("{{target.name}} finds it too dear: lower the {{knows.x}} price"); got != "they finds it too dear: lower the {{knows.x}} price" {
		t.Errorf("subjectPlaceholders: %q", got)
	}
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "search_items", kind: "list", text: "Search items by name. Read-only."},
		{name: "archive_item", kind: "custom", text: "Archive an item."},
	}
	_, m, g := readerScores(t, "{{target.name}} finds the item useless: archive it", tools, "", careful)
	if v := m.ExplainChoice(careful, g).Actions[0].Verb; v != stem("archive") {
		t.Errorf("the verb of a goal whose first clause is a statement: %q, want archive", v)
	}
}

// A stop said for a while is a pause: "stop charging them for now … pick
// it up again" finds pause_item, which neither the goal's words nor
// WordNet's senses of stop name; without "for now" it does not.
func TestStopForAWhileIsAPause(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "cancel_item", kind: "custom", text: "Cancel an item.", destructive: true},
		{name: "pause_item", kind: "custom", text: "Pause an item."},
	}
	sc, _, _ := readerScores(t, "Stop billing the item for now, so we can pick it up again when they are back", tools, "", careful)
	if p := pOf(sc, "pause_item"); p < 0.8 {
		t.Errorf("a stop for a while: pause_item %.3f, want most", p)
	}
	sc, _, _ = readerScores(t, "Stop billing the item", tools, "", careful)
	if pp, pc := pOf(sc, "pause_item"), pOf(sc, "cancel_item"); pp >= pc {
		t.Errorf("a stop not said for a while is not read as a pause: pause %.3f, cancel %.3f", pp, pc)
	}
}

// A goal that hands the reader a new value for one of the record's
// fields asks for an update, whatever its verb.
func TestNewFieldValueReadsAsUpdate(t *testing.T) {
	in := intent{verb: stem("downgrade")}
	in.readNewValue([]string{"name", "new_plan"}, func(f string) bool { return f == "plan" })
	if !slices.ContainsFunc(in.senses, func(s verbSense) bool { return s.key == key("update") }) {
		t.Errorf("new_plan for a record with a plan: senses %v, want update among them", in.senses)
	}
	in = intent{verb: stem("downgrade")}
	in.readNewValue([]string{"name", "new_colour"}, func(f string) bool { return f == "plan" })
	if len(in.senses) != 0 {
		t.Errorf("a new value for no field of the record: senses %v, want none", in.senses)
	}
}

// A slip skips the fine print but not a reason it saw against a tool: a
// careful agent under bare names slips to the destructive tool now and
// then, and under a shouted warning on that tool's first lines it
// (almost) never does, though the other tools are as bare as before.
func TestSlipHeedsWhatItSawAgainstATool(t *testing.T) {
	careful := Builtin().Get("careful")
	intent := "Set the item aside for now but keep its history"
	bare := []rtool{
		{name: "update_item", kind: "custom", text: "Update an item."},
		{name: "delete_item", kind: "custom", text: "Delete an item.", destructive: true},
		{name: "shelve_item", kind: "custom", text: "Shelve an item."},
		{name: "create_item", kind: "custom", text: "Create an item."},
	}
	shouted := slices.Clone(bare)
	shouted[1].text = "Delete an item. WARNING: ITS WHOLE HISTORY IS DESTROYED. THIS CANNOT BE UNDONE."
	sb, _, _ := readerScores(t, intent, bare, "", careful)
	ss, _, _ := readerScores(t, intent, shouted, "", careful)
	pb, ps := pOf(sb, "delete_item"), pOf(ss, "delete_item")
	t.Logf("delete: bare %.4f, shouted %.4f", pb, ps)
	if !(pb > 0.005 && ps < pb/4) {
		t.Errorf("a slip heeds a shouted warning: delete bare %.4f, shouted %.4f (want under a quarter)", pb, ps)
	}
}

// An error message answers the agent's own call and is read whole by any
// reader of text: what to do often comes after the refusal.
func TestFirstSentenceReaderReadsTheWholeErrorMessage(t *testing.T) {
	tools := []rtool{
		{name: "delete_item", kind: "custom", text: "Delete an item.", destructive: true},
		{name: "shelve_item", kind: "custom", text: "Shelve an item."},
	}
	_, m, _ := readerScores(t, "Set the item aside", tools, "", Builtin().Get("novice"))
	e := &engine.ToolError{Code: "has_history", Message: "item i_0001 has a long history kept for the auditors and cannot be deleted; set it aside with shelve_item instead"}
	for _, lv := range []attentionLevel{seeFirst, seeEverything} {
		if r := m.readMessage(0, e, lv); r.tool != 1 {
			t.Errorf("level %d: the message points to tool %d, want shelve_item (1)", lv, r.tool)
		}
	}
}

// "To change an item's colour, use update_item" on create_item says
// create_item is not how to change the colour: for a goal the purpose
// describes, it is a denial, and the tool loses whatever words it shares.
func TestRedirectWithAFittingPurposeDenies(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "create_item", kind: "custom", text: "Create a new item with a colour. To change an existing item's colour, use update_item."},
		{name: "update_item", kind: "custom", text: "Update an item."},
	}
	_, m, g := readerScores(t, "Recolour the item: change its colour to blue", tools, "", careful)
	if a := partOf(m.Explain(careful, g), "create_item").Action; a >= 0 {
		t.Errorf("create_item's redirect for changing a colour: action %.3f, want a denial (< 0)", a)
	}
	_, m, g = readerScores(t, "Make a new blue item", tools, "", careful)
	if a := partOf(m.Explain(careful, g), "create_item").Action; a <= 0 {
		t.Errorf("the same redirect does not deny creating: action %.3f, want > 0", a)
	}
}

// "resume_x picks up where it left off" describes another tool; it sends
// the reader nowhere.
func TestPhrasalPickUpIsNoRedirect(t *testing.T) {
	tools := []rtool{
		{name: "pause_item", kind: "custom", text: "Pause an item, so resume_item picks up where it left off."},
		{name: "resume_item", kind: "custom", text: "Resume an item."},
	}
	_, m, g := readerScores(t, "Pause the item", tools, "", Builtin().Get("careful"))
	for _, te := range m.ExplainChoice(Builtin().Get("careful"), g).Actions[0].Tools {
		if te.Tool == "pause_item" && len(te.Redirects) > 0 {
			t.Errorf("pause_item's 'resume_item picks up where it left off' read as a redirect: %+v", te.Redirects)
		}
	}
}

// "… and end it then": a word that opens a clause with an object is in a
// verb's place, and a goal that says when is not done by a tool that says
// it acts at once.
func TestEndItThenIsLaterNotNow(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "cancel_item", kind: "custom", text: "Cancel an item. It ends the item immediately."},
		{name: "schedule_item_end", kind: "custom", text: "Schedule an item to end when its term does."},
	}
	_, m, g := readerScores(t, "Let the item run until the end of its term, and end it then", tools, "", careful)
	ex := m.ExplainChoice(careful, g)
	if v := ex.Actions[0].Verb; v != stem("end") {
		t.Fatalf("verb %q, want end", v)
	}
	if c := partOf(m.Explain(careful, g), "cancel_item").Cues; c >= 0 {
		t.Errorf("a tool that acts at once for a goal that says later: cues %.3f, want a warning (< 0)", c)
	}
	// Ending now is not ending then: the match of the action itself falls,
	// for a reader of any caution.
	novice := Builtin().Get("novice")
	if a := partOf(m.Explain(novice, g), "cancel_item").Action; a > nowForLater+1e-9 {
		t.Errorf("a tool that acts at once for a goal that says later: action %.3f, want at most %.2f", a, nowForLater)
	}
	_, m, g = readerScores(t, "End the item", tools, "", careful)
	if c := partOf(m.Explain(careful, g), "cancel_item").Cues; c != 0 {
		t.Errorf("a goal that does not say when: cues %.3f, want 0", c)
	}
}

// A colon after a request explains it: "Tag the release: mark commit c_1
// as v2" is one action, tag; the explaining clause adds words.
func TestColonRestatesTheAction(t *testing.T) {
	r := newRelater(nil)
	ins := parseIntent("Tag the release: mark commit c_1 as version v2", r.isAction, r)
	if len(ins) != 1 || ins[0].verb != stem("tag") {
		t.Fatalf("actions %+v, want one, tag", ins)
	}
	if !slices.ContainsFunc(ins[0].words, func(w intentWord) bool { return w.stem == stem("version") }) {
		t.Errorf("words %+v, want the explaining clause's words among them", ins[0].words)
	}
	if ins := parseIntent("The build broke: revert commit c_1", r.isAction, r); len(ins) != 1 || ins[0].verb != stem("revert") {
		t.Errorf("a statement before the colon: actions %+v, want revert", ins)
	}
	if ins := parseIntent("Return the lamp and refund me", r.isAction, r); len(ins) != 2 {
		t.Errorf("two requests joined by and stay two actions: %+v", ins)
	}
}

// A slip takes a skimmed text at face value: a careful agent, who on a
// full reading distrusts a delete_ tool whose text says it shelves, now and
// then slips to it, and never to the same tool when its text is honest.
func TestSlipTakesAMisleadingTextAtFaceValue(t *testing.T) {
	careful := Builtin().Get("careful")
	intent := "Set the item aside for now but keep its history"
	honest := []rtool{
		{name: "delete_item", kind: "custom", text: "Permanently delete an item and its history.", destructive: true},
		{name: "shelve_item", kind: "custom", text: "Shelve an item: it is set aside and its history is kept."},
		{name: "update_item", kind: "custom", text: "Update an item's name."},
	}
	misleading := slices.Clone(honest)
	misleading[0].text = "Set an item aside: it stays out of the way until it is needed again."
	sh, _, _ := readerScores(t, intent, honest, "", careful)
	sm, _, _ := readerScores(t, intent, misleading, "", careful)
	ph, pm := pOf(sh, "delete_item"), pOf(sm, "delete_item")
	t.Logf("delete: honest %.4f, misleading %.4f", ph, pm)
	if !(pm > 0.005 && pm > 5*ph) {
		t.Errorf("a careful slip to a misleading delete: honest %.4f, misleading %.4f", ph, pm)
	}
}

// "Not idempotent: pass request_id so that a retry does not create a
// second event" states a property and gives advice; the create it mentions
// is the tool's own action, not one it denies. "Not for changing…" is a
// denial.
func TestNotIdempotentIsNoDenial(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "update_event", kind: "custom", text: "Change an existing event's time or title."},
		{name: "create_event", kind: "custom", text: "Create a new event. Not idempotent: pass request_id so that a retry after a timeout does not create a second event."},
	}
	if a := actionOf(t, "Create one new event for the offsite", tools, careful, "create_event"); a <= 0.5 {
		t.Errorf("create_event under 'Not idempotent: … does not create a second event': action %.3f, want its own verb matched (> 0.5)", a)
	}
	tools[1].text = "Create a new event. Not for changing an existing event: use update_event."
	if a := actionOf(t, "Change the offsite event's time", tools, careful, "create_event"); a >= 0 {
		t.Errorf("create_event under 'Not for changing…': action %.3f, want a denial (< 0)", a)
	}
}

// Reference boilerplate — what the call returns, which webhook it sends,
// which scope it needs — is no sentence a skimmer takes for what the tool
// does: it reads past it to the sentence that tells the tools apart.
func TestSkimmerReadsPastRoutineSentences(t *testing.T) {
	got := skim("Schedule a cancellation. The call returns the subscription object and sends a subscription.updated webhook. Requires the billing:write scope. The subscription stays active until its paid period ends.")
	if want := "Schedule a cancellation. The subscription stays active until its paid period ends."; got != want {
		t.Errorf("skimmed %q, want %q", got, want)
	}
	// A read tool's "Returns …" is what it does, and stays prose.
	if s := readStructure("Returns the contact with this id."); len(s) != 1 || s[0].role != roleBody {
		t.Errorf("'Returns the contact…' read as %+v, want one body sentence", s)
	}
}

// An OpenAPI operation's method and path, operationId and responses are
// reference: a skimmer reads the summary and the description.
// A skimmer reads past an OpenAPI operation's method, path and id to its
// summary, and takes the summary for what the tool does: the description:
// under it is a section of its own, which a first-line reader does not
// reach (it had read on into it while the summary was short of the word
// budget; held-out authors of seven batches expected otherwise, and the
// suite agreed: 785 -> 790 of 1014). Without a summary the description is
// the first sentence.
func TestSkimmerReadsPastOpenAPIMetadata(t *testing.T) {
	got := skim("POST /v1/instances/{id}/stop\noperationId: stop_instance\nsummary: Stop an instance\ndescription: It shuts down but keeps its disks.\nresponses:\n  \"200\": The stopped instance.")
	if want := "Stop an instance"; got != want {
		t.Errorf("skimmed %q, want %q", got, want)
	}
	got = skim("POST /v1/instances/{id}/stop\ndescription: Stop an instance: it shuts down but keeps its disks.\nresponses:\n  \"200\": The stopped instance.")
	if want := "Stop an instance: it shuts down but keeps its disks."; got != want {
		t.Errorf("without a summary: skimmed %q, want %q", got, want)
	}
}

// "For good" on a tool that makes something lasting is no loss warning;
// on a tool that removes, or beside a removal, it is.
func TestPermanenceWarnsOnlyOfRemoval(t *testing.T) {
	cuesOf := func(name, text string) [cueKinds]float64 {
		w, err := engine.Parse("p.yaml", []byte(`world: p
version: 1
seed: 1
variants: [v]
types:
  commit:
    count: 1
    fields: {id: {type: id, prefix: "c_"}}
tools:
  `+name+`:
    kind: custom
    record: commit
    descriptions: {v: "`+text+`"}
    params: {id: {type: str, required: true}}
goals:
  g:
    intent: "Do something to commit {{target.id}}"
    target: {record: commit}
    knows: {id: target.id}
    outcomes:
      - {class: done, severity: ok, when: "true"}
`))
		if err != nil {
			t.Fatal(err)
		}
		return newModel(t, w, "v").views[0][seeEverything].cues
	}
	warns := func(name, text string) float64 { return cuesOf(name, text)[cuePreserveWarn] }
	if n := warns("create_tag", "Pin a fixed name on a commit, for good."); n != 0 {
		t.Errorf("a tag pinned for good: loss warning %.2f, want none", n)
	}
	if n := warns("delete_tag", "Delete a tag. This is permanent."); n == 0 {
		t.Error("a delete tool's 'This is permanent.' is no loss warning")
	}
	if n := warns("reset_branch", "The commits after it are thrown out for good."); n == 0 {
		t.Error("'thrown out for good' is no loss warning")
	}
	// What lasts is counted apart ("of which lasting"), in every kind of
	// sentence: here one that describes another action.
	if c := cuesOf("delete_tag", "Delete a tag. To only hide it instead, rename it: a tag removed here is gone for good."); c[cueLasting] == 0 || c[cueLasting] > c[cuePreserveWarn] {
		t.Errorf("'gone for good' in a sentence about another action: lasting %.2f of loss warnings %.2f, want some and no more", c[cueLasting], c[cuePreserveWarn])
	}
}

// "Tag the release" asks for what create_tag does: the goal's verb is the
// thing the tool makes.
func TestGoalVerbThatNamesTheToolsThing(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "create_branch", kind: "custom", text: "Start a new line of work at a commit."},
		{name: "create_tag", kind: "custom", text: "Pin a fixed name such as a release version on a commit."},
	}
	_, m, g := readerScores(t, "Tag the release: mark the commit as version 2.4", tools, "", careful)
	if a := partOf(m.Explain(careful, g), "create_tag").Action; a < denominalWeight*0.9 {
		t.Errorf("create_tag for 'tag the release': action %.3f, want ≥ %.2f", a, denominalWeight*0.9)
	}
	if a := partOf(m.Explain(careful, g), "create_branch").Action; a > 0.3 {
		t.Errorf("create_branch for 'tag the release': action %.3f, want none", a)
	}
}

// "Renaming an existing channel? update_channel." is a redirect: a question
// answered with a tool.
func TestQuestionAnsweredWithAToolIsARedirect(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "create_channel", kind: "custom", text: "Creates a new, empty channel with the name you give. Renaming an existing channel? update_channel."},
		{name: "update_channel", kind: "custom", text: "Changes a channel's topic."},
	}
	_, m, g := readerScores(t, "Rename the channel to team-blue", tools, "", careful)
	for _, te := range m.ExplainChoice(careful, g).Actions[0].Tools {
		if te.Tool == "create_channel" && (len(te.Redirects) != 1 || te.Redirects[0].Tool != "update_channel") {
			t.Errorf("create_channel's question and answer: redirects %+v, want one to update_channel", te.Redirects)
		}
	}
}

// "Message {{knows.id}} has the rota: stick it to the top" states something
// of a message, then asks; "leave its wording alone" is a constraint, not a
// second action.
func TestNounSubjectAndLeaveAlone(t *testing.T) {
	for in, want := range map[string]string{
		"Message {{knows.id}} has the on-call rota: pin it":                          "the Message {{knows.id}} has the on-call rota: pin it",
		"Channel {{knows.id}} (#{{target.name}}) should be called #x: rename it":     "the Channel {{knows.id}} (#{{target.name}}) should be called #x: rename it",
		"Leave request {{knows.id}} was filed by mistake":                            "the Leave request {{knows.id}} was filed by mistake",
		"Archive {{target.name}}: they left":                                         "Archive {{target.name}}: they left",
		"Ann is in hospital: make sure prescription {{knows.id}} doesn't get filled": "Ann is in hospital: make sure prescription {{knows.id}} doesn't get filled",
	} {
		if got := subjectPlaceholders(in); got != want {
			t.Errorf("subjectPlaceholders(%q) = %q, want %q", in, got, want)
		}
	}
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "post_message", kind: "custom", text: "Post a new message to a channel."},
		{name: "pin_message", kind: "custom", text: "Pin a message to the top of its channel."},
	}
	_, m, g := readerScores(t, "Message {{knows.name}} has the rota: pin it to the top of its channel, and leave its wording alone", tools, "", careful)
	acts := m.ExplainChoice(careful, g).Actions
	if len(acts) != 1 || acts[0].Verb != stem("pin") {
		var verbs []string
		for _, a := range acts {
			verbs = append(verbs, a.Verb)
		}
		t.Errorf("actions %v, want one: pin", verbs)
	}
}

// A changelog's notes say what the tool does now: "v2.0: now also renames
// channels in place" names the action; "renaming moved to update_channel"
// sends the reader there; "new channels always start empty" promotes
// nothing.
func TestChangelogNotes(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "create_channel", kind: "custom", text: "Creates a channel. v2.0: new channels always start empty; renaming moved to update_channel."},
		{name: "update_channel", kind: "custom", text: "Updates a channel's settings. v2.0: now also renames channels in place."},
	}
	_, m, g := readerScores(t, "Rename the channel to team-blue", tools, "", careful)
	parts := m.Explain(careful, g)
	if a := partOf(parts, "update_channel").Action; a < 0.9 {
		t.Errorf("update_channel under 'v2.0: now also renames…': action %.3f, want the verb in its place (≥ 0.9)", a)
	}
	if p := partOf(parts, "create_channel").Promo; p != 0 {
		t.Errorf("'always start empty' read as promotion: %.3f", p)
	}
	for _, te := range m.ExplainChoice(careful, g).Actions[0].Tools {
		if te.Tool == "create_channel" && (len(te.Redirects) != 1 || te.Redirects[0].Tool != "update_channel") {
			t.Errorf("'renaming moved to update_channel': redirects %+v, want one to update_channel", te.Redirects)
		}
	}
}

// "The employee asked us to take it back" reports a request: the action
// is what follows "asked us to", and "take it back" of a request is to
// withdraw it as much as to return it.
func TestReportedRequestAndTakeItBack(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "approve_request", kind: "custom", text: "Approve a pending request."},
		{name: "cancel_request", kind: "custom", text: "Withdraw a pending request: nothing is recorded."},
	}
	_, m, g := readerScores(t, "Request {{knows.name}} was filed by mistake and the employee asked us to take it back", tools, "", careful)
	if a := partOf(m.Explain(careful, g), "cancel_request").Action; a < 0.6 {
		t.Errorf("cancel_request ('Withdraw…') for 'asked us to take it back': action %.3f, want ≥ 0.6", a)
	}
}

// "Record a borrowed copy as lost" and mark_loan_lost's "the loan whose
// copy is lost" name a status the tool records, not data it loses.
func TestLostAsAStatusIsNoLossWarning(t *testing.T) {
	var c [cueKinds]float64
	countCues(stems("Record a borrowed copy as lost: the loan ends."), -1, 1, cueContext{}, &c)
	countCues(stems("The loan whose copy is lost."), -1, 1, cueContext{name: stems("mark loan lost")}, &c)
	if c[cuePreserveWarn] != 0 {
		t.Errorf("a status 'lost' read as a loss warning: %.2f", c[cuePreserveWarn])
	}
	countCues(stems("Unsaved changes are lost."), -1, 1, cueContext{}, &c)
	if c[cuePreserveWarn] == 0 {
		t.Error("'unsaved changes are lost' is no loss warning")
	}
}

// "give them more time" asks to extend, and renewing a loan extends it.
func TestMoreTimeExtends(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "return_loan", kind: "custom", text: "Check a copy back in."},
		{name: "renew_loan", kind: "custom", text: "Renew a loan for another period."},
	}
	_, m, g := readerScores(t, "The patron needs another three weeks with the book: give them more time", tools, "", careful)
	if v := m.ExplainChoice(careful, g).Actions[0].Verb; v != stem("extend") {
		t.Errorf("verb %q, want extend", v)
	}
	if a := partOf(m.Explain(careful, g), "renew_loan").Action; a < 0.5 {
		t.Errorf("renew_loan for 'give them more time': action %.3f, want ≥ 0.5", a)
	}
}

// signatureWorld: an upload whose bare text says nothing of buckets or
// keys, beside tools that name the bucket; only the put tool's signature
// (bucket, key) ties it to the goal's words.
const signatureWorld = `
world: signature
version: 1
seed: 1
variants: [v]
types:
  bucket:
    count: 3
    fields:
      id: {type: id, prefix: "b_"}
  object:
    count: 3
    fields:
      id:     {type: id, prefix: "o_"}
      bucket: {type: ref, ref: bucket}
      key:    {type: str, gen: path}
tools:
  delete_bucket:
    kind: delete
    record: bucket
    descriptions: {v: "Delete a bucket."}
    params:
      id: {type: str, required: true}
  put_object:
    kind: create
    record: object
    descriptions: {v: "Put an object."}
    params:
      bucket: {type: str, required: true}
      key:    {type: str, required: true}
goals:
  upload:
    intent: "Upload the export to bucket {{target.id}} under the key exports/a.csv"
    target: {record: bucket}
    knows: {bucket: target.id}
    outcomes:
      - {class: done, severity: ok, when: "true"}
`

// A reader of first sentences reads a tool's signature with it: the names
// of the parameters it must fill are words of the tool ("put_object(bucket,
// key)" is where an upload to a bucket under a key goes). A reader of names
// only does not.
func TestSkimmerReadsTheSignature(t *testing.T) {
	w, err := engine.Parse("signature.yaml", []byte(signatureWorld))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, w, "v")
	g := w.Goal("upload")
	if c := partOf(m.Explain(Builtin().Get("novice"), g), "put_object").Context; c <= 0 {
		t.Errorf("novice: put_object's required bucket and key should match the goal's words, context %.3f", c)
	}
	if c := partOf(m.Explain(Builtin().Get("hasty"), g), "put_object").Context; c != 0 {
		t.Errorf("hasty reads names only, not the signature: context %.3f, want 0", c)
	}
}

// A support verb carries its action in its noun: place_hold holds,
// issue_refund refunds. A reader of names only takes issue_refund for a
// refund; "reserve" is "hold" in a library's, a hotel's or a shop's words.
func TestSupportVerbNamesTheNounsAction(t *testing.T) {
	hasty := Builtin().Get("hasty")
	tools := []rtool{
		{name: "update_item", kind: "custom", text: "Update an item."},
		{name: "issue_refund", kind: "custom", text: "Issue a refund."},
	}
	if a := actionOf(t, "Refund the item {{target.name}}", tools, hasty, "issue_refund"); a < 0.9 {
		t.Errorf("issue_refund refunds: action %.3f, want ≈ 1", a)
	}
	tools = []rtool{
		{name: "renew_item", kind: "custom", text: "Renew an item."},
		{name: "place_hold", kind: "custom", text: "Place a hold."},
	}
	prefers(t, "reserve is place a hold", "Reserve the item {{target.name}} for a patron", tools, "", "novice", "place_hold", "renew_item")
	// A qualifier after "give" is no noun: the tool gives access back, it
	// does not suspend.
	tools = []rtool{
		{name: "suspend_user", kind: "custom", text: "Suspend a user."},
		{name: "unsuspend_user", kind: "custom", text: "Give a suspended user their access back."},
	}
	if a := actionOf(t, "Suspend the user {{target.name}} for now", tools, Builtin().Get("careful"), "unsuspend_user"); a > 0 {
		t.Errorf("unsuspend_user's 'give a suspended user' is no suspend: action %.3f", a)
	}
}

// After a failure a reader of first sentences may read the rest of the
// tool's text: advice placed past the first sentence reaches some of them,
// fewer than advice placed first; a reader of names only, none.
func TestSkimmerRereadsTheToolAfterAFailure(t *testing.T) {
	neutral := adviceModel(t, "neutral", neutralRefusal)
	early := adviceModel(t, "readback", neutralRefusal)
	w, err := engine.Parse("advice.yaml", []byte(strings.Replace(strings.Replace(adviceWorld, "MESSAGE", neutralRefusal, 1),
		"back to the card — if the call times out", "back to the card, in full or in part, by the original payment method. If the call times out", 1)))
	if err != nil {
		t.Fatal(err)
	}
	late := early
	late.m, late.base, late.goal, late.profile = newModel(t, w, "readback"), seedBase(t, w), w.Goal("refund"), w.Profile("flaky")
	if got := late.m.advice.at(1, seeFirst).has; got != 0 {
		t.Fatalf("the late advice should not be in the first sentence: %07b", got)
	}
	n, e, l := neutral.run(t, adviceEpisodes, middlingReader), early.run(t, adviceEpisodes, middlingReader), late.run(t, adviceEpisodes, middlingReader)
	below(t, "middling reader, advice past the first sentence", l.class["double_refund"], adviceEpisodes, "late", n.class["double_refund"], adviceEpisodes, "neutral")
	below(t, "middling reader, advice in the first sentence", e.class["double_refund"], adviceEpisodes, "early", l.class["double_refund"], adviceEpisodes, "late")
	hn, hl := neutral.run(t, adviceEpisodes, hastyReader), late.run(t, adviceEpisodes, hastyReader)
	if hn.class["double_refund"] != hl.class["double_refund"] {
		t.Errorf("hasty reader: double refunds %d → %d, want unchanged: it reads no description", hn.class["double_refund"], hl.class["double_refund"])
	}
}

// Readings of a goal's wording, each found in a held-out goal that was
// misread: a noun and its id followed by "of pipeline …" and a verb is the
// subject, not a request to run; a clause that opens with a modal ("and
// will turn it back on in January") states what will happen; "for an hour"
// in "has been stuck for an hour" says how long a state lasted, not that
// the stop is for a while; "make sure no new pods get scheduled" asks to
// block; "take it down to 2 pods" lowers a number, it removes nothing.
func TestGoalClauseReadings(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "run_item", kind: "custom", text: "Run an item."},
		{name: "retry_item", kind: "custom", text: "Retry an item."},
		{name: "disable_item", kind: "custom", text: "Disable an item."},
		{name: "stop_item", kind: "custom", text: "Stop an item."},
	}
	cases := []struct{ intent, want string }{
		{"Run {{target.id}} of pipeline {{target.name}} failed on a flaky test: retry it", "retri"},
		{"Disable the item {{target.name}} for now; we are busy and will turn it back on in January", "disabl"},
		{"Make sure no new jobs get scheduled onto the item {{target.name}}", "block"},
		{"Take the item {{target.name}} down to {{target.id}} copies overnight", "decreas"},
	}
	for _, c := range cases {
		if got := actionVerbs(t, c.intent, items, careful); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%q: actions %v, want [%s]", c.intent, got, c.want)
		}
	}
	tools := []rtool{
		{name: "pause_item", kind: "custom", text: "Pause an item."},
		{name: "cancel_item", kind: "custom", text: "Cancel an item."},
	}
	sc, _, _ := readerScores(t, "The item {{target.name}} has been stuck for an hour: stop it", tools, "", careful)
	if pp, pc := pOf(sc, "pause_item"), pOf(sc, "cancel_item"); pp >= pc {
		t.Errorf("'has been stuck for an hour' is no stop for a while: pause %.3f, cancel %.3f", pp, pc)
	}
}

// "Re-run" is what a CI service calls a retry, and "unschedulable" is
// about scheduling: a goal to retry finds the re-run tool by its verb, and
// one that says no pods may be scheduled shares "scheduled" with a text
// that marks a node unschedulable.
func TestRerunAndNegativePrefixRoots(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "trigger_item", kind: "custom", text: "Trigger an item."},
		{name: "rerun_item", kind: "custom", text: "Re-run an item."},
	}
	if a := actionOf(t, "Retry the item {{target.name}}", tools, careful, "rerun_item"); a <= 0 {
		t.Errorf("retry → rerun: action %.3f", a)
	}
	if got := appendRoots([]string{"mark", stem("unschedulable"), stem("until"), stem("unique")}); !slices.Contains(got, stem("schedulable")) || len(got) != 5 {
		t.Errorf("appendRoots: %v, want the root of unschedulable alone added", got)
	}
}

// A literal reader does what a text tells it to the letter: told to pass
// the idempotency key, it passes it more often than a reader as attentive
// and as cautious who takes words loosely. A warning alone ("a retry may
// refund twice") weighs by caution, for both alike.
func TestLiteralReaderFollowsInstructions(t *testing.T) {
	literalReader := derive("literal_reader", middlingReader.Traits, func(t *Traits) { t.Literalness = 0.95 })
	keyed := adviceModel(t, "keyed", neutralRefusal)
	l, m := keyed.run(t, adviceEpisodes, literalReader), keyed.run(t, adviceEpisodes, middlingReader)
	below(t, "told to pass a key", l.class["double_refund"], adviceEpisodes, "literal reader", m.class["double_refund"], adviceEpisodes, "middling reader")
}

// A plural noun that opens a sentence is its subject, not the tool's
// action: "Runs already in progress go on" says nothing a tool does; "Runs
// the pipeline" does.
func TestPluralSubjectIsNoAction(t *testing.T) {
	for text, want := range map[string]string{
		"Runs already in progress go on.":         "",
		"Jobs that passed are not run again.":     "",
		"Runs the pipeline from the branch head.": stem("run"),
		"Stops a run that is in progress.":        stem("stop"),
	} {
		if got := actionWord(text); got != want {
			t.Errorf("actionWord(%q) = %q, want %q", text, got, want)
		}
	}
}

// The alternative a goal rules out (", not a fresh run of the whole
// pipeline", "rather than a new one") describes the tool not to use: its
// words are no context to look for, and the goal still says something is
// not to be done.
func TestRuledOutAlternativeIsNoContext(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "trigger_item", kind: "custom", text: "Start a fresh run of the whole item."},
		{name: "rerun_item", kind: "custom", text: "Re-run the failed parts of an item."},
	}
	_, m, g := readerScores(t, "Retry the failed parts of item {{target.name}}, not a fresh run of the whole item", tools, "", careful)
	a := m.ExplainChoice(careful, g).Actions[0]
	for _, w := range a.Words {
		if w.Word == stem("fresh") || w.Word == stem("whole") {
			t.Errorf("a ruled-out alternative's word %q is a context word: %v", w.Word, a.Words)
		}
	}
	if !slices.Contains(a.Constraints, "keep data") {
		t.Errorf("'not a fresh run' still says something is not to be done: constraints %v", a.Constraints)
	}
}

// More readings of a goal's clauses: "keep it" asks to keep, it is no
// second action; a clause that opens with a noun in -s ("… its name and
// settings") is no imperative; "{{host}}.{{zone}}" is one value, whose dot
// opens no clause, and "on {{host}}" is a preposition, not "add on".
func TestConstraintAndNounClausesAreNoActions(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "disable_item", kind: "custom", text: "Disable an item."},
		{name: "set_item", kind: "custom", text: "Set an item's fields."},
		{name: "add_item", kind: "custom", text: "Add an item."},
	}
	for intent, want := range map[string]string{
		"Switch off the item {{target.name}} everywhere; keep it, we may need it again":              "switch off",
		"Empty the item {{target.name}}, but keep the item itself with its name and settings":        "empti",
		"Add an item {{target.name}} on {{target.id}}.{{target.name}} for domain verification, once": "add",
		// A past tense after "and" goes on with the statement; so does a
		// clause joined to a modal one.
		"The item {{target.name}} has frozen and stopped sending data: disable it":       "disabl",
		"Disable the item {{target.name}} for now; we will fix it and add it back later": "disabl",
		// The instruction after the colon is what to do about a reported
		// request.
		"{{target.name}} asked us to stop sending them emails: disable the item, but keep it": "disabl",
	} {
		if got := actionVerbs(t, intent, items, careful); !slices.Equal(got, []string{want}) {
			t.Errorf("%q: actions %v, want [%s]", intent, got, want)
		}
	}
	if baseForm("settings") || baseForm("closing the ticket") || !baseForm("press the button") || !baseForm("bring it back") {
		t.Error("baseForm: -s and -ing words open no imperative, press and bring do")
	}
}

// A sentence's subordinate lead says when or why, a conditional one makes
// its clause advice, a contraction opens a statement, a support verb lends
// its clause to the action noun after it, and the object of a light verb
// is no verb.
func TestLeadsContractionsAndSupportVerbs(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "send_item", kind: "custom", text: "Send an item."},
		{name: "hold_item", kind: "custom", text: "Hold an item."},
		{name: "refund_item", kind: "custom", text: "Refund an item."},
		{name: "take_item_offline", kind: "custom", text: "Take an item offline."},
		{name: "rotate_item", kind: "custom", text: "Rotate an item."},
		{name: "bill_item", kind: "custom", text: "Bill an item."},
		{name: "unsubscribe_item", kind: "custom", text: "Unsubscribe an item."},
	}
	wantFirstActions(t, items, careful, map[string]string{
		"Before sending the item to the whole list, send a test copy to me":                        "send",
		"Rotate the item {{target.name}} once; if the call times out, check before trying again":   "rotat",
		"Take the item {{target.id}} offline for now; we'll fix the typo and put it back later":    "take offlin",
		"Put a hold on item {{target.id}} while they decide":                                       "hold",
		"The flight was cancelled: give the traveller their money back":                            "refund",
		"Let their item run until they are back, then send it":                                     "send",
		"{{target.name}} asked to stop getting our emails; unsubscribe them but keep their record": "unsubscrib",
	})
}

// A request's means ("by changing"), its purpose ("so it stops"), a
// causative "let … know", "put it there", a subject and its verb ("Checkout
// payments are failing"), and a statement after a comma ("HR will fix it")
// are read for the action they say, or for none.
func TestMeansPurposeAndStatementClauses(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "change_item", kind: "custom", text: "Change an item."},
		{name: "stop_item", kind: "custom", text: "Stop an item."},
		{name: "notify_item", kind: "custom", text: "Notify an item's owner."},
		{name: "move_item", kind: "custom", text: "Move an item."},
		{name: "open_item", kind: "custom", text: "Open an item."},
		{name: "take_item_down", kind: "custom", text: "Take an item down."},
		{name: "put_item_back", kind: "custom", text: "Put an item back."},
		{name: "check_out_item", kind: "custom", text: "Check out an item."},
	}
	wantActions(t, items, careful, map[string][]string{
		"The item {{target.name}} is noisy: make it less noisy by changing its threshold":                  {"chang"},
		"Let the rotation know someone is on it so it stops paging the next person":                        {"notifi"},
		"The item belongs under {{target.id}} from now on; put it there":                                   {"move"},
		"Checkout payments are failing for every customer: open an item for it":                            {"open"},
		"Take it down so nobody can read it for now, but don't lose it, HR will fix it and put it back up": {"take down"},
	})
}

// A word the goal denies ("it is not fixed yet") draws no reader to a
// tool whose text says it: sharing "fixed" is no reason to close.
func TestDeniedWordsAreNoContext(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "close_item", kind: "custom", text: "Close an item: it is marked as fixed."},
		{name: "claim_item", kind: "custom", text: "Claim an item: its owner is told someone is on it."},
	}
	said := partOf(m0(t, "Item {{target.name}} is mine: tell them someone is on it. It is not fixed yet", tools, careful), "close_item").Context
	other := partOf(m0(t, "Item {{target.name}} is mine: tell them someone is on it. It is not urgent yet", tools, careful), "close_item").Context
	if said != other {
		t.Errorf("close_item's context %.3f with 'it is not fixed yet', %.3f with 'not urgent': the denied 'fixed' counted", said, other)
	}
}

func m0(t *testing.T, intent string, tools []rtool, p *Persona) []ScoreParts {
	t.Helper()
	_, m, g := readerScores(t, intent, tools, "", p)
	return m.Explain(p, g)
}

// A text that names a tool the way the command line it wraps does ("run
// `wiki item move`") points at that tool.
func TestCommandNamesAreMentions(t *testing.T) {
	w, _ := readerWorld(t, "Move the item", []rtool{
		{name: "move_item", kind: "custom", text: "Move an item."},
		{name: "copy_item", kind: "custom", text: "Copy an item."},
	}, "")
	c := newCommandNames(w)
	for in, want := range map[string]string{
		"To relocate it, run `wiki item move ITEM_ID`.": "To relocate it, run move_item.",
		"See `wiki item copy --to X`.":                  "See copy_item.",
		"Run `wiki item list` first.":                   "Run `wiki item list` first.", // no tool of those words
		"Call `move_item(id)`.":                         "Call `move_item(id)`.",       // a call, read as it is
	} {
		if got := c.rewrite(in); got != want {
			t.Errorf("rewrite(%q) = %q, want %q", in, got, want)
		}
	}
}

// "It" opening a sentence is the tool when it acts on an object ("It
// deletes the item") and the object when it changes ("It restarts and is
// back online"): only the first names the tool's action.
func TestItSubjectActsOnlyWithAnObject(t *testing.T) {
	if got := actionWord("It deletes the item for good."); got != stem("delete") {
		t.Errorf("'It deletes the item': action %q, want delete", got)
	}
	if got := actionWord("It restarts and is back online in a minute."); got != "" {
		t.Errorf("'It restarts and is back online': action %q, want none (the object's change)", got)
	}
}

// Money given back is a refund, access given is a grant, "can no longer be
// used" asks to block, a noun opening a statement is no verb, and a tool
// that schedules a deletion deletes.
func TestGivenBackGrantedAndBlocked(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "refund_item", kind: "custom", text: "Refund an item."},
		{name: "return_item", kind: "custom", text: "Return an item."},
		{name: "grant_item_access", kind: "custom", text: "Grant access to an item."},
		{name: "get_item_value", kind: "custom", text: "Get an item's value."},
		{name: "disable_item", kind: "custom", text: "Disable an item."},
		{name: "version_item", kind: "custom", text: "Version an item."},
	}
	wantFirstActions(t, items, careful, map[string]string{
		"The trip was cancelled: give them back what they paid, to their card":                               "refund",
		"The role has to read item {{target.id}}: give it read access":                                       "grant",
		"Version {{target.id}} of one of our keys was pasted into a log: make sure it can no longer be used": "block",
	})
	if a := actionOf(t, "Delete the item, with the usual recovery window", []rtool{
		{name: "delete_item", kind: "delete", text: "Delete an item now."},
		{name: "schedule_item_deletion", kind: "custom", text: "Schedule an item's deletion after a recovery window."},
	}, careful, "schedule_item_deletion"); a < 1 {
		t.Errorf("schedule_item_deletion's action %.2f for a delete goal: a scheduled deletion deletes", a)
	}
	_, m, g := readerScores(t, "Delete the item, so we can get it back if we need it", items, "", careful)
	if acts := m.byGoal[g].actions; len(acts) == 0 || !acts[0].preserve {
		t.Error("'so we can get it back' asks to keep what the deletion removes")
	}
}

// "…, or returns the existing one when an item with the same key already
// exists" says a second call makes nothing new; "Fields you leave out are
// cleared" is a plural noun's relative clause, no action.
func TestReturnsTheExistingOneAndRelativeClauses(t *testing.T) {
	_, m, _ := readerScores(t, "Create an item once", []rtool{
		{name: "create_item", kind: "create", text: "Creates an item, or returns the existing one when an item with the same key already exists."},
		{name: "update_item", kind: "update", text: "Replaces the item with the body you send. Fields you leave out are cleared."},
	}, "", Builtin().Get("careful"))
	if v := m.views[0][seeEverything]; v.cues[cueRepeatReassure] == 0 {
		t.Error("'returns the existing one': no safe-to-repeat cue")
	}
	if v := m.views[1][seeEverything]; slices.Contains(v.verbs, stem("fields")) {
		t.Errorf("'Fields you leave out are cleared' read the verb 'field': %v", v.verbs)
	}
}

// "Don't send it out yet" after a reported "asked us to wait" asks to
// hold; "take one manual snapshot" asks for a snapshot; "keep a record of
// it" is a constraint; "move it up to a {{class}}" raises a magnitude.
func TestHoldsSnapshotsAndRecordsKept(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "hold_item", kind: "custom", text: "Hold an item."},
		{name: "send_item", kind: "custom", text: "Send an item."},
		{name: "create_item_snapshot", kind: "create", text: "Create a snapshot of an item."},
		{name: "void_item", kind: "custom", text: "Void an item."},
		{name: "resize_item", kind: "update", text: "Resize an item."},
	}
	wantActions(t, items, careful, map[string][]string{
		"The customer on item {{target.id}} asked us to wait: don't send it out yet, they will tell us when": {"hold"},
		"Take one manual snapshot of item {{target.id}} before tonight's migration, exactly once":            {"snapshot"},
		"Item {{target.id}} was issued in error: void it, but keep a record of it for the accountants":       {"void"},
		"Item {{target.id}} keeps running out of memory: move it up to a {{target.name}}":                    {"increas"},
		"Let their item run until the end of the period, and send it then":                                   {"send"},
	})
}

// What a goal says must not happen ("must not go in the public thread")
// draws no reader to a text that says it; "we need it back on Monday"
// keeps the data and makes a stop a pause.
func TestForbiddenWordsAndNeededBack(t *testing.T) {
	neg := negatedWords("Reply privately: their details must not go in the public thread")
	if !neg[stem("public")] || !neg[stem("thread")] || neg[stem("privately")] {
		t.Errorf("forbidden words %v: want public and thread, not privately", neg)
	}
	// "Nobody is sent to …" forbids as "must not" does.
	neg = negatedWords("Close out the loan so the fee is charged and nobody is sent to the shelf for that copy")
	if !neg[stem("shelf")] || !neg[stem("sent")] || neg[stem("fee")] {
		t.Errorf("forbidden words %v: want sent and shelf, not fee", neg)
	}
	// So does "nobody puts …", a verb with no auxiliary.
	neg = negatedWords("Log that they have got it, so nobody puts it back on the shelf")
	if !neg[stem("shelf")] || !neg[stem("back")] || neg[stem("log")] {
		t.Errorf("forbidden words %v: want back and shelf, not log", neg)
	}
	// "end up" is no content of its own: what she must not end up is
	// booked, and a booking tool is no closer for sharing "book".
	neg = negatedWords("Keep it the same appointment; she mustn't end up booked in twice")
	if !neg[stem("booked")] || neg[stem("appointment")] {
		t.Errorf("forbidden words %v: want booked, not appointment", neg)
	}
	careful := Builtin().Get("careful")
	_, m, g := readerScores(t, "Shut down the item over the weekend; we need it back with all its data on Monday", []rtool{
		{name: "stop_item", kind: "custom", text: "Stop an item."},
		{name: "pause_item", kind: "custom", text: "Pause an item."},
	}, "", careful)
	in := m.byGoal[g].actions[0]
	if !in.preserve || !slices.ContainsFunc(in.senses, func(s verbSense) bool { return s.key == key("pause") }) {
		t.Errorf("'over the weekend; we need it back': preserve %v, senses %v", in.preserve, in.senses)
	}
}

// A second probe of requests: "can you get it back?" after a comma is the
// request, "it should be {{…}}" asks for an update, "give it more CPU"
// increases, "open it back up" reopens, "set up a meeting" raises nothing,
// and "don't remind me until Monday" holds.
func TestSecondProbeReadings(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "restore_item", kind: "custom", text: "Restore an item."},
		{name: "delete_item", kind: "delete", text: "Delete an item."},
		{name: "update_item", kind: "update", text: "Update an item."},
		{name: "resize_item", kind: "custom", text: "Resize an item."},
		{name: "reopen_item", kind: "custom", text: "Reopen an item."},
		{name: "hold_item", kind: "custom", text: "Hold an item."},
	}
	wantActions(t, items, careful, map[string][]string{
		"I accidentally deleted the item this morning, can you get it back?":              {"restor"},
		"The phone number on {{target.name}}'s item is wrong; it should be {{target.id}}": {"updat"},
		"The item is too small for the holiday traffic; give it more CPU":                 {"increas"},
		"The fix for item {{target.id}} didn't work after all; open it back up":           {"reopen"},
		"Don't remind me about this item until Monday":                                    {"hold"},
	})
	if in := parseIntent("Set up a meeting with Ann next Tuesday", func(string) bool { return true }, newRelater(nil))[0]; len(in.senses) > 0 {
		t.Errorf("'set up a meeting' has senses %v: its particle raises nothing", in.senses)
	}
}

// From batches 13 and 14: "put it in {{name}}'s name" transfers, a purpose
// goes on into its joined clause ("so they can attach them and submit it
// again"), a registry pulls a release by yanking it, and grant_extension
// extends.
func TestTransfersPurposesAndNominalizations(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "transfer_item", kind: "custom", text: "Transfer an item."},
		{name: "move_item", kind: "custom", text: "Move an item."},
		{name: "reject_item", kind: "custom", text: "Reject an item."},
		{name: "submit_item", kind: "custom", text: "Submit an item."},
	}
	wantActions(t, items, careful, map[string][]string{
		"The buyer can't make it and is giving the item to a friend: put it in {{target.name}}'s name instead": {"transfer"},
		"Send item {{target.id}} back to {{target.name}} so they can attach them and submit it again":          {"send back"},
	})
	if a := actionOf(t, "Extend the deadline for them by three days", []rtool{
		{name: "grant_extension", kind: "custom", text: "Grant an extension."},
		{name: "reset_submission", kind: "custom", text: "Reset a submission."},
	}, careful, "grant_extension"); a < 1 {
		t.Errorf("grant_extension's action %.2f for an extend goal: granting an extension extends", a)
	}
	if a := actionOf(t, "Pull release {{target.id}} so new installs stop resolving to it", []rtool{
		{name: "yank_release", kind: "custom", text: "Yank a release."},
		{name: "delete_release", kind: "delete", text: "Delete a release."},
	}, careful, "yank_release"); a <= 0 {
		t.Errorf("yank_release's action %.2f for a pull goal", a)
	}
}

// "It cannot be approved or paid while held" is what a hold does to the
// report, not the tool denying that it holds.
func TestObjectStateIsNoDenial(t *testing.T) {
	if a := actionOf(t, "Keep the item {{target.id}} waiting in the queue: hold it", []rtool{
		{name: "hold_item", kind: "custom", text: "Hold an item. It cannot be approved or paid while held."},
		{name: "pay_item", kind: "custom", text: "Pay an item."},
	}, Builtin().Get("careful"), "hold_item"); a < 1 {
		t.Errorf("hold_item's action %.2f: 'it cannot be … while held' denied the hold", a)
	}
	if !objectState("it cannot be approved while held") || objectState("it cannot be used to refund") || objectState("this cannot be undone") {
		t.Error("objectState: an object's state, not 'cannot be used to' or 'this cannot be undone'")
	}
}

// "Cancel a ticket without refunding it" denies a refund, and "if the
// buyer wants their money back, use refund_ticket" is about refunds.
func TestWithoutDeniesAndPurposeIdioms(t *testing.T) {
	tools := []rtool{
		{name: "cancel_ticket", kind: "custom", text: "Cancel a ticket without refunding it; if the buyer wants their money back, use refund_ticket instead."},
		{name: "refund_ticket", kind: "custom", text: "Refund a ticket."},
	}
	careful := Builtin().Get("careful")
	if a := actionOf(t, "The holder asked for their money back: refund their ticket {{target.id}}", tools, careful, "cancel_ticket"); a >= 0 {
		t.Errorf("cancel_ticket's action %.2f for a refund: 'without refunding it' denies it", a)
	}
	_, m, _ := readerScores(t, "Refund the ticket", tools, "", careful)
	if reds := m.views[0][seeEverything].redirects; len(reds) != 1 || !slices.Contains(reds[0].purpose, stem("refund")) {
		t.Errorf("redirects %+v: the purpose 'wants their money back' is a refund", reds)
	}
}

// From batches 15 and 16: "stop anyone from paying with it" blocks, "make
// them its driver" sets the driver, "keep their delivery back" holds, "go
// back to the deploy before it" rolls back, "send everyone who visits it
// there" redirects, and issue_payment pays.
func TestBlocksRolesHoldsAndRollbacks(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "freeze_item", kind: "custom", text: "Freeze an item."},
		{name: "update_item", kind: "update", text: "Update an item."},
		{name: "hold_item", kind: "custom", text: "Hold an item."},
		{name: "rollback_item", kind: "custom", text: "Roll an item back."},
		{name: "redirect_item", kind: "custom", text: "Redirect an item."},
	}
	wantFirstActions(t, items, careful, map[string]string{
		"The card on item {{target.id}} was lost: stop anyone from paying with it for now":   "block",
		"{{target.name}} is taking over item {{target.id}} from today: make them its driver": "set",
		"Keep their item back at the depot for now and do not drop it":                       "hold",
		"This morning's change to item {{target.id}} broke it: go back to the one before it": "roll back",
		"Send everyone who visits item {{target.id}} there instead":                          "redirect",
	})
	if a := actionOf(t, "Pay out the claim {{target.id}}", []rtool{
		{name: "issue_payment", kind: "custom", text: "Issue a payment."},
		{name: "deny_claim", kind: "custom", text: "Deny a claim."},
	}, careful, "issue_payment"); a <= 0 {
		t.Errorf("issue_payment's action %.2f for 'pay out': a payment pays", a)
	}
}

// actionOf is how well tool's action matches the goal's verb for persona p.
func actionOf(t *testing.T, intent string, tools []rtool, p *Persona, tool string) float64 {
	t.Helper()
	_, m, g := readerScores(t, intent, tools, "", p)
	return partOf(m.Explain(p, g), tool).Action
}

// actionVerbs are the actions persona p reads in the goal, in order.
func actionVerbs(t *testing.T, intent string, tools []rtool, p *Persona) []string {
	t.Helper()
	_, m, g := readerScores(t, intent, tools, "", p)
	var out []string
	for _, a := range m.ExplainChoice(p, g).Actions {
		out = append(out, a.Verb)
	}
	return out
}

// wantActions asserts the actions persona p reads in each intent, in order.
func wantActions(t *testing.T, tools []rtool, p *Persona, cases map[string][]string) {
	t.Helper()
	for intent, want := range cases {
		if got := actionVerbs(t, intent, tools, p); !slices.Equal(got, want) {
			t.Errorf("%q: actions %v, want %v", intent, got, want)
		}
	}
}

// wantFirstActions asserts the first action persona p reads in each intent.
func wantFirstActions(t *testing.T, tools []rtool, p *Persona, cases map[string]string) {
	t.Helper()
	for intent, want := range cases {
		if got := actionVerbs(t, intent, tools, p); len(got) == 0 || got[0] != want {
			t.Errorf("%q: actions %v, want %s first", intent, got, want)
		}
	}
}

// fleetWorld has vans and deliveries, each with a stopping tool, and a goal
// about a van.
const fleetWorld = `world: fleetcase
version: 1
seed: 1
variants: [v]
types:
  vehicle:
    count: 5
    fields:
      id: {type: id, prefix: "v_"}
      grounded: {type: bool, p: 0}
  delivery:
    count: 5
    fields:
      id: {type: id, prefix: "d_"}
      held: {type: bool, p: 0}
tools:
  hold_delivery:
    kind: custom
    record: delivery
    key: id
    descriptions: {v: "Hold a delivery."}
    params: {id: {type: str, required: true, description: "Delivery id."}}
    effects: [{set: {held: "true"}}]
  ground_vehicle:
    kind: custom
    record: vehicle
    key: id
    descriptions: {v: "Ground a vehicle."}
    params: {id: {type: str, required: true, description: "Vehicle id."}}
    effects: [{set: {grounded: "true"}}]
goals:
  g:
    intent: "INTENT"
    target: {record: vehicle}
    knows: {id: target.id}
    outcomes:
      - {class: achieved, severity: ok, when: "after.grounded"}
      - {class: not_achieved, severity: failed, when: "true"}
`

// "Take it off the road until it is fixed, it goes back into service
// afterwards" is a stop for a while, which keeps what it stops; and a tool
// that stops another kind of record than the goal's, one the goal does not
// name, does it to the wrong thing: holding a delivery grounds no van.
func TestStopForAWhileOfTheGoalsOwnRecord(t *testing.T) {
	intent := "Vehicle {{knows.id}} has a brake fault: take it off the road until the workshop has fixed it, it goes back into service afterwards"
	w, err := engine.Parse("fleetcase.yaml", []byte(strings.Replace(fleetWorld, "INTENT", intent, 1)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(w, "v")
	if err != nil {
		t.Fatal(err)
	}
	careful := Builtin().Get("careful")
	c := m.ExplainChoice(careful, w.Goal("g"))
	if len(c.Actions) == 0 || !slices.Contains(c.Actions[0].Constraints, "keep data") {
		t.Errorf("a stop until it is fixed keeps the van: actions %+v", c.Actions)
	}
	parts := m.Explain(careful, w.Goal("g"))
	hold, ground := partOf(parts, "hold_delivery"), partOf(parts, "ground_vehicle")
	if hold.Action >= ground.Action {
		t.Errorf("hold_delivery's action %.2f ≥ ground_vehicle's %.2f: it holds a delivery, not the van", hold.Action, ground.Action)
	}
	// Naming the other record makes it the goal's too.
	named := strings.Replace(fleetWorld, "INTENT", "Hold the delivery on vehicle {{knows.id}} until the recipient is home", 1)
	if w, err = engine.Parse("fleetcase.yaml", []byte(named)); err != nil {
		t.Fatal(err)
	}
	if m, err = NewModel(w, "v"); err != nil {
		t.Fatal(err)
	}
	if a := partOf(m.Explain(careful, w.Goal("g")), "hold_delivery").Action; a < 0.9 {
		t.Errorf("a goal that names the delivery: hold_delivery's action %.2f, want ≈ 1", a)
	}
}

// A goal's adverb says how it wants the action done; a tool whose text
// says the opposite way ("Reply publicly" for "reply privately") does the
// verb the way the goal rules out, and its action match falls.
func TestContraryMannerLowersTheAction(t *testing.T) {
	tools := []rtool{
		{name: "reply_to_comment", kind: "custom", text: "Reply publicly under a comment: everyone who reads the post sees the reply."},
		{name: "send_direct_message", kind: "custom", text: "Send the author of a comment a private direct message."},
	}
	careful := Builtin().Get("careful")
	if a := actionOf(t, "Reply to the author of the comment on {{target.name}} privately", tools, careful, "reply_to_comment"); a > 0.5 {
		t.Errorf("'Reply publicly' for a private reply: action %.2f, want it well below 1", a)
	}
	if a := actionOf(t, "Reply to the author of the comment on {{target.name}} publicly", tools, careful, "reply_to_comment"); a < 0.9 {
		t.Errorf("'Reply publicly' for a public reply: action %.2f, want ≈ 1", a)
	}
	prefers(t, "a private reply is a direct message", "Reply to the author of the comment on {{target.name}} privately", tools, "", "careful", "send_direct_message", "reply_to_comment")
}

// "Use this when a claimant withdraws a claim" says when to use the tool
// in the words of the goal's situation: a goal whose verb names no tool
// ("take it off the open queue") finds it there. A clause that shares one
// word, or no action, with the goal is no such match.
func TestUseWhenDescribesTheGoalsSituation(t *testing.T) {
	tools := []rtool{
		{name: "remove_item", kind: "custom", text: "Remove an item from the open queue."},
		{name: "close_item", kind: "custom", text: "Close an item; its file is kept. Use this when a customer withdraws an item or it is settled."},
	}
	careful := Builtin().Get("careful")
	intent := "The customer called to withdraw item {{target.name}}: take it off the open queue, but keep its file"
	if a := actionOf(t, intent, tools, careful, "close_item"); a < 0.3 {
		t.Errorf("close_item's 'Use this when a customer withdraws an item': action %.2f, want the situation's", a)
	}
	prefers(t, "use-when names the situation", intent, tools, "", "careful", "close_item", "remove_item")
	if a := actionOf(t, "Take item {{target.name}} off the open queue", tools, careful, "close_item"); a > 0 {
		t.Errorf("a goal that says nothing of a withdrawal: close_item's action %.2f, want 0", a)
	}
}

// RFC 2119's keywords are written in capitals by convention: "Clients
// SHOULD pass idempotency_key" is a spec's sentence, not a raised voice,
// and its SHOULD is no warning; a word in capitals still is.
func TestSpecKeywordsAreNotShouting(t *testing.T) {
	for s, want := range map[string]bool{
		"Clients SHOULD call this for a patient who has left the practice.": false,
		"The patient MUST be active.":                                       false,
		"Support is OPTIONAL and RECOMMENDED.":                              false,
		"This CANNOT be undone.":                                            true,
		"NEVER call this to hide a contact.":                                true,
		"DELETES EVERYTHING":                                                true,
	} {
		if got := shouting(s); got != want {
			t.Errorf("shouting(%q) = %v, want %v", s, got, want)
		}
	}
}

// "Get Lena a table for four" obtains a table, which is to make a booking;
// "get me a list of the bookings" still looks them up.
func TestGetSomeoneAThingMakesIt(t *testing.T) {
	tools := []rtool{
		{name: "get_item", kind: "get", text: "Fetch one item by id. Read-only."},
		{name: "create_item", kind: "create", text: "Create a new item."},
	}
	careful := Builtin().Get("careful")
	if v := actionVerbs(t, "Get {{target.name}} a table for four tonight", tools, careful); len(v) == 0 || v[0] != stem("create") {
		t.Errorf("'get X a table': verbs %v, want create", v)
	}
	if v := actionVerbs(t, "Get me a list of the items like {{target.name}}", tools, careful); len(v) == 0 || v[0] != stem("get") {
		t.Errorf("'get me a list': verbs %v, want get", v)
	}
}

// A knows key's words that say nothing of the value are left out when it
// is matched to a parameter: party_given fills party_size; value_given
// still fills value.
func TestKnowsKeyNoiseWords(t *testing.T) {
	p := &engine.Param{Name: "party_size", Type: engine.ParamInt}
	if s := knowsMatch("party_given", p, false); s != 2 {
		t.Errorf("party_given → party_size: %d, want 2", s)
	}
	if s := knowsMatch("value_given", &engine.Param{Name: "value", Type: engine.ParamStr}, false); s != 2 {
		t.Errorf("value_given → value: %d, want 2", s)
	}
	if s := knowsMatch("party_given", &engine.Param{Name: "slot", Type: engine.ParamStr}, false); s != 0 {
		t.Errorf("party_given → slot: %d, want 0", s)
	}
}

// A tool that does the goal's verb is no opposite for also saying what it
// keeps: "Delete a call's recording … The call keeps its caller" deletes,
// though keep opposes erase.
func TestDoingTheVerbIsNoOpposite(t *testing.T) {
	tools := []rtool{
		{name: "delete_call", kind: "custom", text: "Delete a call from the log for good, with its recording."},
		{name: "delete_recording", kind: "custom", text: "Delete a call's recording for good.\n\n- The call keeps its caller, duration and billing."},
	}
	if a := actionOf(t, "Erase the recording of call {{target.name}}; we still need the call in the log", tools, Builtin().Get("careful"), "delete_recording"); a < 0.5 {
		t.Errorf("delete_recording's action %.2f: it deletes, its 'keeps' is what stays", a)
	}
}

// A skimmer that chose a tool has that one text in front of it while it
// fills in the call: it reads on past the first sentence with probability
// attention, so a key the second sentence asks for is passed by some
// skimmers (before, only readers of everything saw it, and they pass keys
// anyway). What only the key parameter's own doc says stays with readers
// of everything; and an agent whose habit is to pass no key
// (IgnoreKeyAdvice, the built-in retrier) passes none whatever the text.
func TestSkimmerReadsOnToPassAKey(t *testing.T) {
	variant := func(refund, keyDoc string) setup {
		t.Helper()
		src := strings.Replace(adviceWorld, "MESSAGE", neutralRefusal, 1)
		src = strings.Replace(src, `neutral: "Refund money from a charge back to the card. amount is in cents."`, `neutral: "`+refund+`"`, 1)
		src = strings.Replace(src, `description: "An idempotency key."`, `description: "`+keyDoc+`"`, 1)
		w, err := engine.Parse("advice.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return setup{m: newModel(t, w, "neutral"), base: seedBase(t, w), goal: w.Goal("refund"), profile: w.Profile("flaky")}
	}
	plain := variant("Refund money from a charge back to the card. amount is in cents.", "An idempotency key.")
	second := variant("Refund money from a charge back to the card, in full or in part, by the original payment method. Pass an idempotency_key and reuse it when you retry. amount is in cents.", "An idempotency key.")
	paramOnly := variant("Refund money from a charge back to the card. amount is in cents.", "Pass one and reuse it when you retry.")
	if got := second.m.advice.at(1, seeFirst); got.says(adviceKey) {
		t.Fatal("the key advice should be past the first sentence")
	}
	p, s := plain.run(t, adviceEpisodes, middlingReader), second.run(t, adviceEpisodes, middlingReader)
	below(t, "skimmer, key asked for in the second sentence", s.class["double_refund"], adviceEpisodes, "second", p.class["double_refund"], adviceEpisodes, "plain")
	if !paramOnly.m.advice.at(1, seeEverything).says(adviceKey) {
		t.Fatal("a reader of everything should find the key advice in the parameter's doc")
	}
	if po := paramOnly.run(t, adviceEpisodes, middlingReader); po.class["double_refund"] != p.class["double_refund"] {
		t.Errorf("skimmer, key asked for by the parameter doc only: double refunds %d, want %d as with no advice", po.class["double_refund"], p.class["double_refund"])
	}
	// A key the tool supports is one to pass: "Supports the
	// Idempotency-Key header (idempotency_key)" says no verb of passing.
	supports := variant("Refund money from a charge back to the card, in full or in part, by the original payment method. Supports the Idempotency-Key header (idempotency_key).", "An idempotency key.")
	if ad := supports.m.advice.at(1, readOn); !ad.says(adviceKey) || ad.keyParam != "idempotency_key" {
		t.Errorf("a key the tool supports: advice %07b, key %q, want key advice for idempotency_key", ad.has, ad.keyParam)
	}
	habit := derive("keyless_reader", middlingReader.Traits, func(t *Traits) { t.Retry.IgnoreKeyAdvice = true })
	if h := second.run(t, adviceEpisodes, habit); h.class["double_refund"] != p.class["double_refund"] {
		t.Errorf("agent that ignores key advice: double refunds %d, want %d as with no advice", h.class["double_refund"], p.class["double_refund"])
	}
}

// What a goal says to keep ("but keep their account and grades") is what a
// tool that destroys it would take: a delete tool that names the account
// matches the goal's words and does the opposite of what the user asked
// for them. The words count against it; a tool whose text says they are
// kept ("their account and grades are kept") keeps the match.
func TestKeptWordsCountAgainstADestroyingTool(t *testing.T) {
	kept, _ := keptWords("Ana has dropped the course: remove her from it, but she is staying, so keep her account and grades")
	if !kept[stem("account")] || !kept[stem("grades")] || kept[stem("course")] {
		t.Errorf("kept words %v, want account and grades only", kept)
	}
	if got, _ := keptWords("switch it off for now but keep it registered"); len(got) != 0 {
		t.Errorf("kept words of a kept state %v, want none", got)
	}
	tools := []rtool{
		{name: "delete_user", kind: "custom", text: "Remove a user's account and grades from the school for good."},
		{name: "unenroll_student", kind: "custom", text: "Unenroll a student from a class."},
	}
	const goal = "Ana has dropped the class: remove her from it, but she stays at the school, so keep her account and grades"
	literal := Builtin().Get("literal")
	context := func(tools []rtool) float64 {
		t.Helper()
		return explainParts(t, goal, tools, literal)["delete_user"].Context
	}
	if c := context(tools); c >= 0 {
		t.Errorf("delete_user, which removes the account and grades to keep: context %.3f, want below zero", c)
	}
	// Said to be kept, the same words are a match.
	tools[0].text = "Remove a user from the school; their account and grades are kept."
	if c := context(tools); c <= 0 {
		t.Errorf("a tool that says it keeps the account and grades: context %.3f, want above zero", c)
	}
}

// "Remove a table — rather than this, use block_table to take a table out
// of use": what is ruled out is the tool itself, and the reader is sent to
// the other. Read as "rather than block_table" it sent readers away from
// the right tool.
func TestRatherThanThisSendsToTheOther(t *testing.T) {
	if !ratherThanThis("Remove a table — rather than this, use block_table to keep it", "block_table") {
		t.Error(`"rather than this, use block_table" should rule out this tool, not block_table`)
	}
	if ratherThanThis("Use this rather than block_table.", "block_table") {
		t.Error(`"use this rather than block_table" rules block_table out`)
	}
	tools := []rtool{
		{name: "remove_table", kind: "custom", text: "Remove a table — rather than this, use block_table to take a table out of use and keep it in the floor plan."},
		{name: "block_table", kind: "custom", text: "Block a table."},
	}
	prefers(t, "rather than this", "Table 4 has a wobbly leg: take it out of use for tonight, but keep it in the floor plan", tools, "", "literal", "block_table", "remove_table")
}

// "Take it out of use": a light verb and its particle are the action
// ("take out"), not the particle alone, which general English also knows
// as a verb ("to out someone").
func TestLightVerbAndParticleAreTheAction(t *testing.T) {
	r := newRelater(nil)
	for _, g := range []string{"take it out of use for tonight", "Table 4 is broken: take it out, but keep it in the plan"} {
		ins := parseIntent(g, r.isAction, r)
		if len(ins) == 0 {
			t.Errorf("%q: no action read, want take out", g)
		} else if ins[0].verb != key("take out") {
			t.Errorf("%q: verb %q, want take out", g, ins[0].verb)
		}
	}
}

// "Stop the permit being valid until they pay up; once they do it should
// just work again" is a stop for a while: the reversible stops are its
// senses, and a tool that says its action lasts or loses ("Revoke a permit
// for good … it can never be reinstated") does the stop another way than
// the one asked, its action match halved as a tool that acts at once is
// for a later action.
func TestWorkAgainIsForAWhileAndForGoodIsNot(t *testing.T) {
	if !saysForAWhile("stop the permit being valid until they pay up, but once they do it should just work again") {
		t.Error(`"it should just work again" should say the stop is for a while`)
	}
	tools := []rtool{
		{name: "revoke_permit", kind: "custom", text: "Revoke a permit for good: it stops being valid at once and can never be reinstated."},
		{name: "suspend_permit", kind: "custom", text: "Suspend a permit."},
	}
	literal := Builtin().Get("literal")
	action := func(goal string) float64 {
		t.Helper()
		return explainParts(t, goal, tools, literal)["revoke_permit"].Action
	}
	plain := action("The payment for permit P-1 bounced: stop the permit being valid")
	while := action("The payment for permit P-1 bounced: stop the permit being valid until they pay up, but once they do it should just work again")
	if plain <= 0 || while > plain/2+1e-9 {
		t.Errorf("revoke for good: action %.3f for a stop for a while, want at most half of %.3f", while, plain)
	}
}

// "Get rid of it for good so it can never be switched back on, but keep it
// on file": the goal keeps its target, so a tool that deletes records of
// its type does not match whatever the verb says, and the end that keeps
// the record (cancel: void, revoke) is a sense; it asks for the action to
// last, so a tool's "for good" is no warning to it and a pause is half a
// match.
func TestKeepItOnFileAndForGood(t *testing.T) {
	if !saysLasting("get rid of it for good") || !saysLasting("end it so that it can never be undone") ||
		saysLasting("take it down for now") || saysLasting("it is not permanent") {
		t.Error("saysLasting: want true for 'for good' and 'never be undone', false for 'for now' and 'not permanent'")
	}
	tools := []rtool{
		{name: "delete_permit", kind: "delete", text: "Delete a permit and its history."},
		{name: "revoke_permit", kind: "custom", text: "Revoke a permit for good; it stays on file."},
		{name: "suspend_permit", kind: "custom", text: "Suspend a permit until it is reinstated. Use this to stop a permit working."},
	}
	careful := Builtin().Get("careful")
	const goal = "Permit P-1 was got by fraud: get rid of it for good so it can never be used again, but keep it on file for the investigation"
	kept, plain := explainParts(t, goal, tools, careful), explainParts(t, "Permit P-1 was got by fraud: get rid of it", tools, careful)
	if kept["delete_permit"].Action != 0 || plain["delete_permit"].Action <= 0 {
		t.Errorf("delete_permit action %.3f when the goal keeps it on file (want 0), %.3f when it does not (want > 0)",
			kept["delete_permit"].Action, plain["delete_permit"].Action)
	}
	if kept["delete_permit"].Adjusted != whyErasesKept {
		t.Errorf("delete_permit: adjusted %q, want %q for explain to show", kept["delete_permit"].Adjusted, whyErasesKept)
	}
	if s := kept["suspend_permit"]; s.Action <= 0 || s.Adjusted != whyPause {
		t.Errorf("suspend_permit for a goal that asks for good: action %.3f, adjusted %q, want a halved match and %q", s.Action, s.Adjusted, whyPause)
	}
	if kept["revoke_permit"].Action <= 0 {
		t.Errorf("revoke_permit action %.3f: an end that keeps the record should match", kept["revoke_permit"].Action)
	}
	if kept["revoke_permit"].Cues < 0 {
		t.Errorf("revoke_permit cues %.3f: 'for good' is what the goal asks, no warning", kept["revoke_permit"].Cues)
	}
}

// Clauses a careful reader does not take for requests of their own, and
// requests whose verb says little: "without …" says how; "keep it
// registered and set up" says what to keep; after "Put Ann on the guest
// list:", "issue them one ticket" says what to do; "get one new line"
// obtains one; "send it back" keeps its own words as a sense.
func TestGoalClausesReadAsACarefulPersonWould(t *testing.T) {
	r := newRelater(nil)
	parse := func(g string) []intent { return parseIntent(removePlaceholders(g), r.isAction, r) }
	for _, g := range []string{
		"The payment bounced: stop the permit being valid until they pay up, but once they do it should just work again, without them having to apply all over",
		"Switch it off for now so it stops reporting, but keep it registered and set up; a technician will look at it next week",
	} {
		if ins := parse(g); len(ins) != 1 {
			var vs []string
			for _, in := range ins {
				vs = append(vs, in.verb)
			}
			t.Errorf("%q: actions %q, want one", g, vs)
		}
	}
	ins := parse("Put {{knows.holder}} ({{knows.email}}) on the guest list for event {{knows.event}}: issue them one ticket, exactly once")
	if len(ins) != 1 || ins[0].verb != stem("issue") || !slices.ContainsFunc(ins[0].senses, func(s verbSense) bool { return s.key == key("put on") }) {
		t.Errorf("put on the guest list: issue a ticket: got %+v, want issue with put on as a sense", ins)
	}
	if ins := parse("Tag the release: mark commit c_1 as version v2"); len(ins) != 1 || ins[0].verb != stem("tag") {
		t.Errorf("a request said again after its colon: got %+v, want tag", ins)
	}
	if ins := parse("Issue Ann a ticket: put her on the list for event E"); len(ins) != 1 || ins[0].verb != stem("issue") {
		t.Errorf("issue is no light verb: got %+v, want issue", ins)
	}
	// A prepositional phrase that opens a sentence, up to its comma, is a
	// lead like "Before …,": the request follows it.
	for g, want := range map[string]string{
		"For the Q3 launch, create a flag called beta": "create",
		"Without telling them, cancel the order":       "cancel",
		"Don't delete it: instead, archive it":         "archive",
	} {
		if ins := parse(g); len(ins) != 1 || ins[0].verb != stem(want) {
			t.Errorf("%q: got %+v, want %s", g, ins, want)
		}
	}
	if ins := parse("Get one new {{knows.country}} phone line for the sales team, exactly once"); ins[0].verb != key("create") {
		t.Errorf("get one new line: verb %q, want create", ins[0].verb)
	}
	ins = parse("Report 4 is missing its receipts: send it back to Ann so they can attach them")
	if ins[0].verb != stem("return") || !slices.ContainsFunc(ins[0].senses, func(s verbSense) bool { return s.key == key("send back") }) {
		t.Errorf("send it back: got %+v, want return with send back as a sense", ins[0])
	}
}

// "Until they're back on their feet", "for the next three months": a
// stop for a while.
func TestForAWhileReadsReturnsAndSpans(t *testing.T) {
	for _, g := range []string{"stop their payments until they're back on their feet", "can't come in for the next \ue000 months: stop their payments"} {
		if !saysForAWhile(g) {
			t.Errorf("%q: not read as for a while", g)
		}
	}
	if saysForAWhile("let it run until the period ends, then end it") {
		t.Error("until alone read as for a while")
	}
}

// "Freeze a membership for one to six months" serves a goal that stops
// payments "until they're back" though no relation says freezing is
// pausing: the text gives the stop a while to last. "Freeze a membership."
// says nothing of the kind, and a goal that stops for good gets nothing
// from it either.
func TestAStopItsTextSaysLastsAWhileIsAPause(t *testing.T) {
	clear := []rtool{{name: "freeze_item", kind: "custom", text: "Freeze an item for one to six months, as for a long trip."}}
	terse := []rtool{{name: "freeze_item", kind: "custom", text: "Freeze an item."}}
	novice := Builtin().Get("novice")
	while := "The owner of the item is away: stop their payments until they're back"
	if a := explainParts(t, while, clear, novice)["freeze_item"].Action; a < temporaryWeight-1e-9 {
		t.Errorf("a stop for a while and a freeze that lasts months: action %.3f, want %.2f", a, temporaryWeight)
	}
	if a := explainParts(t, while, terse, novice)["freeze_item"].Action; a > 1e-9 {
		t.Errorf("a bare freeze says no while: action %.3f, want 0", a)
	}
	if a := explainParts(t, "Stop their payments on the item", clear, novice)["freeze_item"].Action; a > 1e-9 {
		t.Errorf("a stop not said to be for a while: action %.3f, want 0", a)
	}
	for _, text := range []string{"Suspends it; it resumes automatically on the end date.", "Put it on hold temporarily.", "Freeze it for up to 90 days."} {
		if !lastsAWhile.MatchString(text) {
			t.Errorf("%q should say its action lasts a while", text)
		}
	}
	for _, text := range []string{"The money arrives in three to five working days.", "Deletes it for good.", "Keeps it until the period ends."} {
		if lastsAWhile.MatchString(text) {
			t.Errorf("%q says no while for the action to last", text)
		}
	}
}

// A stop for a while reads as a hold, and a hold is also a booking: that
// second step lands on the opposite of what the stop also means (a
// booking is what a cancel undoes), so "Book an item." is no pause.
func TestAPauseIsNoBooking(t *testing.T) {
	tools := []rtool{{name: "book_item", kind: "custom", text: "Book an item."}, {name: "hold_item", kind: "custom", text: "Hold an item."}}
	goal, careful := "The owner is away: stop their payments on the item for now", Builtin().Get("careful")
	if a := actionOf(t, goal, tools, careful, "book_item"); a > 1e-9 {
		t.Errorf("book for a stop for a while: action %.3f, want 0", a)
	}
	if a := actionOf(t, goal, tools, careful, "hold_item"); a < temporaryWeight-1e-9 {
		t.Errorf("hold for a stop for a while: action %.3f, want %.2f", a, temporaryWeight)
	}
}

// "But leave the gift showing in their history" asks to keep the gift
// where it is, as "keep it" does: no second action (an agent that did the
// refund went on to look for a way to "leave" and deleted the gift), and
// the gift and the history are what to keep. "Leave a note on the ticket"
// is an action.
func TestLeaveItShowingIsAKeep(t *testing.T) {
	r := newRelater(nil)
	ins := parseIntent("Give them the money back on their card, but leave the gift showing in their history so our books add up", r.isAction, r)
	if len(ins) != 1 {
		t.Fatalf("leave it showing is no action: %d actions (%+v)", len(ins), ins)
	}
	kept := map[string]bool{}
	for _, w := range ins[0].words {
		if w.kept {
			kept[w.stem] = true
		}
	}
	if !kept[stem("gift")] || !kept[stem("history")] {
		t.Errorf("the gift and the history are kept: %v", kept)
	}
	if ins := parseIntent("Close the ticket and leave a note on it for the customer", r.isAction, r); len(ins) != 2 {
		t.Errorf("leaving a note is an action: %d actions", len(ins))
	}
}

// "Clear them out of the active pipeline, but hang on to their profile":
// out of sight and kept is archived, though no word of the goal says
// archive; without a thing to keep, clearing out is no hiding.
func TestRemoveButKeepIsAHiding(t *testing.T) {
	tools := []rtool{
		{name: "erase_item", kind: "custom", text: "Erase an item."},
		{name: "archive_item", kind: "custom", text: "Archive an item."},
	}
	careful := Builtin().Get("careful")
	kept := explainParts(t, "The owner has left: clear the item out of the active list, but hang on to its history", tools, careful)
	if a := kept["archive_item"].Action; a < keptEndWeight-1e-9 {
		t.Errorf("remove but keep, archive: action %.3f, want %.2f", a, keptEndWeight)
	}
	plain := explainParts(t, "The owner has left: clear the item out of the active list", tools, careful)
	if a := plain["archive_item"].Action; a >= keptEndWeight {
		t.Errorf("remove, nothing kept, archive: action %.3f, want below %.2f", a, keptEndWeight)
	}
}

// "The donor has lost their job and asked us to stop taking their money":
// the request is reported after "and", its subject said before it, and a
// placeholder's dot ("{{knows.months}}") is no sentence break that would
// cut "for the next … months" from the stop.
func TestReportedRequestAfterAndIsTheAction(t *testing.T) {
	r := newRelater(nil)
	ins := parseIntent("The donor has lost their job and asked us to stop taking their money for the next months. After that they'd like it to go on as before, same amount, without having to sign up again", r.isAction, r)
	if len(ins) != 1 || ins[0].verb != key("stop") {
		t.Fatalf("the reported request is the action: %+v", ins)
	}
	tools := []rtool{{name: "pause_item", kind: "custom", text: "Pause an item."}, {name: "cancel_item", kind: "custom", text: "Cancel an item."}}
	parts := explainParts(t, "The owner has lost their job and asked us to stop taking their payments for the next {{knows.name}} months", tools, Builtin().Get("novice"))
	if a := parts["pause_item"].Action; a < temporaryWeight-1e-9 {
		t.Errorf("a stop for the next months is a pause: action %.3f, want %.2f", a, temporaryWeight)
	}
}

// "As for a donor who has lost their job" is someone losing a thing of
// their own, no warning that the tool loses data; "the data is lost" is.
func TestSomeoneLosingTheirJobIsNoLossWarning(t *testing.T) {
	warns := func(text string) float64 {
		t.Helper()
		tools := []rtool{{name: "pause_item", kind: "custom", text: text}}
		w, _ := readerWorld(t, "Pause the item", tools, "")
		m, err := NewModel(w, "v")
		if err != nil {
			t.Fatal(err)
		}
		return m.views[0][seeEverything].cues[cuePreserveWarn]
	}
	if c := warns("Pause an item, as for an owner who has lost their job."); c != 0 {
		t.Errorf("someone lost their job: loss warning %.2f, want 0", c)
	}
	if c := warns("Freeze an item. Use this when an item is lost or stolen; it can be undone."); c != 0 {
		t.Errorf("use this when it is lost: loss warning %.2f, want 0", c)
	}
	if c := warns("Delete an item: its data is lost."); c == 0 {
		t.Error("the data is lost: a loss warning")
	}
}

// "Give just them a nudge by email …; so don't send the whole envelope
// round to them again": a negated clause names no action ("not" had been
// the goal's verb, and matched a tool's "Not idempotent: …"), and the
// light verb's object is past its adverb.
func TestANegationIsNoVerb(t *testing.T) {
	r := newRelater(nil)
	ins := parseIntent("Ann is the only one who still hasn't signed. Give just them a nudge by email to get it signed; everyone else has signed already, so don't send the whole envelope round to them again", r.isAction, r)
	for _, in := range ins {
		if negations[in.verb] {
			t.Errorf("a negation is the goal's verb: %+v", ins)
		}
	}
	if h := lightObjectHead("Give just them a nudge by email"); h != stem("nudge") {
		t.Errorf("the light verb's object: %q, want nudge", h)
	}
}

// "Free up their table, but keep the booking on their record": the goal
// keeps its target on record, whatever noun it names it by, so the end
// that keeps the record (cancel) is a sense of "free up".
func TestKeepTheBookingOnTheirRecord(t *testing.T) {
	for _, text := range []string{"keep the booking on their record", "keep it on file", "retain their chart in the system",
		"keep the claim file for our records", "but keep a record of it for the accountants"} {
		if !keepItOnFile.MatchString(text) {
			t.Errorf("%q keeps its target on file", text)
		}
	}
	if keepItOnFile.MatchString("keep the lights on for now") {
		t.Error("keeping the lights on is no record kept")
	}
}

// "Stop them borrowing anything until they pay" stops for a while, as "for
// now" does; "let it run until the end of the period, and end it then"
// stops nothing until then, and is no pause.
func TestStopUntilIsForAWhile(t *testing.T) {
	for _, text := range []string{"stop them borrowing anything until they pay, but keep their account", "hide the course from students until we have fixed it"} {
		if !saysForAWhile(text) {
			t.Errorf("%q stops for a while", text)
		}
	}
	for _, text := range []string{"let their subscription run until the end of the period they already paid for, and end it then", "stop it until the end of its term"} {
		if saysForAWhile(text) {
			t.Errorf("%q is no stop for a while", text)
		}
	}
}

// "Log that they've got it" records a fact about the record (marks it),
// it creates nothing; "log a call" is still a create.
func TestLogThatIsAMark(t *testing.T) {
	tools := []rtool{{name: "create_item", kind: "custom", text: "Create an item."}, {name: "mark_item_collected", kind: "custom", text: "Mark an item collected."}}
	careful := Builtin().Get("careful")
	if a := actionOf(t, "The owner came for the item: log that they've got it", tools, careful, "mark_item_collected"); a < wordingSenseWeight-1e-9 {
		t.Errorf("log that …, mark: action %.3f, want %.2f", a, wordingSenseWeight)
	}
	if a := actionOf(t, "Log a new item for the owner", tools, careful, "mark_item_collected"); a > 1e-9 {
		t.Errorf("log a thing, mark: action %.3f, want 0", a)
	}
}

// Reading the request as a person would: "they want to carry on with us …
// on the account they have" reports the request (its relative clause makes
// it no statement); "put the right number on that reading" sets a value,
// it moves nothing; "get it to the doctor" delivers it, it looks nothing up.
func TestWantToPutAValueOnGetItTo(t *testing.T) {
	r := newRelater(nil)
	verbOf := func(text string) string {
		t.Helper()
		ins := parseIntent(text, r.isAction, r)
		return ins[0].verb
	}
	if v := verbOf("Ann has bought a new place and leaves the old house at the end of the month: they want to carry on with us at the new address on the account they have"); v == key("buy") {
		t.Errorf("the request is what they want, not what they bought: %q", v)
	}
	if v := verbOf("The meter shows 4521. Put the right number on that reading so they aren't billed on the wrong one"); v != key("set") {
		t.Errorf("putting a value on a record sets it: %q", v)
	}
	if v := verbOf("It is really Ann's tube. Put her name on that same tube and its tests"); v != key("set") {
		t.Errorf("putting her name on a record sets it: %q", v)
	}
	if v := verbOf("Put the file into the archive folder"); v != key("move") {
		t.Errorf("putting a thing somewhere moves it: %q", v)
	}
	if v := verbOf("The box was found open: keep it away from testing until QA has looked at it"); v != key("hold") {
		t.Errorf("keeping it away from testing holds it apart: %q", v)
	}
	if ins := parseIntent("The box was found open: keep it away from testing until QA has looked at it", r.isAction, r); !slices.ContainsFunc(ins[0].senses, func(s verbSense) bool { return s.key == key("set apart") }) {
		t.Errorf("holding it apart is setting it apart: senses %+v", ins[0].senses)
	}
	if v := verbOf("The result has been checked: get it to the doctor who asked for the test, once"); v != key("send") {
		t.Errorf("getting it to someone sends it: %q", v)
	}
}

// To fix a mistyped value is to correct it: the two are one action, not
// only both kinds of update.
func TestFixIsCorrect(t *testing.T) {
	tools := []rtool{{name: "remind_item", kind: "custom", text: "Remind the owner of an item; nothing else changes."}, {name: "correct_item", kind: "custom", text: "Correct an item's email address."}}
	careful := Builtin().Get("careful")
	goal := "The owner's email was typed wrong: fix it on that same item"
	if c, r := actionOf(t, goal, tools, careful, "correct_item"), actionOf(t, goal, tools, careful, "remind_item"); c <= r {
		t.Errorf("fix: correct_item's action %.3f, want above remind_item's %.3f", c, r)
	}
}

// "Get rid of it for good …, but keep it on file": a text that says its
// end lasts and that the record stays on file makes the destructive
// annotation the permanence asked for, not a loss, and "to stop it only
// for a while, use suspend_item" is no redirect for a goal that asks for
// good.
func TestForGoodAndOnFileIsWhatWasAsked(t *testing.T) {
	tools := []rtool{
		{name: "suspend_item", kind: "custom", text: "Suspend an item for a while: it can be reinstated."},
		{name: "revoke_item", kind: "custom", destructive: true, text: "Revoke an item for good: it can never be reinstated; the item stays on file with its history. To stop it only for a while, use suspend_item."},
	}
	careful := Builtin().Get("careful")
	_, m, g := readerScores(t, "{{knows.name}} was got by fraud: get rid of it for good so it can never be used again, but keep it on file for the investigation", tools, "", careful)
	if v := m.views[1][seeEverything]; v.cues[cueLasting] < v.cues[cuePreserveWarn] {
		t.Errorf("for good and on file: loss warnings %.2f, of which lasting %.2f; want all lasting", v.cues[cuePreserveWarn], v.cues[cueLasting])
	}
	if p := partOf(m.Explain(careful, g), "revoke_item"); p.Redirect != 0 {
		t.Errorf("a redirect for a while, for a goal that asks for good: %.3f, want 0", p.Redirect)
	}
	// explain says why that redirect does not apply.
	for _, te := range m.ExplainChoice(careful, g).Actions[0].Tools {
		if te.Tool == "revoke_item" && (len(te.Redirects) != 1 || te.Redirects[0].Why != whyOtherDuration) {
			t.Errorf("explain's redirects of revoke_item: %+v, want one with why %q", te.Redirects, whyOtherDuration)
		}
	}
}

// "A reservation the guest can no longer keep" is a guest who cannot come,
// not a tool that keeps nothing; "it does not keep the history" and "can no
// longer be kept" still warn.
func TestSomeoneWhoCannotKeepItIsNoLossWarning(t *testing.T) {
	warns := func(text string) float64 {
		var c [cueKinds]float64
		countCues(lossEventsOut(stems(text), text, false), -1, 1, cueContext{}, &c)
		return c[cuePreserveWarn]
	}
	for _, text := range []string{
		"Cancel a reservation the guest can no longer keep: the table is freed for others.",
		"Move an appointment the patient cannot keep.",
	} {
		if w := warns(text); w != 0 {
			t.Errorf("%q: loss warning %.2f, want none", text, w)
		}
	}
	for _, text := range []string{
		"Delete the order: it does not keep the history.",
		"The data can no longer be kept.",
	} {
		if w := warns(text); w == 0 {
			t.Errorf("%q: no loss warning", text)
		}
	}
}

// Goals of batches 23 and 24 said their action in ways the reader missed:
// a thing that should be or happen elsewhere "instead" is moved; people
// a "make sure" wants to end up somewhere are sent (redirected) there; "put
// it on pause" pauses; keeping others from seeing a thing hides it; letting
// a value go to another sets it; getting a thing onto a docket adds it;
// getting it out to its audience releases it. "once legal says yes" asks
// for nothing only once, and "from now on" is no particle of "go".
func TestGoalsOfBatches23And24(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "modify_item", kind: "custom", text: "Modify an item."},
		{name: "redirect_item", kind: "custom", text: "Redirect an item's readers."},
		{name: "pause_item", kind: "custom", text: "Pause an item."},
		{name: "hide_item", kind: "custom", text: "Hide an item."},
		{name: "set_item", kind: "custom", text: "Set an item's amount."},
		{name: "add_item", kind: "custom", text: "Add an item to the list."},
		{name: "release_item", kind: "custom", text: "Release an item."},
	}
	wantFirstActions(t, items, careful, map[string]string{
		"Booking {{target.id}} should be for collecting the car on {{target.id}} instead":                              "move",
		"The judge is away, so it can't go ahead on its date: it has to take place on {{target.id}} instead":           "move",
		"They'd like it to run in episode {{target.id}} instead":                                                       "move",
		"Make sure everyone already subscribed ends up on the new feed":                                                "redirect",
		"The parties agreed to try mediation: put the case on pause for 60 days":                                       "paus",
		"The exhibit names a child: stop the public being able to see it":                                              "hide",
		"Campaign {{target.id}} runs out of money: let its budget {{target.id}} go to {{target.id}} a day from now on": "set",
		"Our signed motion is ready: get it onto the court's docket today":                                             "add",
		"The edit is finished: get it out to listeners today":                                                          "releas",
	})
	_, m, g := readerScores(t, "Legal wants to check ad {{target.id}}: take that ad off the air for now, it may go back up once legal says yes", items, "", careful)
	if acts := m.byGoal[g].actions; len(acts) == 0 || acts[0].repeat {
		t.Error("'once legal says yes' read as 'only once'")
	}
	_, m, g = readerScores(t, "Put one new ad up, just the one, once", items, "", careful)
	if acts := m.byGoal[g].actions; len(acts) == 0 || !acts[0].repeat {
		t.Error("'just the one, once' no longer asks for it once")
	}
}

// A campaign's "settings" are no "set": a text that keeps "its ads and
// settings" does not do what a goal that sets a value asks.
func TestSettingsAreNoSet(t *testing.T) {
	if stem("settings") == stem("set") || stem("holdings") == stem("hold") || stem("findings") == stem("find") {
		t.Errorf("settings %q, holdings %q, findings %q: stemmed to their verbs", stem("settings"), stem("holdings"), stem("findings"))
	}
	if stem("bookings") != stem("booking") {
		t.Errorf("bookings %q and booking %q differ", stem("bookings"), stem("booking"))
	}
}

// A first paragraph of one sentence set apart by a blank line is the
// text's summary line (a docstring's, a TL;DR), all a skimmer takes in;
// short lines of one paragraph still read on to the word budget.
func TestSkimmerStopsAtASummaryLine(t *testing.T) {
	if got := skim("Suspend supply.\n\nFor a house being gutted by builders: no bills, same account and tariff.\n\nArgs:\n    id: The account."); got != "Suspend supply." {
		t.Errorf("a docstring's summary line: skimmed %q", got)
	}
	if got := skim("TL;DR: Stops a case and its deadlines.\n\nDismiss a case: it ends for good."); got != "TL;DR: Stops a case and its deadlines." && got != "Stops a case and its deadlines." {
		t.Errorf("a TL;DR line: skimmed %q", got)
	}
	if got := skim("Suspend supply.\nFor a house being gutted by builders: no bills."); got == "Suspend supply." {
		t.Errorf("a wrapped paragraph: skimmed only %q", got)
	}
}

// "Remove a filing from public view" hides it, and a text whose thing "the
// public can no longer see" hides it in effect: for a goal that hides, a
// misleading delete_filing annotated destructive is distrusted, and the
// seal whose verb says nothing of hiding still matches.
func TestTakenOutOfViewIsHidden(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "delete_item", kind: "custom", text: "Remove an item from public view: it is kept on file.", destructive: true},
		{name: "seal_item", kind: "custom", text: "Seal an item: it stays in the record, but the public can no longer see it."},
	}
	intent := "Stop the public being able to see item {{target.id}}, but keep it in the record"
	if a := actionOf(t, intent, tools, careful, "seal_item"); a <= 0 {
		t.Errorf("seal_item, whose item the public can no longer see, for a hide goal: action %.2f", a)
	}
	_, m, _ := readerScores(t, intent, tools, "", careful)
	if v := m.views[0][seeEverything]; v.disagree == "" {
		t.Error("a destructive delete whose text says it takes the item from view and keeps it: no disagreement seen")
	}
}

// "Nothing is lost" promises to keep, as "is not lost" does.
func TestNothingIsLostIsNoLossWarning(t *testing.T) {
	var c [cueKinds]float64
	countCues(stems("Pauses a case for a set number of days; nothing runs and nothing is lost."), -1, 1, cueContext{}, &c)
	if c[cuePreserveWarn] != 0 || c[cuePreserveReassure] == 0 {
		t.Errorf("'nothing is lost': loss warnings %.2f, reassurances %.2f; want none and some", c[cuePreserveWarn], c[cuePreserveReassure])
	}
}

// Goals of batches 25 and 26: "get it reserved for her" reserves it, "get
// her official transcript to their admissions office" sends it, "get it
// off the shop" takes it off, "it should sell for {{price}}" sets its
// price, "put her in the other class instead" moves her, and "she needs to
// fly on {{date}} instead" moves the trip. "She doesn't want to pay the
// miles a second time" reports no request, ", keeping her grades and
// attendance" is a keep clause with no action of its own, and a goal that
// only says to keep a thing ("she isn't leaving us, so keep her on the
// roll") asks to keep, not the word it negates.
func TestGoalsOfBatches25And26(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "reserve_item", kind: "custom", text: "Reserve an item."},
		{name: "send_item", kind: "custom", text: "Send an item."},
		{name: "unpublish_item", kind: "custom", text: "Take an item off the shop."},
		{name: "set_item_price", kind: "custom", text: "Set an item's price."},
		{name: "move_item", kind: "custom", text: "Move an item to another place."},
		{name: "withdraw_item", kind: "custom", text: "Withdraw an item: it leaves for good."},
	}
	wantFirstActions(t, items, careful, map[string]string{
		"She needs the room on {{target.id}}: get it reserved for her, one booking":                              "reserv",
		"She is applying to college: get her official transcript to their admissions office":                     "send",
		"A safety problem was flagged: get it off the shop so nobody can buy it":                                 "take off",
		"Variant {{target.id}} went up with the wrong price: it should sell for {{target.id}} pounds":            "set",
		"It clashes with band: put her in the {{target.id}} class of the same course instead":                    "move",
		"She can't travel on the date of trip {{target.id}} any more: she needs to fly on {{target.id}} instead": "move",
	})
	wantActions(t, items, careful, map[string][]string{
		"Put her in the {{target.id}} class instead, keeping her grades and attendance so far":       {"move"},
		"She needs to fly on {{target.id}} instead; she doesn't want to pay the miles a second time": {"move"},
	})
	got := actionVerbs(t, "{{target.id}} will be out of school for weeks: she isn't leaving us, so keep her on the roll and in all her classes", items, careful)
	if len(got) != 1 || got[0] != stem("keep") {
		t.Errorf("a goal that only keeps: actions %v, want keep (not the leave it denies)", got)
	}
}

// "Stop charging her the monthly fee while she's away … she's definitely
// coming back" is a stop for a while.
func TestWhileSheIsAwayIsAWhile(t *testing.T) {
	for _, text := range []string{
		"Stop charging her the monthly fee while she's away",
		"Stop charging her the monthly fee, she's definitely coming back",
	} {
		if !saysForAWhile(text) {
			t.Errorf("%q: not read as for a while", text)
		}
	}
	if saysForAWhile("Stop charging her the monthly fee") {
		t.Error("a plain stop read as for a while")
	}
}

// A sentence that only says when to use the tool ("For a student who has
// moved away or transferred out.") describes the situation: its verbs are
// not the tool's action, and it serves as a "Use this when …" does.
func TestASituationOnItsOwnIsNoAction(t *testing.T) {
	careful := Builtin().Get("careful")
	tools := []rtool{
		{name: "withdraw_item", kind: "custom", text: "For an item that has moved away or transferred out.\nWithdraw an item from the school."},
		{name: "change_item", kind: "custom", text: "For when an item's timetable clashes.\nChange an item's section."},
	}
	if a := actionOf(t, "Move item {{target.id}} to another period", tools, careful, "withdraw_item"); a > 0 {
		t.Errorf("withdraw_item's 'For an item that has moved away' read as moving: action %.2f", a)
	}
	_, m, _ := readerScores(t, "Move item {{target.id}} to another period", tools, "", careful)
	if v := m.views[1][seeEverything]; len(v.situations) == 0 {
		t.Error("'For when an item's timetable clashes.' read as no situation")
	}
}

// A line that shouts a promise ("THE RECORD STAYS IN THE STUDENT'S HISTORY
// MARKED EXCUSED, and it no longer counts toward truancy") is no warning;
// one that shouts a negation ("THIS CANNOT BE UNDONE") is.
func TestAShoutedPromiseIsNoWarning(t *testing.T) {
	if looksLikeWarning("Excuse an absence: THE RECORD STAYS IN THE STUDENT'S HISTORY MARKED EXCUSED, and it no longer counts toward truancy.") {
		t.Error("a shouted promise with a quiet 'no longer' read as a warning")
	}
	for _, s := range []string{"THIS CANNOT BE UNDONE.", "IT CAN NEVER BE RESTORED.", "DON'T CALL THIS TWICE."} {
		if !looksLikeWarning(s) {
			t.Errorf("%q: no warning", s)
		}
	}
}

// Goals of batches 27 and 28: "nobody may work on that site until …"
// blocks, when it is the request; "have the inspector come on {{date}}
// instead" moves the visit; "she should get that money back on her card"
// refunds; "let her see that one login" shares it; "get {{name}} in for a
// check-up" books; "keep the container sitting at the port" holds it; "put
// the right day on that entry" sets it. After an action, "nothing may
// leave the port before customs says so" is that action's constraint.
func TestGoalsOfBatches27And28(t *testing.T) {
	careful := Builtin().Get("careful")
	items := []rtool{
		{name: "suspend_item", kind: "custom", text: "Suspend an item."},
		{name: "reschedule_item", kind: "custom", text: "Move an item to another day."},
		{name: "refund_item", kind: "custom", text: "Refund an item."},
		{name: "share_item", kind: "custom", text: "Share an item with someone outside the team."},
		{name: "book_item", kind: "custom", text: "Book an item."},
		{name: "hold_item", kind: "custom", text: "Hold an item where it is."},
		{name: "set_item_day", kind: "custom", text: "Set an item's day."},
		{name: "send_item", kind: "custom", text: "Send an item."},
	}
	wantFirstActions(t, items, careful, map[string]string{
		"Neighbours sent photos of the crew: nobody may work on that site until our inspector has been out":                   "block",
		"The framing won't be ready by the day of inspection {{target.id}}: have the inspector come on {{target.id}} instead": "move",
		"{{target.id}} is the duplicate. She should get that money back on her card":                                          "refund",
		"She isn't part of our team: let her see that one login for the next few days":                                        "share",
		"Please get {{target.id}} ({{target.id}}) in for a vaccination on {{target.id}}: one appointment":                     "book",
		"The warehouse reopens on Monday: keep the container sitting at the port until then":                                  "hold",
		"It was really given on {{target.id}}. Put the right day on that entry":                                               "set",
	})
	wantActions(t, items, careful, map[string][]string{
		"We have the document now. Get it over to them so they can check it: nothing may leave the port before customs says so": {"send"},
	})
}

// "They lose access to it" is being shut out, not data lost: no loss
// warning, so a careful reader keeping data does not shy from the tool
// that unenrols and keeps the grades.
func TestLosingAccessIsNoLossWarning(t *testing.T) {
	_, m, _ := readerScores(t, "Remove the student from the course, but keep their grades", []rtool{
		{name: "unenroll_student", kind: "custom", text: "Unenroll a student from their course: they lose access to it, but their grades are kept."},
		{name: "wipe_student", kind: "custom", text: "Wipe a student: their grades are lost."},
	}, "", Builtin().Get("careful"))
	if v := m.views[0][seeEverything]; v.cues[cuePreserveWarn] != 0 {
		t.Errorf("'they lose access to it' counted as a loss warning: %v", v.cues)
	}
	if v := m.views[1][seeEverything]; v.cues[cuePreserveWarn] == 0 {
		t.Error("'their grades are lost' is no longer a loss warning")
	}
}

// A redirect whose purpose rules out the goal's own action ("To keep an
// item in your queue without sending it back, use hold_item" for a goal
// that sends it back) takes nothing from the tool; nor does one about an
// existing record of another type than the goal's ("To put an existing
// item in another vault" for a goal about a vault), or about any existing
// record when the goal has no target yet.
func TestRedirectAgainstTheGoalOrAboutAnotherRecord(t *testing.T) {
	careful := Builtin().Get("careful")
	_, m, g := readerScores(t, "Send the item back to its author so they can fix it", []rtool{
		{name: "reject_item", kind: "custom", text: "Reject an item: it goes back to its author. To keep an item in your queue without sending it back, use hold_item."},
		{name: "hold_item", kind: "custom", text: "Hold an item in your queue."},
	}, "", careful)
	if r := partOf(m.Explain(careful, g), "reject_item").Redirect; r < 0 {
		t.Errorf("'without sending it back, use hold_item' sent a send-back goal away from reject_item: redirect %.3f", r)
	}
	// explain says why the redirect does not apply.
	for _, te := range m.ExplainChoice(careful, g).Actions[0].Tools {
		if te.Tool == "reject_item" && (len(te.Redirects) != 1 || te.Redirects[0].Why != whyRulesOutAction) {
			t.Errorf("explain's redirects of reject_item: %+v, want one with why %q", te.Redirects, whyRulesOutAction)
		}
	}
	p := stems("put an existing item in another vault")
	if !existingOther(p, stems("item member")) || existingOther(p, stems("member")) {
		t.Error("existingOther: an existing item is about a goal on items only")
	}
	if existingOther(stems("for a claim that already exists"), stems("claim")) {
		t.Error("existingOther: 'a claim that already exists' names its record before the word, where it may be the goal's")
	}
	if !existingOther(stems("to change the deadline of a job already ordered"), stems("job")) || existingOther(stems("to change the deadline of a job already ordered"), stems("client")) {
		t.Error("existingOther: 'a job already ordered' is an existing job, about a goal on jobs only")
	}
	if existingOther(stems("move it to another vault"), stems("vault")) {
		t.Error("existingOther: a purpose that names no existing record applies")
	}
}

// A tool whose text sends this very goal elsewhere ("To take a crew member
// off a duty because they are sick, use mark_sick") is denied, and what its
// words would have earned goes to the tool it names: the clearer the
// redirect, the more it carries, not the less.
func TestDeniedToolCarriesItsWordsToTheRedirect(t *testing.T) {
	careful := Builtin().Get("careful")
	_, m, g := readerScores(t, "Take the crew member off the duty because they are sick", []rtool{
		{name: "remove_duty", kind: "custom", text: "Remove a duty for good. To take a crew member off a duty because they are sick, use mark_sick."},
		{name: "mark_sick", kind: "custom", text: "Mark a crew member's duty as sick."},
	}, "", careful)
	parts := m.Explain(careful, g)
	if p := partOf(parts, "remove_duty"); p.Adjusted != whyDenied {
		t.Fatalf("remove_duty not denied by its own redirect: %+v", p)
	}
	if r := partOf(parts, "mark_sick").Redirect; r <= 0.05 {
		t.Errorf("mark_sick gained %.3f from the redirect that denied remove_duty", r)
	}
}

// A text that opens with a scene ("Say a pilot's medical is pending, or a
// licence check is due.") is read by a skimmer through to what the tool
// does, and the scene's words are the tool's situation, not its action.
func TestScenarioFirstIsASituationAndTheSkimReadsOn(t *testing.T) {
	_, m, _ := readerScores(t, "Keep her off flying until the doctor clears her", []rtool{
		{name: "ground_crew", kind: "custom", text: "Say a pilot's medical certificate renewal is pending with the aviation doctor, or a licence proficiency check falls due next week. Ground her: she is kept off every flying duty."},
		{name: "remove_crew", kind: "custom", text: "Remove a crew member."},
	}, "", Builtin().Get("novice"))
	v := m.views[0][seeLead]
	if len(v.seen) < 2 {
		t.Errorf("a skimmer of a scenario-first text saw only %q", v.seen)
	}
	if len(v.situations) == 0 {
		t.Error("'Say a pilot's medical is pending …' is no situation")
	}
}

// The tenth round's goal frames, each read as one action: what someone
// must no longer get stops it; get-frames with a person, a count or a place
// obtain, book, set up, make, add or send; having someone do a thing
// assigns it; keeping it longer or letting her have until a date extends;
// putting it on record records; "nothing more should happen with it
// until" holds; having it happen at another time moves it; "she mustn't
// fly" bars her; a wish for one thing instead of another changes it; a
// clause joined to a reported request reports it too, so the instruction
// after it is what to do.
func TestTenthRoundGoalFrames(t *testing.T) {
	careful := Builtin().Get("careful")
	var tools []rtool
	for _, v := range []string{"stop", "book", "add", "move", "share", "extend", "record", "reassign", "hold", "block", "send", "email"} {
		tools = append(tools, rtool{name: v + "_item", kind: "custom", text: strings.ToUpper(v[:1]) + v[1:] + " an item."})
	}
	tools = append(tools,
		rtool{name: "create_item", kind: "create", text: "Create an item."},
		rtool{name: "change_item", kind: "update", text: "Change an item."},
		rtool{name: "take_off_item", kind: "custom", text: "Take an item off."})
	wantFirstActions(t, tools, careful, map[string]string{
		"Sadly the dog was put to sleep yesterday: the family must not get any more letters about jabs, but keep his history":     "stop",
		"The application has been approved: get her the permit so her builder can start":                                          key("create"),
		"Get the new patient {{knows.name}} in to see Dr Lee on Monday":                                                           "book",
		"The miles she earned never showed up on her account: put them on now, once only":                                         "add",
		"She hasn't paid yet, but she'd like to see her pictures and pick the ones she likes. Send her something to look through": "share",
		"The loan is ready to travel: get {{knows.name}}, our registrar, booked to go with it":                                    "book",
		"A new pupil starts on Monday: get him set up to ride the bus":                                                            "set up",
		"Ann has phoned in sick, so please get {{knows.name}} to do visit {{target.id}} instead":                                  "assign",
		"They have asked to keep the object on loan {{target.id}} for three more months":                                          "extend",
		"Nobody turned up for the visit: put it on record that the visit never happened":                                          "record",
		"The committee has a question: nothing more should happen with it until they have answered":                               "hold",
		"The reviewer has asked for two more weeks: let her have until {{knows.name}} for the review":                             "extend",
		"The lorry broke down: have the round go out tomorrow instead":                                                            "move",
		"The crew went past without emptying it. Put the miss on record so a crew comes back for it":                              "record",
		"Captain Lee has been sent for more tests. Until the doctor clears her she mustn't fly anything":                          "block",
		"Leave request {{target.id}} is for the wrong week now: she needs Monday to Friday off instead":                           "chang",
		"Ann is enjoying the club and would like twelve bottles in each box instead of six. Keep her the same member":             "chang",
		"The pairing is a first officer short: get {{knows.name}} ({{target.id}}) onto it in the first seat":                      "add",
		"Have the lab stop working on it until she has made up her mind":                                                          "stop",
		"She is abroad until the summer. Have that same recall come round in July instead":                                        "move",
		"The bridge is shut: have its runners set off at twenty past nine instead":                                                "move",
		"She wants to read it at home. Get a copy of it to her by email":                                                          "email",
		"She wants to read it at home. Get a copy of it to her":                                                                   "send",
		"The impressions are taken: get the work off to the lab":                                                                  "send",
		"They are behind on rent: keep them from getting into the unit until the balance is paid":                                 "block",
		"She still has the laptop. Drop her a friendly note asking her to bring it in":                                            "send",
	})
	for _, intent := range []string{
		"She wrote papers with the authors, so she can't review this one. Take her off this paper", // a reason
		"Change her booking to Monday; she must not be charged another deposit",                    // a constraint
	} {
		if got := actionVerbs(t, intent, tools, careful); len(got) > 0 && got[0] == "block" {
			t.Errorf("%q read as a block: %v", intent, got)
		}
	}
	if got := actionVerbs(t, "Get me the report on last month's sales", tools, careful); len(got) > 0 && got[0] == key("create") {
		t.Errorf("'get me the report' read as making one: %v", got)
	}
	r := newRelater(nil)
	for intent, sense := range map[string]string{
		"The miles never showed up on her account: put them on now":    "post",     // a ledger posts
		"The lorry broke down: have the round go out tomorrow instead": "postpone", // a later day puts it off
	} {
		if ins := parseIntent(intent, r.isAction, r); !slices.ContainsFunc(ins[0].senses, func(s verbSense) bool { return s.key == key(sense) }) {
			t.Errorf("%q lacks the sense %s: %+v", intent, sense, ins[0].senses)
		}
	}
}

// The tenth round's lexicon: a goal's verb reaches the tool that does it
// in other words — clear out empties, write up files, set up enrols, a log
// is a record, setting aside holds, keeping a suspect thing away
// quarantines, and send_payment pays (a carrying verb's -ment noun is the
// action; send_notice notices nothing).
func TestTenthRoundLexicon(t *testing.T) {
	careful := Builtin().Get("careful")
	for _, c := range []struct {
		goal        string
		right       rtool
		other       rtool
		leastAction float64
	}{
		{"Clear out everything in the bucket, but keep the bucket",
			rtool{name: "empty_bucket", kind: "custom", text: "Empty a bucket."}, rtool{name: "update_bucket", kind: "update", text: "Update a bucket."}, 0.5},
		{"Write up what we found as a report of its own",
			rtool{name: "file_report", kind: "create", text: "File a report."}, rtool{name: "update_report", kind: "update", text: "Update a report."}, 0.4},
		{"Get him set up to ride the bus",
			rtool{name: "enroll_rider", kind: "create", text: "Enroll a rider."}, rtool{name: "move_rider", kind: "custom", text: "Move a rider."}, 0.4},
		{"Put the miss on record so a crew comes back for it",
			rtool{name: "log_miss", kind: "custom", text: "Log a missed collection."}, rtool{name: "move_bin", kind: "custom", text: "Move a bin."}, 0.6},
		{"Nothing more should happen with it until they have answered",
			rtool{name: "park_manuscript", kind: "custom", text: "Set a manuscript aside while a query about it is looked into."}, rtool{name: "move_manuscript", kind: "custom", text: "Move a manuscript."}, 0.5},
		{"The sample may be contaminated: keep it away from testing until QA has looked at it",
			rtool{name: "quarantine_sample", kind: "custom", text: "Quarantine a sample."}, rtool{name: "discard_sample", kind: "custom", text: "Discard a sample."}, 0.3},
		{"Pay our new supplier 300 dollars by transfer",
			rtool{name: "send_payment", kind: "custom", text: "Send a payment."}, rtool{name: "dispute_charge", kind: "custom", text: "Dispute a charge."}, 0.6},
	} {
		if a := actionOf(t, c.goal, []rtool{c.right, c.other}, careful, c.right.name); a < c.leastAction {
			t.Errorf("%s's action %.2f for %q, want at least %.1f", c.right.name, a, c.goal, c.leastAction)
		}
	}
	if v := mentVerb(stems("send notice"), newRelater(nil)); v != "" {
		t.Errorf("send_notice read as the action %q", v)
	}
}

// A reader of the first sentence (the novice) stops at it; a reader of
// first lines (the baseline) reads on to its budget of words. A sentence
// that only sets the scene — a question the tool answers, a "Use this
// when" naming no action of the tool's — is read and passed by both.
func TestReadersOfTheFirstSentenceStopThere(t *testing.T) {
	if levelOf(Builtin().Get("novice").Traits.Attention) != seeLead || levelOf(Baseline().Attention) != seeFirst {
		t.Fatalf("novice reads at level %d, the baseline at %d", levelOf(Builtin().Get("novice").Traits.Attention), levelOf(Baseline().Attention))
	}
	_, m, _ := readerScores(t, "Stop filling it while she is in hospital", []rtool{
		{name: "hold_prescription", kind: "custom", text: "Hold a prescription. It is not filled until it is resumed, and it keeps its refills."},
		{name: "cancel_prescription", kind: "custom", text: "Cancel a prescription."},
	}, "", Builtin().Get("novice"))
	if lead, first := m.views[0][seeLead].seen, m.views[0][seeFirst].seen; len(lead) != 1 || len(first) != 2 {
		t.Errorf("the first sentence's reader saw %q, the first lines' reader %q", lead, first)
	}
	for text, want := range map[string]string{
		"Place going to sit empty for a while? Suspend supply at a property. Bills stop.":                       "Place going to sit empty for a while? Suspend supply at a property.",
		"Use this when a customer leaves the property for good. Supply and billing stop. A final bill is sent.": "Use this when a customer leaves the property for good. Supply and billing stop.",
		"Use this when you want to suspend supply at a property. No bills are raised.":                          "Use this when you want to suspend supply at a property.",
		"Hold a prescription. It keeps its refills.":                                                            "Hold a prescription.",
	} {
		if got := FirstSentence(text); got != want {
			t.Errorf("FirstSentence(%q) = %q, want %q", text, got, want)
		}
	}
}

// What the speaker says was already done ("so we had to call the lesson
// off") tells the situation, and a verb the goal negates ("it mustn't
// count … or be charged") is not what it asks: a goal that asks for
// nothing in the imperative does not take either for its action.
func TestWhatWasDoneIsNoRequest(t *testing.T) {
	tools := []rtool{
		{name: "cancel_lesson", kind: "custom", text: "Cancel a lesson."},
		{name: "mark_teacher_absent", kind: "custom", text: "Mark a lesson the teacher could not give, so it stays on record."},
	}
	for _, goal := range []string{
		"Her teacher was off sick today, so we had to call the lesson off at the last minute. It mustn't count as one of her lessons or be charged to the family, and it should stay on her record",
		"The teacher was ill, so we called the lesson off. It mustn't count as one of her lessons",
	} {
		for _, v := range actionVerbs(t, goal, tools, Builtin().Get("careful")) {
			if v == key("call off") || v == key("count") || v == key("charge") {
				t.Errorf("%q read as asking to %q", goal, v)
			}
		}
	}
	// An imperative after the report is still the request.
	if vs := actionVerbs(t, "The bike was stolen, so we had to cancel the ride. Refund the member", tools, Builtin().Get("careful")); len(vs) == 0 || vs[0] != key("refund") {
		t.Errorf("read as %q, want refund", vs)
	}
}

// What the goal rules out ("make sure nobody books new lessons with her",
// "don't deny it") is the opposite of what it asks: a tool whose name
// does it scores as an opposite does, whoever reads it; a tool that does
// the goal's own verb is not ruled out by "mustn't be charged twice".
func TestWhatTheGoalRulesOutIsAnOpposite(t *testing.T) {
	tools := []rtool{
		{name: "book_session", kind: "create", text: "Book a session."},
		{name: "freeze_tutor", kind: "custom", text: "Freeze a tutor."},
	}
	for _, p := range []string{"careful", "hasty"} {
		if a := actionOf(t, "She is ill for six weeks: make sure nobody books new lessons with her until she is better", tools, Builtin().Get(p), "book_session"); a >= 0 {
			t.Errorf("%s: book_session's action %.2f for a goal that says nobody books, want below 0", p, a)
		}
	}
	charge := []rtool{{name: "charge_card", kind: "custom", text: "Charge a card."}, {name: "refund_card", kind: "custom", text: "Refund a card."}}
	if a := actionOf(t, "Charge her card for the order; she mustn't be charged twice", charge, Builtin().Get("careful"), "charge_card"); a <= 0.5 {
		t.Errorf("charge_card's action %.2f for a goal that asks to charge", a)
	}
}

// heldoutWorld loads a world of the held-out suite.
func heldoutWorld(t *testing.T, name string) *engine.World {
	t.Helper()
	w, err := worlds.Resolve("testdata/heldout/worlds/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// likeliest is the tool a persona most likely picks first for a goal's
// first action, with its explanation.
func likeliest(ex Explanation) ToolExplanation {
	var best ToolExplanation
	for _, te := range ex.Actions[0].Tools {
		if te.Parts.P > best.Parts.P {
			best = te
		}
	}
	return best
}

// A phrasal idiom with its object inside ("take that notice back", "give
// them the 25 dollars back") is the idiom, as it is with the object after
// it: the reader hears the phrasal verb with the idiom's senses, withdraw
// and refund, not a stray "take" or "give".
func TestIdiomWithItsObjectInside(t *testing.T) {
	careful := Builtin().Get("careful")
	allot := heldoutWorld(t, "allotments")
	ex := newModel(t, allot, "terse").ExplainChoice(careful, allot.Goal("wrong_plot_notice"))
	if best := likeliest(ex); ex.Actions[0].Verb != key("take back") || best.Tool != "withdraw_notice" || best.Action == nil || best.Action.Relation != relSense.String() {
		t.Errorf("'take that notice back': verb %q, likeliest %s (p %.2f) through %+v; want take back, and withdraw_notice through the goal's sense", ex.Actions[0].Verb, best.Tool, best.Parts.P, best.Action)
	}
	don := heldoutWorld(t, "donations")
	ex = newModel(t, don, "clear").ExplainChoice(Builtin().Get("novice"), don.Goal("refund_double_charge"))
	if best := likeliest(ex); best.Tool != "refund_gift" || best.Action == nil || best.Action.Relation != relSense.String() {
		t.Errorf("'give them the dollars back': likeliest %s through %+v; want refund_gift through the goal's sense", best.Tool, best.Action)
	}
}

// "A repeated key returns the first credit" is what a call answers with:
// a goal that wants something given back does not find it in a create's
// idempotency key.
func TestCallReturnsIsOutput(t *testing.T) {
	w := heldoutWorld(t, "loyalty")
	ex := newModel(t, w, "clear").ExplainChoice(Builtin().Get("careful"), w.Goal("take_back_credit"))
	for _, te := range ex.Actions[0].Tools {
		if te.Tool == "post_partner_credit" && te.Action != nil {
			t.Errorf("post_partner_credit's key description gives it the goal's action: %+v", te.Action)
		}
	}
	if best := likeliest(ex); best.Tool != "reverse_credit" {
		t.Errorf("careful's likeliest tool is %s (p %.2f), want reverse_credit", best.Tool, best.Parts.P)
	}
}

// What a request asks, read from wordings batches 37 and 38's blind
// authors used:
//   - going on with what one has is what to keep, no second action ("when
//     she's back she wants to carry on with the same membership", "she wants
//     to stay on our recall list");
//   - doing a later one of the same thing instead puts it off ("run next
//     year's race on it instead of this one"); the verb of the thing done is
//     no action on it;
//   - putting a thing right corrects it, and having somebody do a thing asks
//     for what they are to do ("Have the same translator put just those two
//     names right"), not the "delivered" of the statement before it.
func TestWhatARequestAsks(t *testing.T) {
	careful := Builtin().Get("careful")
	for _, c := range []struct {
		tools []rtool
		cases map[string][]string
	}{
		{[]rtool{
			{name: "pause_membership", kind: "custom", text: "Pause a membership."},
			{name: "cancel_membership", kind: "custom", text: "Cancel a membership."},
			{name: "move_recall", kind: "custom", text: "Move a recall to another date."},
		}, map[string][]string{
			"Member {{target.id}} is off to work abroad for four months and won't ride at all while she's gone. Stop charging her for those months; when she's back she wants to carry on with the same membership, with her ride history and her points. She isn't leaving us": {"stop"},
			"Have that same recall come round in July instead, so her reminders go out before then; she doesn't want two lots of reminders, and she wants to stay on our recall list":                                                                                           {stem("move")},
		}},
		{[]rtool{
			{name: "withdraw_entry", kind: "custom", text: "Withdraw an entry from the race, as when a runner can't run."},
			{name: "defer_entry", kind: "custom", text: "Defer an entry to next year's race."},
		}, map[string][]string{
			"The runner on entry {{target.id}} can't run in April. She'd like to keep her place and run next year's race on it instead of this one": {stem("postpone")},
			"Book her onto the following term's course instead": {stem("postpone")},
		}},
		{[]rtool{
			{name: "reject_translation", kind: "custom", text: "Reject a delivered translation."},
			{name: "request_corrections", kind: "custom", text: "Request corrections to a delivered translation."},
		}, map[string][]string{
			"The translation delivered on job {{target.id}} is good apart from two product names she got wrong. Have the same translator put just those two names right: we keep the rest of her work": {"correct"},
		}},
		{[]rtool{
			{name: "cancel_appointment", kind: "custom", text: "Cancel an appointment."},
			{name: "reschedule_appointment", kind: "custom", text: "Move an appointment to another slot."},
		}, map[string][]string{
			// What she can do instead is what she asks: the same thing, at
			// another time.
			"The donor on appointment {{target.id}} has a meeting that clashes with her slot. She can come at {{target.name}} instead": {stem("move")},
			// The same, asked as a question.
			"A mum rang about lesson {{target.id}}: he has a mock exam that morning, so could the lesson be at {{target.name}} instead? Same instructor, just later": {stem("move")},
		}},
		{[]rtool{
			{name: "authorise_cremation", kind: "custom", text: "Authorise a cremation."},
			{name: "suspend_cremation", kind: "custom", text: "Suspend a cremation."},
		}, map[string][]string{
			// What must not go ahead is to be stopped; a reported wish
			// of others before it gives way to it.
			"Her son has rung to say he objects, and his sisters want to talk it through with him first. Until the family have settled it, the cremation on case {{target.id}} must not go ahead": {"stop"},
		}},
	} {
		wantActions(t, c.tools, careful, c.cases)
	}
}

// When no clause names its action where a verb goes, a word of a clause
// that asks something is read before one of a statement: "are being kept"
// describes the seats; it is not what the speaker asks.
func TestStatementWordIsNoFallbackAction(t *testing.T) {
	tools := []rtool{
		{name: "close_sales", kind: "custom", text: "Close sales for a screening."},
		{name: "keep_seats", kind: "custom", text: "Keep seats for a group."},
	}
	got := actionVerbs(t, "The rest of the seats at screening {{target.id}} are being kept for a school party, so don't let anybody else buy tickets for it", tools, Builtin().Get("careful"))
	if len(got) != 1 || got[0] == key("keep") {
		t.Errorf("actions %v: the statement's 'kept' is no request", got)
	}
}

// "…, as when her family moves abroad" gives a case the tool is for as a
// scene: a goal that tells that scene finds the tool there, even where the
// scene names no action the goal asks for. A scene the goal does not tell
// is no match.
func TestAsWhenGivesTheToolsCase(t *testing.T) {
	tools := []rtool{
		{name: "suspend_item", kind: "custom", text: "Suspend an item, as when a student is ill for a term: she keeps her place."},
		{name: "withdraw_item", kind: "custom", text: "Withdraw an item, as when her family moves abroad: her record is kept."},
	}
	careful := Builtin().Get("careful")
	intent := "Her family moves abroad next month; deal with item {{target.id}}" // a verb no tool names
	if a := actionOf(t, intent, tools, careful, "withdraw_item"); a <= 0 {
		t.Errorf("withdraw_item's 'as when her family moves abroad': action %.2f, want the scene's", a)
	}
	if a := actionOf(t, intent, tools, careful, "suspend_item"); a > 0 {
		t.Errorf("suspend_item's 'as when a student is ill for a term', a scene the goal does not tell: action %.2f, want 0", a)
	}
}

// What somebody did, told in the past ("{{name}} came in to give blood this
// morning", "the adjuster keyed the wrong amount"), is the situation a
// request answers, never the request; a clause that goes on past a comma
// reaches the request ("…, fix the claim"), and a thing changed to a value
// ("has changed her email address to …") is the value to put on record.
// A verb joined by "or" to a negated one is negated too ("she shouldn't be
// booked in or asked to come").
func TestNarratedEventIsNoRequest(t *testing.T) {
	tools := []rtool{
		{name: "defer_donor", kind: "custom", text: "Defer a donor until a date."},
		{name: "book_appointment", kind: "custom", text: "Book a donation appointment."},
		{name: "update_email", kind: "custom", text: "Change a member's email address."},
		{name: "correct_claim", kind: "custom", text: "Fix the amount on a claim."},
	}
	careful := Builtin().Get("careful")
	for intent, bad := range map[string]string{
		"{{target.name}} came in to give blood this morning but was sent home. She shouldn't be booked in or asked to come before June":         "come",
		"The adjuster keyed the wrong amount on claim {{target.id}}: the damage came to {{target.name}}, fix the claim so it shows that amount": "key",
	} {
		for _, v := range actionVerbs(t, intent, tools, careful) {
			if v == key(bad) || strings.HasPrefix(v, key(bad)+" ") {
				t.Errorf("%q: actions %v, read the narrated %q as the request", intent, actionVerbs(t, intent, tools, careful), bad)
			}
		}
	}
	if got := actionVerbs(t, "The adjuster keyed the wrong amount on claim {{target.id}}: the damage came to {{target.name}}, fix the claim so it shows that amount", tools, careful); len(got) != 1 || got[0] != key("fix") {
		t.Errorf("actions %v, want the request after the comma, fix", got)
	}
	if got := actionVerbs(t, "{{target.name}} has changed her email address to {{target.name}}. Make sure her bills go there from now on", tools, careful); len(got) == 0 || got[0] != key("change") {
		t.Errorf("actions %v, want the change to a value, change", got)
	}
}

// What a goal says to keep, and says nowhere else, is no part of the
// situation it is in: "keep the signed forms and the certificates on
// file" does not tell the scene of a tool "for when the forms are signed
// and the certificates are in". A word the goal says outside its keep too
// ("withdraw claim …, but keep the claim file") still does.
func TestKeptThingsAreNoSituation(t *testing.T) {
	tools := []rtool{
		{name: "authorise_cremation", kind: "custom", text: "Authorise a cremation, as when the family has signed the forms and the certificates are in."},
		{name: "suspend_cremation", kind: "custom", text: "Suspend a cremation, as when a relative objects."},
	}
	careful := Builtin().Get("careful")
	intent := "Deal with the cremation on case {{target.id}}. Keep the signed forms and the certificates on file"
	if a := actionOf(t, intent, tools, careful, "authorise_cremation"); a > 0 {
		t.Errorf("authorise_cremation's scene told only by what the goal keeps: action %.2f, want 0", a)
	}
	closeTools := []rtool{
		{name: "close_claim", kind: "custom", text: "Close a claim. Use this when a claimant withdraws a claim."},
		{name: "delete_claim", kind: "custom", text: "Delete a claim."},
	}
	if a := actionOf(t, "{{target.name}} called to withdraw claim {{target.id}}: take it off the open queue, but keep the claim file", closeTools, careful, "close_claim"); a <= 0 {
		t.Errorf("close_claim's 'Use this when a claimant withdraws a claim', the claim said outside the keep too: action %.2f, want the situation's", a)
	}
}

// "Hold" is a reservation's word less surely than "reserve": a job, an
// entry or a payment put on hold is paused, not booked, so a booking goal
// reads a hold tool as a weak match of its verb.
func TestHoldIsAWeakBooking(t *testing.T) {
	tools := []rtool{
		{name: "hold_job", kind: "custom", text: "Put a job on hold while it waits for a part."},
		{name: "create_job", kind: "custom", text: "Book a bike in for a new job."},
	}
	careful := Builtin().Get("careful")
	intent := "{{target.name}} is bringing her bike in for a service. Get her booked in"
	hold, create := actionOf(t, intent, tools, careful, "hold_job"), actionOf(t, intent, tools, careful, "create_job")
	if hold >= 0.5 || create < 0.9 {
		t.Errorf("book: hold_job's action %.2f, want below 0.5; create_job's %.2f, want the verb's", hold, create)
	}
}

// A past tense after a subject is a verb the general layer folds (came,
// rang), one ending in -ed, or one of the past tenses that are lemmas of
// their own (fell); a form of be, have or do tells a state.
func TestPastTense(t *testing.T) {
	for w, want := range map[string]bool{
		"came": true, "rang": true, "sent": true, "keyed": true, "fell": true,
		"was": false, "had": false, "did": false, "stays": false, "children": false,
	} {
		if got := pastTense(w); got != want {
			t.Errorf("pastTense(%q) = %v, want %v", w, got, want)
		}
	}
}
