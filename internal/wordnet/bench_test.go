package wordnet

import "testing"

// BenchmarkLoad measures what the first use of the package costs: decoding
// the embedded table.
func BenchmarkLoad(b *testing.B) {
	b.SetBytes(int64(len(embedded)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(embedded); err != nil {
			b.Fatal(err)
		}
	}
}
