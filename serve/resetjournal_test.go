package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// A reset with return_journal answers with the journal the reset drops,
// line for line what GET …/journal answered just before; the session then
// starts over with an empty journal.
func TestResetReturnsTheJournalItDrops(t *testing.T) {
	hc, cs, url := crmSessionHTTP(t)
	call(t, cs, "get_contact", map[string]any{"id": "c_0004"})
	call(t, cs, "archive_contact", map[string]any{"id": "c_0004"})
	call(t, cs, "get_contact", map[string]any{"id": "c_9999"})
	_, want := getBody(t, hc, url+"/journal")

	code, body := doBody(t, hc, http.MethodPost, url+"/reset", []byte(`{"return_journal": true}`))
	if code != http.StatusOK {
		t.Fatalf("reset: %d %s", code, body)
	}
	var ans struct {
		Calls   int               `json:"calls"`
		Journal []json.RawMessage `json:"journal"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	lines := bytes.Split(bytes.TrimSpace(want), []byte("\n"))
	if len(ans.Journal) != 3 || len(lines) != 3 || ans.Calls != 0 {
		t.Fatalf("journal of %d lines in the answer, %d read before; calls after reset %d", len(ans.Journal), len(lines), ans.Calls)
	}
	for i, l := range ans.Journal {
		var compact bytes.Buffer
		if err := json.Compact(&compact, l); err != nil || !bytes.Equal(compact.Bytes(), lines[i]) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, l, lines[i])
		}
	}

	// Nothing was called since: the next one returns an empty journal; and
	// without the flag the answer has none.
	journalOf := func(body []byte) (json.RawMessage, bool) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		j, ok := m["journal"]
		return j, ok
	}
	_, body = doBody(t, hc, http.MethodPost, url+"/reset", []byte(`{"return_journal": true}`))
	if j, ok := journalOf(body); !ok || string(bytes.TrimSpace(j)) != "[]" {
		t.Errorf("reset of a fresh session: %s", body)
	}
	_, body = doBody(t, hc, http.MethodPost, url+"/reset", nil)
	if _, ok := journalOf(body); ok {
		t.Errorf("reset without return_journal: %s", body)
	}
}
