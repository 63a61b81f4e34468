package stats

import (
	"encoding/json"
	"testing"
)

// Results documents and herd diff write rates and intervals with these
// keys; renaming a field must not silently change the files.
func TestRateJSONKeys(t *testing.T) {
	b, err := json.Marshal(Rate{K: 3, N: 4, P: 0.75, CI: Interval{Lo: 0.25, Hi: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"k":3,"n":4,"p":0.75,"ci":{"lo":0.25,"hi":0.5}}`; string(b) != want {
		t.Errorf("rate as JSON: %s; want %s", b, want)
	}
	var back Rate
	if err := json.Unmarshal(b, &back); err != nil || back != (Rate{3, 4, 0.75, Interval{0.25, 0.5}}) {
		t.Errorf("read back %+v (%v)", back, err)
	}
}
