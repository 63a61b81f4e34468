package wordnet

import (
	"fmt"
	"slices"
	"testing"
)

func TestStemFoldsInflectionsAndIrregularForms(t *testing.T) {
	cases := map[string]string{
		"archive": "archiv", "archived": "archiv", "archiving": "archiv", "archives": "archiv",
		"delete": "delet", "Deleting": "delet", "deletion": "delet",
		"remove": "remov", "removal": "remov",
		"hide": "hide", "hid": "hide", "hidden": "hide", "hiding": "hide",
		"send": "send", "sent": "send", "pay": "pay", "paid": "pay", "kept": "keep",
		"write": "write", "wrote": "write", "written": "write", "found": "find",
		"sold": "sell", "bought": "buy", "chose": "choos", "chosen": "choos", "choose": "choos",
		"undone": "undo", "lost": "lose", "lose": "lose",
		"customer's": "custom", "customers’": "custom", "children": "child",
		"data": "data", "lay": "lay", "lain": "lie",
		"customise": "custom", "customised": "custom", "customize": "custom",
		"": "",
	}
	for in, want := range cases {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTableDecodesAndIsSorted(t *testing.T) {
	tb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() < 10000 {
		t.Fatalf("table has %d keys, want tens of thousands", tb.Len())
	}
	for _, k := range []string{"delet", "hide", "cancel", "remov", "archiv", "refund", "updat", "custom"} {
		rs := Relations(k)
		if len(rs) == 0 {
			t.Errorf("Relations(%q) is empty", k)
		}
		for i, r := range rs {
			if r.Weight <= 0 || r.Weight > 1 {
				t.Errorf("%s → %s: weight %v outside (0, 1]", k, r.To, r.Weight)
			}
			if r.To == k {
				t.Errorf("%s relates to itself", k)
			}
			if i > 0 && (rs[i-1].Weight < r.Weight || rs[i-1].Weight == r.Weight && rs[i-1].To > r.To) {
				t.Errorf("Relations(%q) not sorted at %d: %+v then %+v", k, i, rs[i-1], r)
			}
		}
	}
	if Relations("no-such-stem") != nil {
		t.Error("Relations of an unknown key is not nil")
	}
	// Decode checks every record, which the lazy default table does not.
	full, err := Decode([]byte(embedded))
	if err != nil {
		t.Fatalf("embedded table: %v", err)
	}
	if full.Len() != tb.Len() {
		t.Errorf("Decode has %d keys, the default table %d", full.Len(), tb.Len())
	}
	if _, err := Decode([]byte("not a table")); err == nil {
		t.Error("Decode accepted garbage")
	}
	if _, err := Decode([]byte(embedded[:len(embedded)/2])); err == nil {
		t.Error("Decode accepted a truncated table")
	}
}

// related asserts a relation of the given kind and returns its weight.
func related(t *testing.T, a, b string, kind Kind) float64 {
	t.Helper()
	best := 0.0
	for _, r := range Relations(a) {
		if r.To == b && r.Kind == kind && r.Weight > best {
			best = r.Weight
		}
	}
	if best == 0 {
		t.Errorf("no %s relation %q → %q", kind, a, b)
	}
	return best
}

func TestConcurrentFirstLookupsAgree(t *testing.T) {
	tb, err := decode(embedded) // fresh, so that the look-ups race to decode
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []Relation)
	for range 8 {
		go func() { done <- tb.Relations("remov") }()
	}
	first := <-done
	for range 7 {
		if rs := <-done; &rs[0] != &first[0] {
			t.Error("concurrent first look-ups returned different slices")
		}
	}
}

func TestSenseFrequencyWeighting(t *testing.T) {
	// "delete" shares a rare sense with "cancel" (remove or make invisible)
	// and its computing sense with "erase".
	erase, cancel := related(t, "delet", "eras", Synonym), related(t, "delet", "cancel", Synonym)
	if erase <= cancel {
		t.Errorf("delete: erase %.3f not above cancel %.3f", erase, cancel)
	}
	if cancel >= 0.35 {
		t.Errorf("delete → cancel weight %.3f, want a weak relation (< 0.35)", cancel)
	}
	// "hide" is "conceal" in its common sense, "obliterate" in a rare one.
	conceal := related(t, "hide", "conceal", Synonym)
	if conceal < 0.5 {
		t.Errorf("hide → conceal %.3f, want strong", conceal)
	}
	if r, ok := Related("hide", "obliter"); ok && r.Weight >= conceal/3 {
		t.Errorf("hide → obliterate %.3f, want weak next to conceal %.3f", r.Weight, conceal)
	}
}

func TestVerbRelations(t *testing.T) {
	related(t, "remov", "take away", Synonym)
	// Downwards too: a delete tool is a reading of a remove goal, weaker
	// than the other way round (remove has a hundred kinds).
	down, ok := RelatedAs("remov", "delet", Verb)
	if up := related(t, "delet", "remov", Hypernym); !ok || down.Kind != Hyponym || down.Weight >= up {
		t.Errorf("remove → delete as a verb: %+v (found %v), want a hyponym weaker than delete → remove %.3f", down, ok, up)
	}
	callOff := related(t, "cancel", "call off", Synonym)
	if r := Relations("cancel"); len(r) == 0 || r[0].To != "call off" {
		t.Errorf("cancel's strongest relation is %+v, want call off (%.3f)", r[0], callOff)
	}
	related(t, "call off", "cancel", Synonym)
	reject, decline := related(t, "accept", "reject", Antonym), related(t, "accept", "declin", Antonym)
	if reject < decline {
		t.Errorf("accept: antonym reject %.3f below decline %.3f (reject is WordNet's direct antonym)", reject, decline)
	}
	related(t, "increas", "decreas", Antonym)
	related(t, "open", "close", Antonym)
	related(t, "archiv", "file away", Synonym)
	related(t, "archiv", "repositori", Hypernym)
	repay, ret := related(t, "refund", "repay", Synonym), related(t, "refund", "return", Synonym)
	if repay <= ret {
		t.Errorf("refund: repay %.3f not above return %.3f", repay, ret)
	}
	related(t, "updat", "modifi", Hypernym)
	// Porter2 keeps decide and decision apart; WordNet's derivation
	// pointers join them.
	related(t, "decid", "decis", Derived)
	related(t, "decis", "decid", Derived)
}

func TestRelationsAsKeepsOnePartOfSpeech(t *testing.T) {
	for _, k := range []string{"send", "restor", "remov", "charg", "hide"} {
		all, verbs := Relations(k), RelationsAs(k, Verb)
		if len(verbs) == 0 || len(verbs) >= len(all) {
			t.Errorf("%s: %d verb relations of %d", k, len(verbs), len(all))
		}
		j := 0
		for _, r := range all {
			if r.POS == Verb {
				if j >= len(verbs) || verbs[j] != r {
					t.Fatalf("%s: RelationsAs(Verb) is not Relations' verb relations in order", k)
				}
				j++
			}
		}
		both := RelationsAs(k, Verb|Noun)
		for i, r := range both {
			if r.POS != Verb && r.POS != Noun || i > 0 && both[i-1].Weight < r.Weight {
				t.Errorf("%s: RelationsAs(Verb|Noun)[%d] = %+v", k, i, r)
			}
		}
	}
	// Porter2 merges send and the adjective sent/unsent: only the adjective
	// reading has that antonym.
	if _, ok := RelatedAs("send", "unsent", Verb); ok {
		t.Error("send as a verb has the adjective antonym unsent")
	}
	if _, ok := RelatedAs("send", "unsent", Adj); !ok {
		t.Error("send as an adjective (sent) lost its antonym unsent")
	}
	if r := RelationsAs("remov", Verb); r[0].To != "take away" {
		t.Errorf("remove as a verb: strongest relation %+v, want take away", r[0])
	}
	if RelationsAs("remov", 0) != nil || RelationsAs("no-such-stem", Verb) != nil {
		t.Error("RelationsAs with no part of speech or an unknown key is not nil")
	}
}

func TestNounRelations(t *testing.T) {
	related(t, "custom", "client", Synonym)
	related(t, "invoic", "bill", Synonym)
	related(t, "email", "e mail", Synonym)
	if p := POSOf("ticket"); p&Noun == 0 || p&Verb == 0 {
		t.Errorf("ticket is %v, want noun and verb", p)
	}
}

func TestPartsOfSpeech(t *testing.T) {
	if POSOf("call off") != Verb {
		t.Errorf("call off is %v, want verb", POSOf("call off"))
	}
	if VerbShare("call off") != 1 {
		t.Errorf("call off verb share %v, want 1", VerbShare("call off"))
	}
	if s := VerbShare("refund"); s <= 0 || s >= 1 {
		t.Errorf("refund verb share %v, want between noun and verb", s)
	}
	if POSShare("no-such-stem", Verb) != 0 || POSOf("no-such-stem") != 0 {
		t.Error("an unknown key has parts of speech")
	}
}

func TestPhrases(t *testing.T) {
	all := Phrases()
	keys := make([]string, len(all))
	for i, p := range all {
		keys[i] = p.Key
	}
	if !slices.IsSorted(keys) {
		t.Error("Phrases not sorted by key")
	}
	for _, want := range []string{"call off", "get rid of", "set up", "shut down", "look up", "take down", "sign up", "put back", "bring back"} {
		if _, ok := slices.BinarySearch(keys, want); !ok {
			t.Errorf("phrase %q missing", want)
		}
	}
	from := PhrasesFrom("call")
	if len(from) == 0 {
		t.Fatal("no phrases from call")
	}
	for _, p := range from {
		if p.Words[0] != "call" || len(p.Words) < 2 {
			t.Errorf("PhrasesFrom(call) has %+v", p)
		}
	}
	if PhrasesFrom("zzzz") != nil {
		t.Error("phrases from an unknown word")
	}
}

// The Stem cache gives the uncached answer and stops growing at its bound,
// however many distinct words an untrusted text holds.
func TestStemCacheIsBoundedAndExact(t *testing.T) {
	tb, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"archived", "Hidden", "deletion", "kept", "running"} {
		if got, want := tb.Stem(w), tb.stem(normalize(w)); got != want || tb.Stem(w) != want {
			t.Fatalf("Stem(%q) = %q cached, %q uncached", w, got, want)
		}
	}
	for i := 0; i < maxCachedStems+5000; i++ {
		tb.Stem(fmt.Sprintf("zq%dx", i))
	}
	if n := tb.stemCount.Load(); n > maxCachedStems {
		t.Fatalf("the cache holds %d words, its bound is %d", n, maxCachedStems)
	}
}
