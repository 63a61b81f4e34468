package control

import (
	"net/url"
	"testing"
)

// The control plane sits next to the MCP endpoint, on the same scheme and
// host, whatever the endpoint's path.
func TestURL(t *testing.T) {
	u, err := url.Parse("https://127.0.0.1:8931/some/mcp?x=1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := URL(u), "https://127.0.0.1:8931/control"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
}

// A reset's 64-bit numbers travel in _meta as decimal strings, exactly.
func TestResetMetaKeepsLargeNumbers(t *testing.T) {
	r := Reset{Seed: 1<<64 - 1, Key: 1<<53 + 1, Goal: "hide_contact", Rnd: 3, ReturnJournal: true}
	m := r.Meta()
	if m.Seed != "18446744073709551615" || m.Key != "9007199254740993" || m.Rnd != "3" || m.Goal != "hide_contact" || !m.ReturnJournal {
		t.Errorf("Meta() = %+v", m)
	}
}
