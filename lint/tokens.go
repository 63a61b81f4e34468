package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Token encodings herd counts with: byte-pair encodings whose vocabularies
// are embedded in the binary, so counting needs no network.
const (
	EncodingO200k  = "o200k_base"  // GPT-4o and later
	EncodingCL100k = "cl100k_base" // GPT-4, GPT-3.5
	// DefaultEncoding is the encoding of current models.
	DefaultEncoding = EncodingO200k
)

// Encodings lists the encodings a Tokenizer can be made for.
var Encodings = []string{EncodingO200k, EncodingCL100k}

// useOfflineVocabularies points the tokenizer library at the embedded
// vocabularies, once: its default would download them. The library keeps
// its loader and its loaded encodings in package variables; setting the
// loader before any encoding is asked for is the one way to use it.
var useOfflineVocabularies = sync.OnceFunc(func() {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
})

// Tokenizer counts tokens of one encoding.
//
// Loading an encoding's vocabulary takes about 0.2 s of CPU and 35 MB (a
// map of 200,000 byte strings): more than a whole swarm of a few hundred
// agents. So the vocabulary is loaded on the first count that needs it,
// and the definitions of the built-in worlds' tools are counted once,
// ahead, into knownCounts (tokencounts.json, regenerated and checked
// against the encoder by the tests): a run on a built-in world never loads
// it.
type Tokenizer struct {
	name string
	enc  func() (*tiktoken.Tiktoken, error)
}

// NewTokenizer makes a counter of an encoding (one of Encodings), read
// from the embedded vocabularies when it is first needed.
func NewTokenizer(encoding string) (*Tokenizer, error) {
	if !slices.Contains(Encodings, encoding) {
		return nil, fmt.Errorf("encoding %q: want one of %s", encoding, strings.Join(Encodings, ", "))
	}
	return &Tokenizer{name: encoding, enc: sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		useOfflineVocabularies()
		return tiktoken.GetEncoding(encoding)
	})}, nil
}

// encoder is the loaded encoding. The vocabularies are embedded in the
// binary: failing to read them is a broken build, not bad input.
func (t *Tokenizer) encoder() *tiktoken.Tiktoken {
	enc, err := t.enc()
	if err != nil {
		panic(fmt.Sprintf("lint: the embedded %s vocabulary does not load: %v", t.name, err))
	}
	return enc
}

// Encoding is the encoding's name (o200k_base).
func (t *Tokenizer) Encoding() string { return t.name }

// Count is the number of tokens of s. Special-token text in s
// ("<|endoftext|>") is counted as ordinary text, as a model's input
// encoder treats text that is not a control token.
//
// s is encoded in chunks of at most countChunk bytes, cut before a space:
// the encoder's pieces start at a space, so the count is the same as in
// one go, but a piece never grows past a chunk. (Merging one piece costs
// the square of its length: a hostile description of a megabyte without
// a space would otherwise take hours.)
func (t *Tokenizer) Count(s string) int {
	if n, ok := knownCount(t.name, s); ok {
		return n
	}
	return t.count(s)
}

// count encodes s, never from knownCounts.
func (t *Tokenizer) count(s string) int {
	enc := t.encoder()
	n := 0
	for len(s) > 0 {
		cut := chunkEnd(s, countChunk)
		n += len(enc.EncodeOrdinary(s[:cut]))
		s = s[cut:]
	}
	return n
}

// countChunk bounds one call to the encoder: short enough that the
// slowest piece (a run of one accented letter) costs tens of
// microseconds, long enough that ordinary text is cut only between words.
const countChunk = 256

// chunkEnd is where the first chunk of s ends: all of s when it is short
// enough; else at the last place in the second half of the limit where
// the encoder starts a piece whatever the context (pieceStarts), so the
// count does not change; else at the limit, moved back to the start of a
// character.
func chunkEnd(s string, limit int) int {
	if len(s) <= limit {
		return len(s)
	}
	for i := limit - 1; i > limit/2; i-- {
		if pieceStarts(s[i-1], s[i]) {
			return i
		}
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if cut == 0 {
		return limit
	}
	return cut
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// pieceStarts reports whether both encodings' pre-tokenizers always start
// a piece between bytes a and b: at a space after a non-space (no piece
// ends in a space), and at an ASCII punctuation mark other than an
// apostrophe after a letter or digit (a run of letters takes no
// punctuation but a contraction, and digits none at all; JSON
// schemas are long runs of such marks without spaces).
func pieceStarts(a, b byte) bool {
	if b == ' ' {
		return !isSpaceByte(a)
	}
	alnum := 'a' <= a && a <= 'z' || 'A' <= a && a <= 'Z' || '0' <= a && a <= '9'
	punct := b < 0x80 && b > ' ' && b != 0x7f && b != '\'' &&
		!('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9')
	return alnum && punct
}

// ToolTokens is what one tool's definition costs.
type ToolTokens struct {
	Tool   string `json:"tool"`
	Tokens int    `json:"tokens"`
}

// TokenCost is what a tool set's definitions cost a model on every turn
// it is offered the tools: each tool's name, description and input schema
// as JSON, counted in one encoding. Providers wrap the definitions in a
// few tokens of their own each, so the figure is the part the tools'
// author controls.
type TokenCost struct {
	Encoding string `json:"encoding"`
	// Total is the sum over the tools.
	Total int          `json:"total"`
	Tools []ToolTokens `json:"tools"`
}

// Tool returns the named tool's count and whether it was counted.
func (c *TokenCost) Tool(name string) (int, bool) {
	for _, t := range c.Tools {
		if t.Tool == name {
			return t.Tokens, true
		}
	}
	return 0, false
}

// Largest is the n costliest tools, costliest first (in tool order among
// equals).
func (c *TokenCost) Largest(n int) []ToolTokens {
	out := slices.Clone(c.Tools)
	slices.SortStableFunc(out, func(a, b ToolTokens) int { return b.Tokens - a.Tokens })
	return out[:min(n, len(out))]
}

// Definition is the JSON a model is sent for a tool, as MCP lists it:
// name, description and input schema, in that order, compact. A tool
// without a schema is sent the empty object schema MCP requires.
func Definition(t Tool) string {
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	writeJSON(&b, t.Name)
	b.WriteString(`,"description":`)
	writeJSON(&b, t.Description)
	b.WriteString(`,"inputSchema":`)
	if t.InputSchema == nil {
		b.WriteString(`{"type":"object"}`)
	} else if err := writeJSONErr(&b, t.InputSchema); err != nil {
		b.WriteString(`{"type":"object"}`)
	}
	b.WriteString("}")
	return b.String()
}

func writeJSON(b *bytes.Buffer, v string) { _ = writeJSONErr(b, v) }

// writeJSONErr writes v compactly without escaping <, > and & (a model is
// sent them as they are).
func writeJSONErr(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

// Cost counts every tool's definition.
func (t *Tokenizer) Cost(tools []Tool) *TokenCost {
	c := &TokenCost{Encoding: t.name, Tools: make([]ToolTokens, 0, len(tools))}
	for _, tool := range tools {
		n := t.Count(Definition(tool))
		c.Tools = append(c.Tools, ToolTokens{Tool: tool.Name, Tokens: n})
		c.Total += n
	}
	return c
}

// TokenThreshold is one token budget: the tool set's total
// ("tokens<4000"), or one tool's ("search_nodes:tokens<500"). The budget
// fails when the count is at or over Limit.
type TokenThreshold struct {
	Spec  string // as given
	Tool  string // "" for the whole tool set
	Limit int
}

// MetricTokens is the metric of a token budget.
const MetricTokens = "tokens"

// ParseTokenThreshold reads "tokens<N" or "TOOL:tokens<N".
func ParseTokenThreshold(spec string) (TokenThreshold, error) {
	bad := func(format string, args ...any) (TokenThreshold, error) {
		return TokenThreshold{}, fmt.Errorf("threshold %q: %s", spec, fmt.Sprintf(format, args...))
	}
	s := strings.TrimSpace(spec)
	left, right, ok := strings.Cut(s, "<")
	if !ok {
		if strings.Contains(s, ">") {
			return bad("a token budget is a ceiling: write tokens<N")
		}
		return bad("write tokens<N (the tool set) or TOOL:tokens<N (one tool), e.g. tokens<4000")
	}
	th := TokenThreshold{Spec: spec}
	left, right = strings.TrimSpace(left), strings.TrimSpace(right)
	metric := left
	if tool, m, scoped := strings.Cut(left, ":"); scoped {
		th.Tool, metric = strings.TrimSpace(tool), strings.TrimSpace(m)
		if th.Tool == "" {
			return bad("no tool before :")
		}
	}
	if metric != MetricTokens {
		return bad("%q is not a lint metric (lint knows %s)", metric, MetricTokens)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(right, "="))
	if err != nil || strings.HasPrefix(right, "=") || n <= 0 {
		return bad("limit %q is not a whole number of tokens above 0", right)
	}
	th.Limit = n
	return th, nil
}

// TokenVerdict is a token budget judged on one report.
type TokenVerdict struct {
	Threshold string `json:"threshold"`
	Variant   string `json:"variant"`
	Tool      string `json:"tool,omitempty"`
	Encoding  string `json:"encoding"`
	Tokens    int    `json:"tokens"`
	Limit     int    `json:"limit"`
	Pass      bool   `json:"pass"`
}

// Judge judges the budget on a report's token cost. A tool the report
// does not have is an error, not a pass.
func (th TokenThreshold) Judge(r *Report) (TokenVerdict, error) {
	if r.Tokens == nil {
		return TokenVerdict{}, fmt.Errorf("threshold %q: the report has no token count", th.Spec)
	}
	v := TokenVerdict{Threshold: th.Spec, Variant: r.Variant, Tool: th.Tool, Encoding: r.Tokens.Encoding, Limit: th.Limit, Tokens: r.Tokens.Total}
	if th.Tool != "" {
		n, ok := r.Tokens.Tool(th.Tool)
		if !ok {
			return TokenVerdict{}, fmt.Errorf("threshold %q: no tool %q", th.Spec, th.Tool)
		}
		v.Tokens = n
	}
	v.Pass = v.Tokens < th.Limit
	return v, nil
}
