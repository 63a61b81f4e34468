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
