package brain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/herd-sh/herd/internal/boundedio"
)

// MaxCassetteBytes bounds a cassette file: it is input like any other (a
// cassette from a pull request is untrusted).
const MaxCassetteBytes = 256 << 20

// MaxResponseBytes bounds one model answer, recorded or live.
const MaxResponseBytes = 8 << 20

// CassetteVersion is the format of a cassette file.
const CassetteVersion = 1

// ErrNotRecorded is a request the cassette holds no answer for, when
// recording is off: a replay never falls through to a live call.
var ErrNotRecorded = errors.New("the cassette has no answer for this request")

// Cassette records every model exchange as request hash → response body,
// so that a run can be replayed byte for byte with no endpoint. The hash
// is over the request's JSON with object keys sorted (the same request
// always hashes alike, whatever order a client wrote its fields in) and
// never over headers: the key is not part of it.
//
// A cassette replays (answers from what it holds, ErrNotRecorded
// otherwise) and, when recording, passes what it lacks to the live
// endpoint and keeps the answer. It is safe for concurrent use.
type Cassette struct {
	path   string
	record bool

	mu      sync.Mutex
	entries map[string]json.RawMessage
	added   int
}

// cassetteFile is the file's shape: entries sorted by request hash, so
// that the same exchanges always write the same bytes.
type cassetteFile struct {
	Version int             `json:"version"`
	Entries []cassetteEntry `json:"entries"`
}

type cassetteEntry struct {
	Request  string          `json:"request"` // sha256 of the canonical request JSON
	Response json.RawMessage `json:"response"`
}

// OpenCassette reads the cassette at path. A missing file is an empty
// cassette when record is true (it is created by Save) and an error
// otherwise.
func OpenCassette(path string, record bool) (*Cassette, error) {
	c := &Cassette{path: path, record: record, entries: map[string]json.RawMessage{}}
	data, err := boundedio.ReadFile(path, MaxCassetteBytes)
	if errors.Is(err, os.ErrNotExist) && record {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	var f cassetteFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	if f.Version != CassetteVersion {
		return nil, fmt.Errorf("cassette %s: version %d, this herd reads version %d", path, f.Version, CassetteVersion)
	}
	for i, e := range f.Entries {
		if len(e.Request) != sha256.Size*2 {
			return nil, fmt.Errorf("cassette %s: entry %d: request %q is not a sha256 hash", path, i, e.Request)
		}
		if _, dup := c.entries[e.Request]; dup {
			return nil, fmt.Errorf("cassette %s: entry %d: request %s recorded twice", path, i, e.Request)
		}
		if !json.Valid(e.Response) {
			return nil, fmt.Errorf("cassette %s: entry %d: the response is not JSON", path, i)
		}
		c.entries[e.Request] = e.Response
	}
	return c, nil
}

// Len is the number of exchanges the cassette holds.
func (c *Cassette) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Added is the number of exchanges recorded since the cassette was opened.
func (c *Cassette) Added() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.added
}

// Bytes is the cassette as its file holds it.
func (c *Cassette) Bytes() []byte {
	c.mu.Lock()
	f := cassetteFile{Version: CassetteVersion, Entries: make([]cassetteEntry, 0, len(c.entries))}
	for k, v := range c.entries {
		f.Entries = append(f.Entries, cassetteEntry{Request: k, Response: v})
	}
	c.mu.Unlock()
	slices.SortFunc(f.Entries, func(a, b cassetteEntry) int { return strings.Compare(a.Request, b.Request) })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	_ = enc.Encode(f) // RawMessages were checked valid; nothing else can fail
	return buf.Bytes()
}

// Hash is the sha256 of the cassette's bytes: the results document
// records it, so a replay can say which recording it replayed.
func (c *Cassette) Hash() string {
	sum := sha256.Sum256(c.Bytes())
	return hex.EncodeToString(sum[:])
}

// Save writes the cassette to its path (through a temporary file in the
// same folder, so an interrupted save leaves the old one whole).
func (c *Cassette) Save() error {
	dir := filepath.Dir(c.path)
	tmp, err := os.CreateTemp(dir, ".cassette-*")
	if err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	defer os.Remove(tmp.Name())
	// A cassette is committed and shared like any test fixture.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("cassette: %w", err)
	}

	if _, err := tmp.Write(c.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("cassette %s: %w", c.path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cassette %s: %w", c.path, err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		return fmt.Errorf("cassette %s: %w", c.path, err)
	}
	return nil
}

// RequestHash is the hash a request body is filed under: sha256 over its
// JSON re-encoded with sorted object keys.
func RequestHash(body []byte) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("request body is not JSON: %w", err)
	}
	canon, err := json.Marshal(v) // encoding/json sorts map keys
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// roundTrip answers req from the cassette, or (recording) from next,
// keeping a 200 answer. Only successful answers are recorded: a 429 or a
// 5xx is the endpoint's state at that moment, not the model's answer.
func (c *Cassette) roundTrip(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := boundedio.Read(req.Body, MaxResponseBytes)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("cassette: reading the request: %w", err)
		}
		body = b
	}
	key, err := RequestHash(body)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	c.mu.Lock()
	resp, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return &http.Response{
			StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:        http.Header{"Content-Type": {"application/json"}},
			Body:          io.NopCloser(bytes.NewReader(resp)),
			ContentLength: int64(len(resp)),
			Request:       req,
		}, nil
	}
	if !c.record {
		return nil, fmt.Errorf("%w (request %s; record it with the recording switch on)", ErrNotRecorded, key[:12])
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	live, err := next(req)
	if err != nil || live.StatusCode != http.StatusOK {
		return live, err
	}
	got, err := boundedio.Read(live.Body, MaxResponseBytes)
	live.Body.Close()
	if err != nil {
		return nil, answerReadError(err)
	}
	if !json.Valid(got) {
		return nil, fmt.Errorf("model answer is not JSON (%d bytes)", len(got))
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, got)
	c.mu.Lock()
	if _, dup := c.entries[key]; !dup {
		c.entries[key] = json.RawMessage(compact.Bytes())
		c.added++
	}
	c.mu.Unlock()
	live.Body = io.NopCloser(bytes.NewReader(got))
	live.ContentLength = int64(len(got))
	return live, nil
}
