package engine

// DecodeRecord parses one record of type t from its JSON — the shape
// Record.MarshalJSON and Record.Map write, which is what a served world's
// tool results carry. A client of a served world uses it to hold the
// records it was given as the same Records an in-process caller gets, so
// that code reading them (the persona agents) runs unchanged over MCP.
// Fields are checked as a snapshot's are: unknown fields, wrong types and
// out-of-bounds values are errors, and the id must be present.
func (t *RecordType) DecodeRecord(data []byte) (*Record, error) {
	return decodeRecord(t, data)
}

// RecordFromJSON is DecodeRecord for a JSON object already decoded into Go
// values, as encoding/json leaves them in a map[string]any (numbers as
// float64, or json.Number with UseNumber): an MCP client has decoded a
// result's structured content once already, and need not parse it again.
// An integer decoded as a float64 of 2^53 or more is refused: it may
// have been rounded.
func (t *RecordType) RecordFromJSON(m map[string]any) (*Record, error) {
	return recordFromJSON(t, m)
}
