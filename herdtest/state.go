package herdtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/herd-sh/herd/engine"
)

// Record is one record of a session's state: field name → value as JSON
// decodes it (string, json.Number, bool, nil); datetimes are RFC 3339
// strings in UTC. A field whose value is null is absent.
type Record map[string]any

// State is a session's records at one moment.
type State struct {
	Session string
	World   string
	Seed    uint64
	records map[string][]Record
	byID    map[string]map[string]Record // type → id → record
}

// parseState reads the canonical state JSON of the control plane
// ({"world", "seed", "records": {type: [record…]}}).
func parseState(w *engine.World, session string, data []byte) (*State, error) {
	var doc struct {
		World   string                       `json:"world"`
		Seed    uint64                       `json:"seed"`
		Records map[string][]json.RawMessage `json:"records"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("state of session %s: %w", session, err)
	}
	if doc.World != w.Name {
		return nil, fmt.Errorf("state of session %s: it is of world %q, not %q", session, doc.World, w.Name)
	}
	st := &State{Session: session, World: doc.World, Seed: doc.Seed, records: map[string][]Record{}, byID: map[string]map[string]Record{}}
	for _, t := range w.Types {
		idField := idFieldOf(t)
		ids := map[string]Record{}
		for i, raw := range doc.Records[t.Name] {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber() // ints stay exact
			var r Record
			if err := dec.Decode(&r); err != nil {
				return nil, fmt.Errorf("state of session %s: %s record %d: %w", session, t.Name, i, err)
			}
			st.records[t.Name] = append(st.records[t.Name], r)
			if id, ok := r[idField].(string); ok {
				ids[id] = r
			}
		}
		st.byID[t.Name] = ids
	}
	return st, nil
}

// idFieldOf is the name of a record type's id field.
func idFieldOf(t *engine.RecordType) string {
	for _, f := range t.Fields {
		if f.Type == engine.FieldID {
			return f.Name
		}
	}
	return "id"
}

// Record returns the record of type typ with id, if the session has it.
func (s *State) Record(typ, id string) (Record, bool) {
	r, ok := s.byID[typ][id]
	return r, ok
}

// Records returns every record of type typ, in id order.
func (s *State) Records(typ string) []Record { return s.records[typ] }

// Count is the number of records of type typ.
func (s *State) Count(typ string) int { return len(s.records[typ]) }

// CountWhere is the number of records of type typ whose field equals value
// (compared as Equal does).
func (s *State) CountWhere(typ, field string, value any) (int, error) {
	n := 0
	for _, r := range s.records[typ] {
		eq, err := Equal(r[field], value)
		if err != nil {
			return 0, err
		}
		if eq {
			n++
		}
	}
	return n, nil
}

// Equal compares a record's field value with what a test expects: numbers
// by value whatever their Go type (2, int64(2), 2.0), a time.Time with the
// datetime it names, nil with an absent field.
func Equal(got, want any) (bool, error) {
	g, err := canonical(got)
	if err != nil {
		return false, err
	}
	w, err := canonical(want)
	if err != nil {
		return false, err
	}
	return reflect.DeepEqual(g, w), nil
}

// canonical passes a value through JSON, as the control plane does, so that
// Go values and decoded JSON compare alike.
func canonical(v any) (any, error) {
	if t, ok := v.(time.Time); ok {
		v = t.UTC().Format(time.RFC3339Nano) // how the engine writes datetimes
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value %v (%T) has no JSON form: %w", v, v, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	// Numbers stay json.Number, compared as text: Go writes a number one
	// way only (2.0 as "2"), on both sides, and a big int keeps every digit.
	return out, nil
}

// JournalEntry is one call of a session, as the control plane's journal
// has it.
type JournalEntry struct {
	Seq          int             `json:"seq"`
	Tool         string          `json:"tool"`
	Args         map[string]any  `json:"args"`
	AtMS         float64         `json:"at_ms"`      // virtual time the call began
	LatencyMS    float64         `json:"latency_ms"` // its latency (injected)
	OK           bool            `json:"ok"`
	Fault        string          `json:"fault,omitempty"` // the injected fault, if any
	Committed    bool            `json:"committed"`       // the write happened (even when a timeout was reported)
	Replayed     bool            `json:"replayed,omitempty"`
	Error        *CallError      `json:"error,omitempty"`
	RetryAfterMS float64         `json:"retry_after_ms,omitempty"`
	Result       json.RawMessage `json:"result,omitempty"`
}

// CallError is the error a call returned.
type CallError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// maxJournalLine bounds one journal line (a list call returns up to a
// hundred records).
const maxJournalLine = 16 << 20

func parseJournal(session string, data []byte) ([]JournalEntry, error) {
	var out []JournalEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxJournalLine)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e JournalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("journal of session %s: line %d: %w", session, line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("journal of session %s: %w", session, err)
	}
	return out, nil
}
