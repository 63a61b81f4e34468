package engine

import "testing"

// The same call always gets the same answer: with several bad arguments
// the error names the lowest unknown one, else the first bad param in the
// tool's order — never whichever the map's iteration order met first.
// (Found by FuzzToolArgs in worlds/: `{"": "", "\u0000": [[[]]]}`.)
func TestArgumentErrorDoesNotDependOnMapOrder(t *testing.T) {
	w := mustLoad(t, "testdata/shop.yaml")
	b := mustSeed(t, w, w.DefaultSeed)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_order", map[string]any{"zz": 1, "\x00": [][]any{}, "": "", "id": "o_0001"}, `unknown argument "" (get_order takes: id)`},
		{"create_payment", map[string]any{"amount": "ten", "order": 7, "idempotency_key": 1}, `argument "order": want a string, got a number`},
	} {
		for i := range 200 {
			res := b.NewSession(uint64(i), nil).Call(c.tool, c.args)
			if res.Err == nil || res.Err.Message != c.want {
				t.Fatalf("%s call %d: %v, want %q", c.tool, i, res.Err, c.want)
			}
		}
	}
}
