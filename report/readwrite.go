package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Read decodes a results document. Its errors say what is wrong and where:
// not JSON (with the byte offset), truncated, not herd results, written by a
// newer herd, or a field of the wrong type or value.
func Read(r io.Reader) (*Results, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	return Decode(data)
}

// ReadFile reads a results document from a file; errors start with the path.
func ReadFile(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *PathError already names the file
	}
	res, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// Decode is Read over bytes already in memory.
func Decode(data []byte) (*Results, error) {
	// Look at schema and version first, so a newer or foreign document is
	// refused for what it is rather than for the first field it disagrees on.
	var head struct {
		Schema  *string          `json:"schema"`
		Version *json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(data, err)
	}
	switch {
	case head.Schema == nil:
		return nil, errors.New(`not herd results: no "schema" field (want "` + Schema + `")`)
	case *head.Schema != Schema:
		return nil, fmt.Errorf("not herd results: schema is %q, want %q", *head.Schema, Schema)
	case head.Version == nil:
		return nil, errors.New(`not herd results: no "version" field`)
	}
	var version int
	if err := json.Unmarshal(*head.Version, &version); err != nil {
		return nil, fmt.Errorf("version is %s, want a whole number", *head.Version)
	}
	if version > Version {
		return nil, fmt.Errorf("written by a newer herd: version %d, this herd reads %d", version, Version)
	}
	if version < 1 {
		return nil, fmt.Errorf("version %d is not a herd results version (this herd reads %d)", version, Version)
	}
	res := new(Results)
	if err := json.Unmarshal(data, res); err != nil {
		return nil, jsonError(data, err)
	}
	if err := res.Validate(); err != nil {
		return nil, err
	}
	res.Normalize()
	return res, nil
}

// jsonError turns encoding/json's errors into ones that say where.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return errors.New("not JSON: the file is empty")
	case errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &syn) && syn.Offset >= int64(len(data)) && strings.Contains(syn.Error(), "end of JSON input")):
		return fmt.Errorf("truncated JSON: the document stops at byte %d before it is complete", len(data))
	case errors.As(err, &syn):
		return fmt.Errorf("not JSON: %v at byte %d", syn, syn.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Errorf("not herd results: the document is a JSON %s, not an object", typ.Value)
		}
		return fmt.Errorf("field %s: got a JSON %s, want %s (byte %d)", typ.Field, typ.Value, typeName(typ.Type.String()), typ.Offset)
	}
	return err
}

// typeName makes Go type names readable to someone who only knows the JSON.
func typeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map["):
		return "an object"
	}
	return "an object"
}

// Write encodes the document, indented, in canonical order (it normalizes
// res first), with a final newline. The same document always gives the same
// bytes.
func (r *Results) Write(w io.Writer) error {
	r.Normalize()
	return encode(w, r, true)
}

func encode(w io.Writer, v any, indent bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // thresholds read "harmful<5%", not "harmful\u003c5%"
	if indent {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// DeterministicJSON is the canonical compact JSON of the reproducible part of
// the document: everything but Timing, and but the verdicts on latency
// thresholds, which are timing too. Two runs of the same world, flags and
// seed — sharded or not — give the same bytes.
func (r *Results) DeterministicJSON() []byte {
	r.Normalize()
	c := *r
	c.Timing = nil
	c.Rates = nil // derived from the counts: no information of its own
	c.Thresholds = nil
	for _, v := range r.Thresholds {
		if !isLatencyMetric(v.Metric) {
			c.Thresholds = append(c.Thresholds, v)
		}
	}
	var buf bytes.Buffer
	if err := encode(&buf, &c, false); err != nil {
		// Every field is a plain value; only a NaN or infinity in a float
		// can fail, and the writer never puts one there.
		panic("report: encoding the results document: " + err.Error())
	}
	return buf.Bytes()
}

// Fingerprint is the sha256 (hex) of DeterministicJSON: the identity of a
// run's reproducible result.
func (r *Results) Fingerprint() string {
	sum := sha256.Sum256(r.DeterministicJSON())
	return hex.EncodeToString(sum[:])
}
