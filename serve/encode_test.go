package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/herd-sh/herd/internal/jsonstr"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// tricky are strings that exercise every escaping rule of a JSON string.
var tricky = []string{"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "é ü 日本 😀", "bad \xff utf-8 \xc3", "line\u2028para\u2029end", "\u00a0nbsp", "\xe2\x80", "\xed\xa0\x80 surrogate"}

// sameAsSDK fails unless res, handed through encodeToolResults, encodes to
// the bytes the SDK's own encoding gives it — as the result alone and as a
// JSON-RPC response's result (where the SDK compacts it again).
func sameAsSDK(t *testing.T, what string, res *mcp.CallToolResult) {
	t.Helper()
	want, wantErr := res.MarshalJSON()
	wrapped, err := encodeToolResults(func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil })(context.Background(), "tools/call", nil)
	if err != nil {
		t.Fatalf("%s: the middleware failed: %v", what, err)
	}
	e, ok := wrapped.(*encodedToolResult)
	if !ok {
		t.Fatalf("%s: the middleware handed on a %T, not an encodedToolResult", what, wrapped)
	}
	got, err := e.MarshalJSON()
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s: error %v, the SDK's %v", what, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
	}
	// What goes on the wire: encoding/json validates and compacts a
	// MarshalJSON's output, without HTML escaping in the JSON-RPC layer.
	for _, escape := range []bool{false, true} {
		var gb, wb bytes.Buffer
		ge, we := json.NewEncoder(&gb), json.NewEncoder(&wb)
		ge.SetEscapeHTML(escape)
		we.SetEscapeHTML(escape)
		if err := ge.Encode(e); err != nil {
			t.Fatalf("%s: encoding/json refuses the encoding: %v", what, err)
		}
		if err := we.Encode(res); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gb.Bytes(), wb.Bytes()) {
			t.Fatalf("%s (HTML escaping %v):\n got %s\nwant %s", what, escape, gb.Bytes(), wb.Bytes())
		}
	}
}

func TestEncodedToolResultIsTheSDKs(t *testing.T) {
	files, err := filepath.Glob("../worlds/*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("the built-in worlds: %v %v", files, err)
	}
	reset := &control.MetaResetAnswer{Session: "s-1", Seed: "42", Key: "18446744073709551615", Goal: "hide_contact", Target: "c_0001",
		Journal: []engine.JournalCall{{Seq: 1, Tool: "get_contact", Args: map[string]any{"id": "c_0001 <&>"}}}}
	for _, file := range files {
		w, err := engine.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		b, err := w.Seed(7)
		if err != nil {
			t.Fatal(err)
		}
		for _, rt := range w.Types {
			recs := b.Records(rt)
			results := []engine.Result{{Records: recs}, {Records: []*engine.Record{}}, {Deleted: rt.Name + "_1"}}
			for _, rec := range recs {
				results = append(results, engine.Result{Record: rec})
			}
			for _, res := range results {
				out := toolResult(&res)
				sameAsSDK(t, w.Name+" "+rt.Name, out)
				out.Meta = mcp.Meta{control.ResetMeta: reset}
				sameAsSDK(t, w.Name+" "+rt.Name+" with a reset answer", out)
			}
		}
	}
	for _, s := range tricky {
		for _, ra := range []time.Duration{0, 1500 * time.Microsecond} {
			res := engine.Result{Err: &engine.ToolError{Code: "invalid_argument", Message: s, RetryAfter: ra}}
			sameAsSDK(t, "tool error "+s, toolResult(&res))
		}
	}
}

// A result of another shape than herd serve's own is encoded by the SDK,
// so its bytes are still the SDK's.
func TestEncodedToolResultFallsBackToTheSDK(t *testing.T) {
	body := answerJSON(`{"id":"c_1"}`)
	cases := map[string]*mcp.CallToolResult{
		"raw <, > and & in the structured content":  {Content: []mcp.Content{&mcp.TextContent{Text: `{"n":"<&>"}`}}, StructuredContent: answerJSON(`{"n":"<&>"}`)},
		"a raw U+2028 in the structured content":    {Content: []mcp.Content{&mcp.TextContent{Text: "{\"n\":\"\u2028\"}"}}, StructuredContent: answerJSON("{\"n\":\"\u2028\"}")},
		"a text that is not the structured content": {Content: []mcp.Content{&mcp.TextContent{Text: "other"}}, StructuredContent: body},
		"two contents":                   {Content: []mcp.Content{&mcp.TextContent{Text: string(body)}, &mcp.TextContent{Text: "b"}}, StructuredContent: body},
		"no content":                     {Content: []mcp.Content{}, StructuredContent: body},
		"an image":                       {Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}, StructuredContent: body},
		"an annotated text":              {Content: []mcp.Content{&mcp.TextContent{Text: string(body), Annotations: &mcp.Annotations{Priority: 1}}}, StructuredContent: body},
		"a text with its own _meta":      {Content: []mcp.Content{&mcp.TextContent{Text: string(body), Meta: mcp.Meta{"k": 1}}}, StructuredContent: body},
		"the server's identity in _meta": {Meta: mcp.Meta{mcp.MetaKeyServerInfo: map[string]any{"name": "herd"}}, Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: body},
		"a request state":                {Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: body, RequestState: "s"},
	}
	for what, res := range cases {
		sameAsSDK(t, what, res)
	}
	// A result changed after the middleware saw it is the SDK's to encode.
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: body}
	wrapped, _ := encodeToolResults(func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil })(context.Background(), "tools/call", nil)
	res.StructuredContent = answerJSON(`{"id":"c_2"}`)
	got, _ := wrapped.(*encodedToolResult).MarshalJSON()
	want, _ := res.MarshalJSON()
	if !bytes.Equal(got, want) || !bytes.Contains(got, []byte("c_2")) {
		t.Fatalf("changed after the middleware:\n got %s\nwant %s", got, want)
	}
	// Results that are not herd serve's own are handed on as they are.
	other := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}, StructuredContent: json.RawMessage("{}")}
	if got, _ := encodeToolResults(func(context.Context, string, mcp.Request) (mcp.Result, error) { return other, nil })(context.Background(), "tools/call", nil); got != mcp.Result(other) {
		t.Fatalf("a result with a json.RawMessage was handed on as %T", got)
	}
}

// The SDK's per-request protocol sets a result type and the server's
// identity after every middleware: such a result is encoded by the SDK.
func TestEncodedToolResultKeepsTheSDKsAdditions(t *testing.T) {
	body := answerJSON(`{"id":"c_1"}`)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}, StructuredContent: body}
	wrapped, _ := encodeToolResults(func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil })(context.Background(), "tools/call", nil)
	// What ServerSession.handle does to a result of that protocol, through
	// the Result interface.
	m := wrapped.GetMeta()
	if m == nil {
		m = map[string]any{}
	}
	m[mcp.MetaKeyServerInfo] = &mcp.Implementation{Name: "herd", Version: "1"}
	wrapped.SetMeta(m)
	got, err := json.Marshal(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(res)
	if !bytes.Equal(got, want) || !bytes.Contains(got, []byte(mcp.MetaKeyServerInfo)) {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestAppendJSONStringIsEncodingJSONs(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonstr.Append([]byte("x"), []byte(s)); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("%q:\n got %s\nwant x%s", s, got, want)
		}
	}
	for _, s := range tricky {
		check(s)
	}
	for c := range 256 {
		check(string([]byte{byte(c)}))
		check("a" + string([]byte{byte(c)}) + "b")
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab\"\\<>&\x00\x1f\n\t\x7f\xc3\xa9\xe2\x80\xa8\xa9\xff\xf0\x9f\x98\x80 ")
	for range 20000 {
		b := make([]byte, rnd.IntN(24))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// BenchmarkToolResultEncoding is the encoding of a list of 20 contacts as
// herd serve sends it, through the SDK's encoding and through
// encodedToolResult; in both, encoding/json then validates and compacts
// the result once more, as the JSON-RPC layer does.
func BenchmarkToolResultEncoding(b *testing.B) {
	w := loadCRM(b)
	base, err := w.Seed(42)
	if err != nil {
		b.Fatal(err)
	}
	recs := base.Records(w.Types[0])
	res := engine.Result{Records: recs[:min(20, len(recs))]}
	out := toolResult(&res)
	encode := func(b *testing.B, v any) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(v); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len()), "bytes/answer")
	}
	b.Run("sdk", func(b *testing.B) { encode(b, out) })
	b.Run("encoded", func(b *testing.B) {
		encode(b, &encodedToolResult{CallToolResult: out, body: out.StructuredContent.(answerJSON)})
	})
}
