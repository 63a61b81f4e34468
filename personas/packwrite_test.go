package personas

import (
	"bytes"
	"testing"
)

// A written pack reads back to the same personas, weights included.
func TestWritePackRoundTrips(t *testing.T) {
	var ps []*Persona
	for _, p := range Builtin().Personas {
		c := *p
		ps = append(ps, &c)
	}
	ps[0].Weight = 0.7
	var buf bytes.Buffer
	if err := WritePack(&buf, "rt", "round trip", []string{"a comment"}, ps); err != nil {
		t.Fatal(err)
	}
	got, err := ParsePack("rt.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(got.Personas) != len(ps) {
		t.Fatalf("%d personas, want %d", len(got.Personas), len(ps))
	}
	for i, p := range got.Personas {
		if *p != *ps[i] {
			t.Errorf("persona %d: %+v, want %+v", i, p, ps[i])
		}
	}
}

func TestPackWeightRefusesNegative(t *testing.T) {
	_, err := ParsePack("w.yaml", []byte("personas:\n  a:\n    like: careful\n    weight: -1\n"))
	if err == nil {
		t.Error("a negative weight: want an error")
	}
}
