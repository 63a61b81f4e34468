package scaffold

import (
	"testing"

	"github.com/herd-sh/herd/lint"
)

// The descriptions file written from a server fits the world scaffolded
// from it: every tool name resolves, and under "yours" each text is the
// world's own, so a run of it against the world changes nothing.
func TestDescriptionsFileFitsTheScaffold(t *testing.T) {
	for _, src := range []*Source{memorySource(t), petstoreSource(t)} {
		d, err := Build(src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := d.World
		for _, variant := range []string{Variant, "rewrite"} {
			file := DescriptionsFile([]string{"header", ""}, variant, Texts(src))
			got, err := lint.ParseDescriptionsFile("mine.yaml", file, w)
			if err != nil {
				t.Fatalf("%s as %s: %v\n%s", w.Name, variant, err, file)
			}
			if variant == Variant && len(got.New) != 0 || variant != Variant && (len(got.New) != 1 || got.New[0].Name != variant) {
				t.Errorf("%s as %s: new variants %+v", w.Name, variant, got.New)
			}
			for _, tool := range w.Tools {
				if text := got.Texts[variant][tool.Name]; text != tool.Description(Variant) {
					t.Errorf("%s %s as %s: %q, world has %q", w.Name, tool.Name, variant, text, tool.Description(Variant))
				}
			}
		}
	}
}
