package wordnet

import "testing"

// BenchmarkLoad measures what the first use of the package costs: reading
// the embedded table's layout, keys and irregular forms.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(embedded); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeAll is the worst case of a process's lexical cost: every
// key's relations decoded, as Decode does to check a table.
func BenchmarkDecodeAll(b *testing.B) {
	b.SetBytes(int64(len(embedded)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode([]byte(embedded)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstRelations is what a first look-up of a key costs over the
// later ones: decoding its record (delete's 39 relations) and splitting it
// by part of speech, without the cache.
func BenchmarkFirstRelations(b *testing.B) {
	t, err := decode(embedded)
	if err != nil {
		b.Fatal(err)
	}
	i, ok := t.index("delet")
	if !ok {
		b.Fatal("no delet")
	}
	b.ReportAllocs()
	for b.Loop() {
		t.decoded[i].Store(nil)
		t.lookup("delet")
	}
}

// BenchmarkStem is one word through normalisation, the irregular forms and
// Porter2.
func BenchmarkStem(b *testing.B) {
	words := []string{"archived", "hidden", "Deleting", "customer's", "cancellation", "refunds"}
	Stem("warm") // the table is decoded once, outside the loop
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Stem(words[i%len(words)])
	}
}

// BenchmarkRelated is the lookup a reader makes per word pair.
func BenchmarkRelated(b *testing.B) {
	Stem("warm")
	b.ReportAllocs()
	for b.Loop() {
		Related("delet", "cancel")
	}
}
