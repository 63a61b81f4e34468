package wnbuild_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/herd-sh/herd/internal/wordnet"
	"github.com/herd-sh/herd/internal/wordnet/wnbuild"
)

const fixture = "testdata/dict"

// build builds the fixture dictionary and decodes it.
func build(t *testing.T, opt wnbuild.Options) *wordnet.Table {
	t.Helper()
	raw, _, err := wnbuild.Build(fixture, fixture, opt)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := wordnet.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// weight returns the weight of relation a → b of kind k, or 0.
func weight(tb *wordnet.Table, a, b string, k wordnet.Kind) float64 {
	for _, r := range tb.Relations(a) {
		if r.To == b && r.Kind == k {
			return r.Weight
		}
	}
	return 0
}

// TestWeightsMatchHandComputedValues checks the weighting formula on the
// fixture, whose tag counts give (add-one smoothed, per part of speech):
// delete P(V1)=1/4, P(V2)=3/4; cancel P(V1)=1/11, P(V5)=10/11; every other
// verb a single sense, P=1. Weights are stored in steps of 1/255.
func TestWeightsMatchHandComputedValues(t *testing.T) {
	tb := build(t, wnbuild.Options{})
	cases := []struct {
		a, b string
		kind wordnet.Kind
		want float64
	}{
		{"delet", "cancel", wordnet.Synonym, math.Sqrt(1.0 / 4 * 1.0 / 11)},
		{"cancel", "delet", wordnet.Synonym, math.Sqrt(1.0 / 4 * 1.0 / 11)},
		{"delet", "eras", wordnet.Synonym, math.Sqrt(3.0 / 4)},
		{"cancel", "call off", wordnet.Synonym, math.Sqrt(10.0 / 11)},
		{"remov", "take away", wordnet.Synonym, 1},
		// Both senses of delete are kinds of remove: summed.
		{"delet", "remov", wordnet.Hypernym, 0.5*math.Sqrt(1.0/4) + 0.5*math.Sqrt(3.0/4)},
		// Going down, remove has two hyponym synsets: each a share of 1/√2.
		{"remov", "delet", wordnet.Hyponym, 0.5*math.Sqrt(1.0/4/math.Sqrt2) + 0.5*math.Sqrt(3.0/4/math.Sqrt2)},
		{"take away", "eras", wordnet.Hyponym, 0.5 * math.Sqrt(1/math.Sqrt2)},
		// erase ! record word to word; delete, erase's synset-mate, by extension.
		{"eras", "record", wordnet.Antonym, 1},
		{"record", "eras", wordnet.Antonym, 1},
		{"delet", "record", wordnet.Antonym, 0.5 * math.Sqrt(3.0/4)},
		{"record", "delet", wordnet.Antonym, 0.5 * math.Sqrt(3.0/4)},
		{"decid", "decis", wordnet.Derived, 0.8},
		{"decis", "decid", wordnet.Derived, 0.8},
		{"visibl", "invis", wordnet.Antonym, 1},
		// seeable has no tag count: P = (0+1)/(0+1) = 1.
		{"visibl", "seeabl", wordnet.Similar, 0.7},
		{"data", "inform", wordnet.Synonym, 1},
	}
	for _, c := range cases {
		got := weight(tb, c.a, c.b, c.kind)
		if math.Abs(got-c.want) > 1.0/255 {
			t.Errorf("%s → %s %s: weight %.4f, want %.4f", c.a, c.b, c.kind, got, c.want)
		}
	}
	if w := weight(tb, "eras", "delet", wordnet.Synonym); w <= weight(tb, "cancel", "delet", wordnet.Synonym) {
		t.Errorf("erase → delete %.3f not above cancel → delete", w)
	}
	if got := tb.POSShare("decid", wordnet.Verb); got != 1 {
		t.Errorf("decide verb share %v, want 1", got)
	}
	if tb.POSOf("call off") != wordnet.Verb {
		t.Errorf("call off is %v", tb.POSOf("call off"))
	}
}

func TestOptionsLeaveOut(t *testing.T) {
	all := build(t, wnbuild.Options{})
	for _, k := range []string{"dog", "pari", "credit card"} {
		if all.POSOf(k) == 0 {
			t.Errorf("with no options, %q is missing", k)
		}
	}
	opt := wnbuild.DefaultOptions()
	opt.MinWeight = 0.2
	def := build(t, opt)
	for _, k := range []string{"dog", "pari", "credit card"} {
		if def.POSOf(k) != 0 {
			t.Errorf("with the default options, %q is kept", k)
		}
	}
	if def.POSOf("citi") == 0 {
		t.Error("city, an instance's hypernym, was left out")
	}
	if weight(def, "delet", "cancel", wordnet.Synonym) != 0 {
		t.Error("delete → cancel (0.15) kept with a minimum weight of 0.2")
	}
	if weight(def, "delet", "eras", wordnet.Synonym) == 0 {
		t.Error("delete → erase (0.87) dropped with a minimum weight of 0.2")
	}
}

func TestIrregularForms(t *testing.T) {
	tb := build(t, wnbuild.DefaultOptions())
	for in, want := range map[string]string{
		"wrote":  "write", // folded: write is no lemma of its own here
		"data":   "data",  // not folded to datum: data is a tagged noun
		"found":  "find",  // the override
		"erased": "eras",  // Porter2 alone
	} {
		if got := tb.Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	a, _, err := wnbuild.Build(fixture, fixture, wnbuild.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b, _, err := wnbuild.Build(fixture, fixture, wnbuild.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatal("two builds of the same dictionary differ")
		}
	}
}

func TestBadInputSaysWhere(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"data.noun", "data.verb", "data.adj", "data.adv", "index.sense", "noun.exc", "verb.exc", "adj.exc", "adv.exc"} {
		b, err := os.ReadFile(filepath.Join(fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "data.verb" {
			b = append(b, []byte("00000700 31 v 02 truncated 0\n")...)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := wnbuild.Build(dir, dir, wnbuild.Options{})
	if err == nil {
		t.Fatal("a truncated synset line was accepted")
	}
	if want := "data.verb:8:"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("error %q does not say where (%s)", err, want)
	}
	if _, _, err := wnbuild.Build(dir, filepath.Join(dir, "missing"), wnbuild.Options{}); err == nil {
		t.Error("a missing exception list was accepted")
	}
}
