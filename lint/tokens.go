package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

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
type Tokenizer struct {
	name string
	enc  *tiktoken.Tiktoken
}

// NewTokenizer loads an encoding (one of Encodings) from the embedded
// vocabularies.
func NewTokenizer(encoding string) (*Tokenizer, error) {
	if !slices.Contains(Encodings, encoding) {
		return nil, fmt.Errorf("encoding %q: want one of %s", encoding, strings.Join(Encodings, ", "))
	}
	useOfflineVocabularies()
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", encoding, err)
	}
	return &Tokenizer{name: encoding, enc: enc}, nil
}

// Encoding is the encoding's name (o200k_base).
func (t *Tokenizer) Encoding() string { return t.name }

// Count is the number of tokens of s. Special-token text in s
// ("<|endoftext|>") is counted as ordinary text, as a model's input
// encoder treats text that is not a control token.
func (t *Tokenizer) Count(s string) int { return len(t.enc.EncodeOrdinary(s)) }

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
