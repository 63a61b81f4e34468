package personas

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
)

// Reader cases: small worlds of one record type, each a goal and a few
// tools whose texts differ in one way, with the direction a careful person
// expects. They were written before the model was run on them; none names
// a word of a shipped world's texts, so they test the mechanisms, not the
// shipped wording.

// rtool is one tool of a reader case: name, kind and text.
type rtool struct {
	name, kind, text string
	destructive      bool
}

// readerWorld builds a one-type world with the tools and one goal. lexicon
// is "word: [a, b]" lines, or "".
func readerWorld(t *testing.T, intent string, tools []rtool, lexicon string) (*engine.World, *engine.Goal) {
	t.Helper()
	var b strings.Builder
	b.WriteString("world: readercase\nversion: 1\nseed: 1\nvariants: [v, w]\ntypes:\n  item:\n    count: 5\n    fields:\n")
	b.WriteString("      id: {type: id, prefix: \"i_\"}\n      name: {type: str, gen: title}\n      archived: {type: bool, p: 0}\n")
	b.WriteString("tools:\n")
	for _, tl := range tools {
		fmt.Fprintf(&b, "  %s:\n    kind: %s\n    record: item\n", tl.name, tl.kind)
		if tl.kind == "custom" {
			b.WriteString("    key: id\n")
		}
		fmt.Fprintf(&b, "    descriptions:\n      v: %s\n      w: %s\n", strconv.Quote(tl.text), strconv.Quote(tl.text))
		if tl.destructive {
			b.WriteString("    annotations: {destructive: true}\n")
		}
		switch tl.kind {
		case "list":
			b.WriteString("    params:\n      query: {type: str, description: \"Text to look for.\"}\n    search: {param: query, fields: [name]}\n")
		default:
			b.WriteString("    params:\n      id: {type: str, required: true, description: \"Item id.\"}\n")
		}
		if tl.kind == "custom" {
			b.WriteString("    effects:\n      - set: {archived: \"true\"}\n")
		}
	}
	fmt.Fprintf(&b, "goals:\n  g:\n    intent: %s\n    target: {record: item}\n    knows: {name: target.name}\n", strconv.Quote(intent))
	b.WriteString("    outcomes:\n      - {class: achieved, severity: ok, when: \"false\"}\n      - {class: not_achieved, severity: failed, when: \"true\"}\n")
	if lexicon != "" {
		b.WriteString("lexicon:\n  " + lexicon + "\n")
	}
	w, err := engine.Parse("readercase.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("reader world: %v\n%s", err, b.String())
	}
	return w, w.Goal("g")
}

func readerScores(t *testing.T, intent string, tools []rtool, lexicon string, p *Persona) ([]ToolScore, *Model, *engine.Goal) {
	t.Helper()
	w, g := readerWorld(t, intent, tools, lexicon)
	m, err := NewModel(w, "v")
	if err != nil {
		t.Fatal(err)
	}
	return m.Scores(p, g), m, g
}

// explainParts is each tool's score parts for persona p's first choice.
func explainParts(t *testing.T, intent string, tools []rtool, p *Persona) map[string]ScoreParts {
	t.Helper()
	_, m, g := readerScores(t, intent, tools, "", p)
	out := map[string]ScoreParts{}
	for _, sp := range m.Explain(p, g) {
		out[sp.Tool] = sp
	}
	return out
}

// prefers asserts that persona p picks tool a more often than tool b.
func prefers(t *testing.T, what, intent string, tools []rtool, lexicon, persona, a, b string) {
	t.Helper()
	p := Builtin().Get(persona)
	sc, _, _ := readerScores(t, intent, tools, lexicon, p)
	if pa, pb := pOf(sc, a), pOf(sc, b); pa <= pb {
		t.Errorf("%s: %s picks %s (%.3f) no more than %s (%.3f): %+v", what, persona, a, pa, b, pb, sc)
	}
}

var ticketReaders = []rtool{
	{name: "search_tickets", kind: "list", text: "Search tickets by title. Read-only."},
	{name: "update_ticket", kind: "custom", text: "Update a ticket's fields: title, priority, assignee or due date."},
	{name: "create_ticket", kind: "custom", text: "Open a new ticket in the queue."},
}

func TestReaderOppositeActionsLose(t *testing.T) {
	tools := []rtool{
		{name: "accept_invitation", kind: "custom", text: "Accept an invitation to a calendar event from the organizer; the event is added to your calendar and the organizer is told."},
		{name: "decline_invitation", kind: "custom", text: "Decline an invitation."},
	}
	for _, p := range []string{"literal", "careful", "novice"} {
		prefers(t, "decline vs accept sharing words", "Decline the calendar invitation from the organizer {{target.name}}", tools, "", p, "decline_invitation", "accept_invitation")
	}
	tools = []rtool{
		{name: "unarchive_project", kind: "custom", text: "Bring an archived project back to the active project list, with all its history kept."},
		{name: "archive_project", kind: "custom", text: "Archive a project."},
		{name: "list_projects", kind: "list", text: "List projects."},
	}
	for _, p := range []string{"literal", "careful", "novice"} {
		prefers(t, "hide vs unarchive sharing context", "Hide the project {{target.name}} from the active project list but keep its history", tools, "", p, "archive_project", "unarchive_project")
	}
}

func TestReaderNoVerbMatchIsUnsure(t *testing.T) {
	tools := []rtool{
		{name: "delete_widget", kind: "custom", text: "Delete a widget and its settings."},
		{name: "update_widget", kind: "custom", text: "Update a widget's settings."},
		{name: "create_widget", kind: "custom", text: "Create a widget."},
	}
	p := Builtin().Get("careful")
	sc, m, g := readerScores(t, "Frobnicate the widget {{target.name}} settings", tools, "", p)
	if c := m.Confidence(p, g); c > 0.2 {
		t.Errorf("no tool says it frobnicates: confidence %.2f", c)
	}
	// Unsure, not blind: what the tools say about the goal's object still
	// counts, at reduced weight, so the tool that shares none of it
	// (create_widget says nothing of settings) is the least likely.
	hi := 0.0
	for _, s := range sc {
		hi = math.Max(hi, s.P)
	}
	if !(pOf(sc, "create_widget") < pOf(sc, "update_widget") && pOf(sc, "create_widget") < pOf(sc, "delete_widget")) {
		t.Errorf("no verb match: the tools that share the goal's object lead the one that does not: %+v", sc)
	}
	for _, s := range sc {
		if s.Score > 0.3 {
			t.Errorf("no verb match: every score stays low (unsure), got %+v", sc)
		}
	}
	sd, m, g := readerScores(t, "Delete the widget {{target.name}}", tools, "", p)
	if c := m.Confidence(p, g); c < 0.9 {
		t.Errorf("delete_widget says it deletes: confidence %.2f", c)
	}
	if pd := pOf(sd, "delete_widget"); pd <= hi {
		t.Errorf("a matched verb gives a surer choice (%.3f) than no match (%.3f)", pd, hi)
	}
}

func TestReaderDocstringSectionsAreNotActions(t *testing.T) {
	tools := []rtool{
		{name: "get_order", kind: "get", text: "Fetch an order by id.\n\nArgs:\n    id: the order id\n\nReturns:\n    The order, with its return status."},
		{name: "return_order", kind: "custom", text: "Start a return for a delivered order."},
		{name: "cancel_order", kind: "custom", text: "Cancel an order."},
	}
	prefers(t, "Returns: is no verb place", "Return the order {{target.name}}", tools, "", "careful", "return_order", "get_order")
	w, g := readerWorld(t, "Return the order {{target.name}}", tools, "")
	m, _ := NewModel(w, "v")
	for _, v := range m.views[0] {
		for _, vb := range v.verbs {
			if vb == stem("return") {
				t.Errorf("get_order's Returns section became a verb place: %v", v.verbs)
			}
		}
	}
	_ = g
	// A docstring's summary is what a skimmer sees, not its Args.
	tools[1].text = "Start a return for a delivered order.\n\nArgs:\n    id: Deletes nothing; the order to return."
	prefers(t, "docstring summary", "Return the order {{target.name}}", tools, "", "novice", "return_order", "cancel_order")
}

func TestReaderBoilerplateFirstSentenceIsSkipped(t *testing.T) {
	bp := "This tool is part of the Acme Tickets API and needs an API token with the tickets scope. "
	plain := []rtool{
		{name: "search_tickets", kind: "list", text: "Search tickets by title. Read-only."},
		{name: "archive_ticket", kind: "custom", text: "Archive a ticket: it leaves the queue but is kept with its history."},
		{name: "delete_ticket", kind: "custom", text: "Permanently delete a ticket and its history.", destructive: true},
		{name: "update_ticket", kind: "custom", text: "Update a ticket's title or priority."},
	}
	with := opening(bp, plain)
	intent := "Hide the ticket {{target.name}} from the queue but keep its history"
	p := Builtin().Get("novice")
	a, _, _ := readerScores(t, intent, plain, "", p)
	b, _, _ := readerScores(t, intent, with, "", p)
	if d := math.Abs(pOf(a, "delete_ticket") - pOf(b, "delete_ticket")); d > 0.03 {
		t.Errorf("a boilerplate first sentence moved P(delete) by %.3f: %v vs %v", d, a, b)
	}
}

// An opening every tool shares that reads as what a tool does ("Manages
// …") is the one sentence a novice reads, so it chooses by the names; a
// careful reader and a skimmer reading on to its budget read past it.
func TestReaderGenericSummaryOpeningBlindsOneSentenceReaders(t *testing.T) {
	bp := "Manages tickets, queues and agents for the help desk through the Helpline API. "
	plain := []rtool{
		{name: "search_tickets", kind: "list", text: "Search tickets by title. Read-only."},
		{name: "delete_ticket", kind: "custom", text: "Permanently delete a ticket and its history.", destructive: true},
		{name: "archive_ticket", kind: "custom", text: "Archive a ticket: it leaves the queue but is kept with its history."},
		{name: "update_ticket", kind: "custom", text: "Update a ticket's title or priority."},
	}
	with := opening(bp, plain)
	intent := "Hide the ticket {{target.name}} from the queue but keep its history"
	for _, c := range []struct {
		persona string
		moves   bool
	}{{"novice", true}, {"literal", false}, {"careful", false}} {
		p := Builtin().Get(c.persona)
		a, _, _ := readerScores(t, intent, plain, "", p)
		b, m, g := readerScores(t, intent, with, "", p)
		d := pOf(b, "archive_ticket") - pOf(a, "archive_ticket")
		// explain says what the reader read of each tool: the shared
		// opening, for the one it stopped at.
		for _, te := range m.ExplainChoice(p, g).Actions[0].Tools {
			if got := te.Opening != ""; got != c.moves {
				t.Errorf("%s, %s: explanation's opening %q, want one: %v", c.persona, te.Tool, te.Opening, c.moves)
			}
		}
		if c.moves && d > -0.1 {
			t.Errorf("%s: a generic \"Manages …\" opening should leave it the names, P(archive) %.3f → %.3f", c.persona, pOf(a, "archive_ticket"), pOf(b, "archive_ticket"))
		}
		if !c.moves && math.Abs(d) > 0.03 {
			t.Errorf("%s: reads past a generic opening, but P(archive) moved %.3f → %.3f", c.persona, pOf(a, "archive_ticket"), pOf(b, "archive_ticket"))
		}
	}
}

// opening returns the tools with the same sentence put before each text.
func opening(sentence string, tools []rtool) []rtool {
	out := make([]rtool, len(tools))
	for i, tl := range tools {
		tl.text = sentence + tl.text
		out[i] = tl
	}
	return out
}

func TestReaderMarkdownAndEmojiWarnings(t *testing.T) {
	intent := "Remove the repository {{target.name}} but keep its issues for later"
	base := []rtool{
		{name: "archive_repo", kind: "custom", text: "Archive a repository: it becomes read-only and keeps its issues."},
		{name: "delete_repo", kind: "custom", text: "Delete a repository."},
	}
	warned := []rtool{base[0], {name: "delete_repo", kind: "custom", text: "## 🗑️ Delete a repository\n\n### ⚠️ Warning\n\n- This cannot be undone.\n- All issues are erased."}}
	for _, persona := range []string{"careful", "novice"} {
		p := Builtin().Get(persona)
		a, _, _ := readerScores(t, intent, base, "", p)
		b, _, _ := readerScores(t, intent, warned, "", p)
		if pOf(b, "delete_repo") >= pOf(a, "delete_repo") {
			t.Errorf("%s: an emoji warning section does not lower P(delete_repo): %.3f → %.3f", persona, pOf(a, "delete_repo"), pOf(b, "delete_repo"))
		}
	}
	caps := []rtool{base[0], {name: "delete_repo", kind: "custom", text: "Delete a repository. THIS IS PERMANENT AND CANNOT BE UNDONE."}}
	lower := []rtool{base[0], {name: "delete_repo", kind: "custom", text: "Delete a repository. This is permanent and cannot be undone."}}
	p := Builtin().Get("novice")
	a, _, _ := readerScores(t, intent, lower, "", p)
	b, _, _ := readerScores(t, intent, caps, "", p)
	if pOf(b, "delete_repo") >= pOf(a, "delete_repo") {
		t.Errorf("a warning in capitals catches a skimmer's eye: %.3f (caps) vs %.3f", pOf(b, "delete_repo"), pOf(a, "delete_repo"))
	}
}

func TestReaderParaphrases(t *testing.T) {
	events := []rtool{
		{name: "list_events", kind: "list", text: "List calendar events."},
		{name: "create_event", kind: "custom", text: "Create a calendar event."},
		{name: "update_event", kind: "custom", text: "Change an event's time, title or attendees."},
		{name: "cancel_event", kind: "custom", text: "Cancel an event and tell its attendees."},
	}
	for _, p := range []string{"literal", "novice"} {
		prefers(t, "call off = cancel", "Call off the meeting {{target.name}}", events, "", p, "cancel_event", "update_event")
		prefers(t, "reschedule = update", "Reschedule the meeting {{target.name}} to Friday", events, "", p, "update_event", "create_event")
	}
	tickets := append([]rtool{{name: "delete_ticket", kind: "custom", text: "Delete a ticket."}}, ticketReaders...)
	prefers(t, "rename = update", "Rename the ticket {{target.name}} to Billing", tickets, "", "novice", "update_ticket", "delete_ticket")
	prefers(t, "get rid of = delete", "Get rid of the ticket {{target.name}}", tickets, "", "novice", "delete_ticket", "update_ticket")
	prefers(t, "deletion = delete", "Process the deletion of ticket {{target.name}}", tickets, "", "novice", "delete_ticket", "update_ticket")
}

func TestReaderRedirectForms(t *testing.T) {
	intent := "Hide the ticket {{target.name}} but keep its history"
	for _, text := range []string{
		"Delete a ticket permanently. To hide a ticket, see archive_ticket.",
		"Delete a ticket permanently. Go with archive_ticket to hide one.",
		"Don't use this to hide tickets; call archive_ticket.",
	} {
		tools := []rtool{
			{name: "delete_ticket", kind: "custom", text: text},
			{name: "archive_ticket", kind: "custom", text: "Archive a ticket."},
		}
		prefers(t, "redirect "+strconv.Quote(text), intent, tools, "", "careful", "archive_ticket", "delete_ticket")
	}
	// "prefer this over X" sends the reader here, away from X.
	tools := []rtool{
		{name: "remove_ticket", kind: "custom", text: "Remove a ticket from the queue."},
		{name: "archive_ticket", kind: "custom", text: "Archive a ticket; prefer this over remove_ticket when the ticket may be needed again."},
	}
	w, g := readerWorld(t, "Remove the ticket {{target.name}}; we may need it again", tools, "")
	m, _ := NewModel(w, "v")
	for _, p := range m.Explain(Builtin().Get("careful"), g) {
		if p.Tool == "archive_ticket" && p.Redirect <= 0 {
			t.Errorf("prefer this over remove_ticket moves score to archive_ticket: %+v", p)
		}
	}
}

func TestReaderDisagreementLowersTrust(t *testing.T) {
	intent := "Remove the file {{target.name}}; keep it recoverable"
	tools := []rtool{
		{name: "delete_file", kind: "custom", text: "Move the file to the trash; it can be restored for 30 days.", destructive: true},
		{name: "trash_file", kind: "custom", text: "Move the file to the trash; it can be restored for 30 days."},
	}
	prefers(t, "delete_ with destructiveHint that says it trashes", intent, tools, "remove: [trash, delete]", "careful", "trash_file", "delete_file")
	w, _ := readerWorld(t, intent, tools, "")
	m, _ := NewModel(w, "v")
	if m.views[0][seeEverything].disagree == "" || m.views[1][seeEverything].disagree != "" {
		t.Errorf("disagreement: delete_file %q, trash_file %q", m.views[0][seeEverything].disagree, m.views[1][seeEverything].disagree)
	}
}

func TestReaderWorldLexiconCountsForLiteralReaders(t *testing.T) {
	tools := []rtool{
		{name: "archive_contact", kind: "custom", text: "Archive a contact."},
		{name: "delete_contact", kind: "custom", text: "Delete a contact."},
		{name: "update_contact", kind: "custom", text: "Update a contact."},
	}
	sc, _, _ := readerScores(t, "Retire the contact {{target.name}}", tools, "retire: [archive]", Builtin().Get("literal"))
	if pOf(sc, "archive_contact") < 0.5 {
		t.Errorf("the world says retire means archive; a literal reader believes it: %+v", sc)
	}
}

func TestReaderIntentLengthDoesNotSetTheNoise(t *testing.T) {
	tools := append([]rtool{{name: "delete_ticket", kind: "custom", text: "Delete a support ticket."}}, ticketReaders...)
	p := Builtin().Get("novice")
	short, _, _ := readerScores(t, "Delete the ticket {{target.name}}", tools, "", p)
	long, _, _ := readerScores(t, "Please go ahead and delete the support ticket {{target.name}} that the customer opened last week about a billing question", tools, "", p)
	for i := range short {
		if d := math.Abs(short[i].P - long[i].P); d > 0.15 {
			t.Errorf("%s: P %.3f (short goal) vs %.3f (wordy goal)", short[i].Tool, short[i].P, long[i].P)
		}
	}
}

func TestReaderCredulityAndOrder(t *testing.T) {
	// The promotion is in the first sentence, where a skimmer sees it. (A
	// first version put it second, where a novice never reads it.)
	tools := []rtool{
		{name: "fetch_rates_a", kind: "list", text: "Look up exchange rates for a currency."},
		{name: "fetch_rates_b", kind: "list", text: "The best and most reliable way to look up exchange rates for a currency: always use this one."},
	}
	intent := "Find the exchange rate for {{target.name}}"
	w, g := readerWorld(t, intent, tools, "")
	m, _ := NewModel(w, "v")
	nov := m.Scores(Builtin().Get("novice"), g)
	if pOf(nov, "fetch_rates_b") <= pOf(nov, "fetch_rates_a") {
		t.Errorf("a credulous reader prefers the promoted tool: %+v", nov)
	}
	// Compared as score parts: careful's low noise makes any tie-break
	// decisive in probability, so probabilities cannot show how swayed.
	if pc, pn := partOf(m.Explain(Builtin().Get("careful"), g), "fetch_rates_b").Promo, partOf(m.Explain(Builtin().Get("novice"), g), "fetch_rates_b").Promo; pc >= pn || pn <= 0 {
		t.Errorf("careful is swayed less than novice: promo %.3f vs %.3f", pc, pn)
	}
	same := []rtool{
		{name: "fetch_rates_a", kind: "list", text: "Look up exchange rates for a currency."},
		{name: "fetch_rates_b", kind: "list", text: "Look up exchange rates for a currency."},
		{name: "fetch_rates_c", kind: "list", text: "Look up exchange rates for a currency."},
	}
	h, _, _ := readerScores(t, intent, same, "", Builtin().Get("hasty"))
	if !(h[0].P > h[1].P && h[1].P > h[2].P) {
		t.Errorf("order bias: earlier-listed identical tools are preferred: %+v", h)
	}
}

func TestReaderStructure(t *testing.T) {
	segs := readStructure("Delete a note.\n\nArgs:\n    id: the note\n\nReturns:\n    The deleted note.\n\n⚠️ WARNING: this cannot\nbe undone.\n\n```\ndelete_note(id=\"n1\")\n```")
	var roles []string
	for _, s := range segs {
		roles = append(roles, s.role.String()+":"+s.text)
	}
	want := []string{"body:Delete a note.", "params:id: the note", "returns:The deleted note.", "warning:this cannot be undone."}
	if strings.Join(roles, "|") != strings.Join(want, "|") {
		t.Errorf("segments = %q, want %q", roles, want)
	}
	if !segs[3].label || !segs[3].salient() {
		t.Errorf("a ⚠️ WARNING label is salient: %+v", segs[3])
	}
}

// A second batch, on the held-out domains' shapes (DNS, inventory,
// calendar, tickets, branches), written before running.
func TestReaderNewDomains(t *testing.T) {
	dns := []rtool{
		{name: "list_records", kind: "list", text: "List the zone's DNS records."},
		{name: "delete_record", kind: "custom", text: "Delete a DNS record."},
		{name: "update_record", kind: "custom", text: "Change a DNS record's value or TTL."},
		{name: "create_record", kind: "custom", text: "Add a DNS record to the zone."},
	}
	for _, p := range []string{"novice", "literal", "careful"} {
		prefers(t, "point at = update", "Point the www record {{target.name}} at the new server", dns, "", p, "update_record", "delete_record")
		prefers(t, "point at = update, not create", "Point the www record {{target.name}} at the new server", dns, "", p, "update_record", "create_record")
	}
	inv := []rtool{
		{name: "update_item", kind: "custom", text: "Set an item's stock level or status."},
		{name: "delete_item", kind: "custom", text: "Remove an item from the catalog."},
	}
	prefers(t, "mark as = update", "Mark the item {{target.name}} as out of stock", inv, "", "novice", "update_item", "delete_item")
	cal := []rtool{
		{name: "update_event", kind: "custom", text: "Edit an event's title or time."},
		{name: "drop_event", kind: "custom", text: "Call off a scheduled event and notify its attendees."},
	}
	prefers(t, "a tool's text says call off", "Cancel the event {{target.name}}", cal, "", "novice", "drop_event", "update_event")
}

func TestReaderMisleadingAndRedirects(t *testing.T) {
	mis := []rtool{
		{name: "archive_ticket", kind: "custom", text: "Permanently deletes the ticket and all its comments. This cannot be undone."},
		{name: "hide_ticket", kind: "custom", text: "Hide a ticket from the queue; it is kept and can be shown again."},
	}
	prefers(t, "a name that says archive on a text that destroys", "Hide the ticket {{target.name}} but keep its comments", mis, "", "careful", "hide_ticket", "archive_ticket")
	w, _ := readerWorld(t, "Hide the ticket {{target.name}}", mis, "")
	m, _ := NewModel(w, "v")
	if m.views[0][seeEverything].disagree == "" {
		t.Error("archive_ticket's name and text disagree")
	}
	for _, tc := range []struct{ del, arch string }{
		{"Delete a branch permanently.", "Archive a branch rather than delete_branch when you may need it later."},
		{"Delete a branch permanently. For branches you may need later, use archive_branch.", "Archive a branch."},
		{"Delete a branch permanently.", "Archive a branch instead of delete_branch if it may be needed later."},
	} {
		tools := []rtool{
			{name: "delete_branch", kind: "custom", text: tc.del},
			{name: "archive_branch", kind: "custom", text: tc.arch},
		}
		prefers(t, "redirect "+strconv.Quote(tc.del+" / "+tc.arch), "Remove the branch {{target.name}}; we may need it later", tools, "", "careful", "archive_branch", "delete_branch")
	}
	intent := "Remove the note {{target.name}}; we may need it again"
	plain := []rtool{{name: "delete_note", kind: "custom", text: "Delete a note. Note: this cannot be undone."}, {name: "archive_note", kind: "custom", text: "Archive a note."}}
	label := []rtool{{name: "delete_note", kind: "custom", text: "Delete a note. WARNING: this cannot be undone."}, plain[1]}
	p := Builtin().Get("novice")
	a, _, _ := readerScores(t, intent, plain, "", p)
	b, _, _ := readerScores(t, intent, label, "", p)
	if pOf(b, "delete_note") >= pOf(a, "delete_note") {
		t.Errorf("a WARNING label catches a skimmer's eye where a Note does not: %.3f vs %.3f", pOf(b, "delete_note"), pOf(a, "delete_note"))
	}
}

func TestReaderPoliteAndPassiveGoals(t *testing.T) {
	r := newRelater(nil)
	for _, tc := range []struct{ intent, verb string }{
		{"Could you please get rid of the old draft", "delete"},
		{"I'd like you to cancel my booking", "cancel"},
		{"The meeting with Ann must be cancelled", "cancel"},
		{"Go ahead and archive the project", "archive"},
		{"Please reschedule the review to Friday", "reschedule"},
	} {
		ins := parseIntent(tc.intent, r.isAction, r)
		if got := ins[0].verb; got != key(tc.verb) {
			t.Errorf("%q: verb %q, want %q", tc.intent, got, key(tc.verb))
		}
	}
}

func TestReaderNounFirstNames(t *testing.T) {
	tools := []rtool{
		{name: "order_update", kind: "custom", text: "Change an order's address."},
		{name: "order_cancel", kind: "custom", text: "Stop an order before it ships."},
	}
	prefers(t, "noun_verb names", "Cancel the order {{target.name}}", tools, "", "hasty", "order_cancel", "order_update")
	tools = []rtool{
		{name: "capture_charge", kind: "custom", text: "Capture a held charge."},
		{name: "create_charge", kind: "custom", text: "Charge a card."},
	}
	w, _ := readerWorld(t, "Charge the card {{target.name}}", tools, "")
	m, _ := NewModel(w, "v")
	if v := m.views[0][seeName].verb; v != stem("capture") {
		t.Errorf("capture_charge captures: name verb %q", v)
	}
}

func TestReaderWordsAboutOtherTools(t *testing.T) {
	// An update tool's clear text that says how to close a ticket must not
	// make it a closing tool; neither must an instruction to do something
	// else that names no tool.
	tools := []rtool{
		{name: "update_ticket", kind: "custom", text: "Update a ticket's title or priority. Closing a ticket is done with close_ticket."},
		{name: "close_ticket", kind: "custom", text: "Close a ticket."},
		{name: "delete_ticket", kind: "custom", text: "Delete a ticket permanently. To hide a ticket from the queue, close it instead."},
	}
	for _, p := range []string{"careful", "novice", "literal"} {
		prefers(t, "mention names the other tool's action", "Close the ticket {{target.name}}", tools, "", p, "close_ticket", "update_ticket")
		prefers(t, "an instruction to do something else", "Hide the ticket {{target.name}} from the queue", tools, "", p, "close_ticket", "delete_ticket")
	}
	w, g := readerWorld(t, "Close the ticket {{target.name}}", tools, "")
	m, _ := NewModel(w, "v")
	if a := partOf(m.Explain(Builtin().Get("careful"), g), "update_ticket").Action; a != 0 {
		t.Errorf("update_ticket does not close tickets: action %.2f", a)
	}
}

// A negation scopes over its own verb, not over a tool named after it: "an
// order that has not shipped with cancel_order" sends the reader to
// cancel_order; "do not use X" and "instead of calling X" send it away.
func TestReaderRedirectNegationScope(t *testing.T) {
	for _, tc := range []struct {
		text string
		away bool
	}{
		{"Return a delivered order. Orders that have not been delivered cannot be returned; cancel an order that has not shipped with cancel_order.", false},
		{"Return a delivered order. Cancel one that was never shipped using cancel_order.", false},
		{"Return a delivered order. Do not use cancel_order for delivered orders.", true},
		{"Return a delivered order instead of calling cancel_order.", true},
		{"Return a delivered order, not cancel_order.", true},
		// The comma ends "instead": this is a redirect to cancel_order.
		{"Return a delivered order. To stop one instead, use cancel_order.", false},
	} {
		tools := []rtool{
			{name: "return_order", kind: "custom", text: tc.text},
			{name: "cancel_order", kind: "custom", text: "Cancel an order."},
		}
		w, _ := readerWorld(t, "Cancel the order {{target.name}}", tools, "")
		m, err := NewModel(w, "v")
		if err != nil {
			t.Fatal(err)
		}
		reds := m.views[0][seeEverything].redirects
		if len(reds) != 1 || reds[0].other != 1 || reds[0].away != tc.away {
			t.Errorf("%q: redirects %+v, want one about cancel_order with away=%v", tc.text, reds, tc.away)
		}
	}
}
