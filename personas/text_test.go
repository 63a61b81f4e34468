package personas

import (
	"reflect"
	"testing"
)

func TestStemJoinsWordForms(t *testing.T) {
	same := [][]string{
		{"hide", "hides", "hidden", "hiding"},
		{"archive", "archived", "archives", "archiving"},
		{"delete", "deleting", "deleted", "deletes"},
		{"keep", "keeps", "kept", "keeping"},
		{"refund", "refunds", "refunded"},
		{"reply", "replies", "replied"},
		{"stop", "stopped", "stopping"},
		{"contact", "contacts"},
		{"permanent", "permanently"},
		{"undo", "undone"},
	}
	for _, group := range same {
		want := stem(group[0])
		for _, w := range group[1:] {
			if got := stem(w); got != want {
				t.Errorf("stem(%q) = %q, want %q (as stem(%q))", w, got, want, group[0])
			}
		}
	}
	// Words that must stay apart.
	if stem("address") == stem("add") || stem("status") == stem("stat") || stem("only") == stem("on") {
		t.Errorf("over-stemming: address→%q status→%q only→%q", stem("address"), stem("status"), stem("only"))
	}
}

func TestTokenizeStopWordsContractionsAndToolMentions(t *testing.T) {
	tools := map[string]int{"archive_contact": 3}
	got := tokenize("Use archive_contact instead; this can't be undone and CANNOT be undone.", tools)
	want := []token{
		{word: "use", tool: -1}, {tool: 3}, {word: "instead", tool: -1},
		{word: "not", tool: -1}, {word: "undo", tool: -1},
		{word: "not", tool: -1}, {word: "undo", tool: -1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tokenize =\n %+v\nwant\n %+v", got, want)
	}
	if got := stems("delete_contact and list_contacts"); !reflect.DeepEqual(got, []string{"delet", "contact", "list", "contact"}) {
		t.Errorf("underscored words that name no tool are split: %v", got)
	}
}

func TestSentences(t *testing.T) {
	got := sentences("Fetch one contact by id, e.g. c_0042. Read-only; use search_contacts to find someone. Last")
	want := []string{"Fetch one contact by id, e.g. c_0042.", "Read-only;", "use search_contacts to find someone.", "Last"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sentences = %q, want %q", got, want)
	}
	// A docstring's summary line ends at its line break; "vs." and "etc."
	// end nothing.
	got = sentences("List notes\n\nArgs: owner, whose notes. Compare a vs. b, etc. and more!")
	want = []string{"List notes", "Args: owner, whose notes.", "Compare a vs. b, etc. and more!"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sentences = %q, want %q", got, want)
	}
	if got := FirstSentence("  Delete it permanently! It cannot be undone."); got != "Delete it permanently!" {
		t.Errorf("FirstSentence = %q", got)
	}
	if got := sentences(""); len(got) != 0 {
		t.Errorf("no sentences in an empty description, got %q", got)
	}
}

// A placeholder leaves a mark that is no word (valueMark), so that a reader
// still sees a value follows ("down to {{n}}").
func TestRemovePlaceholders(t *testing.T) {
	got := removePlaceholders("Hide {{target.name}} from the list, keep {{knows.x}}")
	if want := "Hide " + valueMarkText + " from the list, keep " + valueMarkText; got != want {
		t.Errorf("got %q", got)
	}
	if got := removePlaceholders("broken {{target.name"); got != "broken "+valueMarkText {
		t.Errorf("an unclosed placeholder drops the rest: %q", got)
	}
}

func TestParseIntentFindsActionsInOrder(t *testing.T) {
	actions := stemSet("return", "refund", "create", "list", "cancel", "hide", "archive")
	for _, tc := range []struct {
		intent string
		verbs  []string
	}{
		{"Hide   from the active contact list, but keep their history", []string{"hide"}},
		{"Return the   I ordered and refund me. My email is  ", []string{"return", "refund"}},
		{"The customer on charge   was overcharged: refund $  of it to their card", []string{"refund"}},
		{"I don't want the   any more — take it back and give me my money back", []string{"return", "refund"}},
	} {
		ins := parseIntent(tc.intent, func(k string) bool { return actions[k] }, newRelater(nil))
		var got []string
		for _, in := range ins {
			got = append(got, in.verb)
		}
		var want []string
		for _, v := range tc.verbs {
			want = append(want, stem(v))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: verbs %v, want %v", tc.intent, got, want)
		}
	}
	in := parseIntent("Charge   $  for the renewal, exactly once", func(k string) bool { return k == stem("charge") }, newRelater(nil))[0]
	if !in.repeat || in.preserve {
		t.Errorf("exactly once is a repeat constraint: %+v", in)
	}
	for _, w := range in.words {
		if (w.stem == stem("once") || w.stem == stem("exactly")) && w.weight != 0 {
			t.Errorf("constraint word %q must not be matched as content (weight %v)", w.stem, w.weight)
		}
	}
}

func TestSimilarNames(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Jon Smith", "John Smith", true},
		{"Grace C. Garcia", "Grace Garcia", true},
		{"Mia Reyes", "mia reyes", true},
		{"Mia Reyes", "Claire Reyes", false},
		{"Ada Lovelace", "Alan Turing", false},
		{"", "x", false},
	} {
		if got := similar(tc.a, tc.b); got != tc.want {
			t.Errorf("similar(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// A phrasal verb whose particle is a stop word is found before the stop
// words are dropped; a preposition after a bare verb makes none.
func TestPhrasalVerbsWithStopParticles(t *testing.T) {
	for _, tc := range []struct{ text, key string }{
		{"log in", "log in"},
		{"Log the user in.", "log in user"},
		{"switch it on", "switch on"},
		{"let them hang on to it", "let hang on to"},
		{"Check a returned book in: the loan ends", "check in return book loan end"},
		{"Move the meeting in Room 5", "move meet room"},
		{"Add it to the list", "add list"},
		{"Comment on the ticket", "comment ticket"},
	} {
		if got := key(tc.text); got != tc.key {
			t.Errorf("key(%q) = %q, want %q", tc.text, got, tc.key)
		}
	}
	r := newRelater(nil)
	isAction := func(k string) bool { return r.isAction(k) }
	for _, tc := range []struct{ intent, verb string }{
		{"Let them hang on to the book a bit longer", "hang on to"},
		{"Log the user in", "log in"},
		{"Switch the alarm on", "switch on"},
		{"Add the user to the group", "add"},
		{"Log the user out", "log out"},
		{"Check the book out.", "check out"},
		{"Mark the item as out of stock", "mark"},
		{"Opt the user out of emails", "opt"},
	} {
		if got := parseIntent(tc.intent, isAction, r)[0].verb; got != tc.verb {
			t.Errorf("%q: verb %q, want %q", tc.intent, got, tc.verb)
		}
	}
	if v := nameVerb(stems("check in loan"), []string{"check", "in", "loan"}, r); v != "check in" {
		t.Errorf("check_in_loan's verb is %q, want check in", v)
	}
	// A gerund after the first word names the record: seal_filing seals.
	if v := nameVerb(stems("seal filing"), []string{"seal", "filing"}, r); v != stem("seal") {
		t.Errorf("seal_filing's verb is %q, want seal", v)
	}
}

// The kind of a value a goal writes into its sentence is context: "to
// {{knows.slot}}" says the tool must take a slot; ids and "given" say
// nothing.
func TestKnownValueWords(t *testing.T) {
	got := knownValueWords("Move {{target.title}} (event {{knows.id}}) to {{knows.slot_given}}, email {{knows.new_email}}")
	if want := stems("slot email"); !reflect.DeepEqual(got, want) {
		t.Errorf("knownValueWords = %q, want %q", got, want)
	}
}
