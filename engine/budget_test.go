package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Each hostile world (engine/testdata/hostile: small files that ask for
// gigabytes or minutes at load) is refused quickly and cheaply, with an
// error naming the file, the sum and the limit.
func TestHostileWorldsRefusedWithinBudget(t *testing.T) {
	files, err := filepath.Glob("testdata/hostile/*.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("hostile worlds: %v, %d files", err, len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			start := time.Now()
			_, err := LoadFile(f)
			took := time.Since(start)
			runtime.ReadMemStats(&m1)
			alloc := m1.TotalAlloc - m0.TotalAlloc
			t.Logf("%s: %s, %d MB allocated", f, took.Round(time.Millisecond), alloc>>20)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("loaded, or failed without a LoadError: %v", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, f+":") || !strings.Contains(msg, "the limit is") {
				t.Errorf("error does not name the file and the limit: %s", msg)
			}
			// How long it took is logged, not asserted (a loaded or race
			// build is slower); the allocation bound is what cannot
			// regress unnoticed.
			if alloc > 500<<20 {
				t.Errorf("allocated %d MB before refusing, want under 500 MB", alloc>>20)
			}
		})
	}
}

// The seeding budget counts across types, search tools and goals: a world
// just within it loads, one value over it is refused before seeding.
func TestSeedBudgetIsATotal(t *testing.T) {
	// Ten types of two fields at the per-type cap of 100,000 make the
	// budget; a search tool indexing one of them goes over it.
	world := func(search string) string {
		var types strings.Builder
		for i := range 10 {
			fmt.Fprintf(&types, "  %c:\n    count: 100000\n    fields:\n      id: {type: id, prefix: \"%c_\"}\n      s: {type: str}\n", 'a'+i, 'a'+i)
		}
		return fmt.Sprintf(`world: sized
variants: [clear, ambiguous]
types:
%stools:
  get_a:
    kind: get
    record: a
    descriptions: {clear: Fetch one., ambiguous: Get.}
    params:
      id: {type: str, required: true}
%s`, types.String(), search)
	}
	if _, err := Parse("sized.yaml", []byte(world(""))); err != nil {
		t.Fatalf("a world at the budget was refused: %v", err)
	}
	_, err := Parse("sized.yaml", []byte(world(`  list_a:
    kind: list
    record: a
    descriptions: {clear: List., ambiguous: List.}
    params:
      q: {type: str}
    search: {param: q, fields: [s]}
`)))
	if err == nil {
		t.Fatal("a world over the budget loaded; each type is within its own cap but the sum is not")
	}
	want := fmt.Sprintf("would seed %d values", MaxSeedValues+100000)
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprint(MaxSeedValues)) {
		t.Errorf("error %q does not give the sum (%s) and the limit", err, want)
	}
}
