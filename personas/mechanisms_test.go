package personas

import (
	"strings"
	"testing"
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
