package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/stats"
)

// The HTML is checked with encoding/xml (golang.org/x/net/html is not in
// the module cache): the report is written XHTML-compatible on purpose, so
// a strict XML parse proves every element is closed and every attribute
// quoted.

func renderHTML(t *testing.T, res *report.Results) []byte {
	t.Helper()
	return render(t, func(b *bytes.Buffer) error { return report.HTML(b, res) })
}

// element is a parsed XML element: enough of a DOM for the checks below.
type element struct {
	Name     string
	Attr     map[string]string
	Text     string // all character data inside, children included
	Children []*element
}

func parseXHTML(t *testing.T, doc []byte) *element {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	root := &element{Name: "#document"}
	// Each open element collects its text; a closed one hands it to its
	// parent. (Appending every piece of text to every ancestor copies the
	// whole page once per text node: seconds per test.)
	stack := []*element{root}
	texts := []*strings.Builder{{}}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			l, c := dec.InputPos()
			t.Fatalf("the HTML is not well-formed at line %d col %d: %v", l, c, err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			e := &element{Name: tk.Name.Local, Attr: map[string]string{}}
			for _, a := range tk.Attr {
				e.Attr[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			top.Children = append(top.Children, e)
			stack = append(stack, e)
			texts = append(texts, &strings.Builder{})
		case xml.EndElement:
			n := len(stack) - 1
			stack[n].Text = texts[n].String()
			texts[n-1].WriteString(stack[n].Text)
			stack, texts = stack[:n], texts[:n]
		case xml.CharData:
			texts[len(texts)-1].Write(tk)
		}
	}
	if len(stack) != 1 {
		t.Fatalf("%d elements left open at the end of the document", len(stack)-1)
	}
	root.Text = texts[0].String()
	if len(root.Children) == 0 {
		t.Fatal("the HTML has no element at all")
	}
	return root
}

func (e *element) walk(f func(*element)) {
	f(e)
	for _, c := range e.Children {
		c.walk(f)
	}
}

func (e *element) find(pred func(*element) bool) []*element {
	var out []*element
	e.walk(func(x *element) {
		if pred(x) {
			out = append(out, x)
		}
	})
	return out
}

func hasClass(e *element, class string) bool {
	for _, c := range strings.Fields(e.Attr["class"]) {
		if c == class {
			return true
		}
	}
	return false
}

func TestHTMLIsWellFormedAndSelfContained(t *testing.T) {
	for name, res := range map[string]*report.Results{"fixture": fixture(), "no timing, no thresholds, URL target": func() *report.Results {
		r := fixture()
		r.Timing, r.Thresholds = nil, nil
		r.Run.Target = "http://127.0.0.1:8931/mcp" // shown as text, never as a link
		return r
	}()} {
		t.Run(name, func(t *testing.T) {
			doc := renderHTML(t, res)
			root := parseXHTML(t, doc)
			forbidden := []string{"//", "http:", "https:", "url(", "@import"}
			root.walk(func(e *element) {
				switch e.Name {
				case "script", "link", "img", "iframe", "object", "embed", "image", "use", "base":
					t.Errorf("<%s> in a self-contained report", e.Name)
				}
				for k, v := range e.Attr {
					for _, f := range forbidden {
						if strings.Contains(v, f) {
							t.Errorf("<%s %s=%q> holds %q: a reference outside the file", e.Name, k, v, f)
						}
					}
					if k == "src" || k == "href" && !strings.HasPrefix(v, "#") {
						t.Errorf("<%s %s=%q>: only in-page links are allowed", e.Name, k, v)
					}
				}
				if e.Name == "style" {
					for _, f := range forbidden {
						if strings.Contains(e.Text, f) {
							t.Errorf("<style> holds %q", f)
						}
					}
				}
			})
			if n := len(root.find(func(e *element) bool { return e.Name == "style" })); n != 1 {
				t.Errorf("%d <style> elements; want the one inlined stylesheet", n)
			}
			if !strings.Contains(string(doc), "@media print") {
				t.Error("no print stylesheet")
			}
			svgs := root.find(func(e *element) bool { return e.Name == "svg" })
			if len(svgs) < 40 {
				t.Errorf("only %d inline SVG charts", len(svgs))
			}
		})
	}
}

func TestHTMLHasEverySection(t *testing.T) {
	root := parseXHTML(t, renderHTML(t, fixture()))
	for _, id := range []string{"verdict", "misuse", "variants", "personas", "confusions", "faults", "lint", "latency", "inflight", "traces", "run"} {
		if len(root.find(func(e *element) bool { return e.Attr["id"] == id })) != 1 {
			t.Errorf("no section #%s", id)
		}
	}
	for _, chart := range []string{"forest", "hist", "line"} {
		if len(root.find(func(e *element) bool { return e.Name == "svg" && hasClass(e, chart) })) != 1 {
			t.Errorf("no %s chart", chart)
		}
	}
	banner := root.find(func(e *element) bool { return e.Attr["id"] == "verdict" })[0]
	if !strings.Contains(banner.Text, "NOT READY") {
		t.Error("the verdict banner does not say NOT READY")
	}
	// Lint is one line per goal, a link to the findings: not the findings.
	lint := root.find(func(e *element) bool { return e.Name == "tr" && hasClass(e, "lintrow") })
	if len(lint) == 0 || !strings.Contains(lint[0].Text, "1 error, 1 warning on archive_contact, delete_contact") ||
		len(lint[0].find(func(e *element) bool { return e.Name == "a" && e.Attr["href"] == "#lint" })) != 1 {
		t.Errorf("no one-line lint link beside the misuse map of hide_contact: %v", lint)
	}
	if strings.Contains(banner.Text, "NO THRESHOLDS") {
		t.Error("the banner shouts about thresholds")
	}
	// The banner's largest text is the finding.
	h1 := root.find(func(e *element) bool { return e.Name == "h1" })
	if len(h1) != 1 || h1[0].Text != "ambiguous raises destroyed_data 3.7% → 20.1%, p < 0.001" {
		t.Errorf("the finding reads %v; want the destroyed_data change", h1)
	}
	// Confusions most frequent first.
	confusions := root.find(func(e *element) bool { return e.Attr["id"] == "confusions" })[0]
	last := -1
	for _, tr := range confusions.find(func(e *element) bool { return e.Name == "tr" })[1:] {
		cells := tr.find(func(e *element) bool { return e.Name == "td" })
		n, _ := strconv.Atoi(cells[len(cells)-1].Text)
		if last >= 0 && n > last {
			t.Errorf("confusions not sorted by count: %d after %d", n, last)
		}
		last = n
	}
	traces := root.find(func(e *element) bool { return e.Name == "details" && hasClass(e, "trace") })
	if len(traces) == 0 {
		t.Fatal("no sampled traces")
	}
	for _, tr := range traces {
		if !strings.Contains(tr.Text, "herd replay mock:crm --seed 42 --agent ") {
			t.Errorf("trace without its replay command: %.80s", tr.Text)
		}
	}
	// The comparison rows are styled by the change: destroyed_data goes from
	// about 3% to 19% of hide_contact episodes under ambiguous.
	compare := root.find(func(e *element) bool { return e.Name == "table" && hasClass(e, "compare") })
	if len(compare) != 1 {
		t.Fatalf("%d comparison tables; want 1", len(compare))
	}
	styled := 0
	for _, tr := range compare[0].find(func(e *element) bool { return e.Name == "tr" }) {
		cells := tr.find(func(e *element) bool { return e.Name == "td" })
		if len(cells) > 1 && cells[0].Text == "hide_contact" && cells[1].Text == "destroyed_data" {
			styled++
			if tr.Attr["class"] != "worse" {
				t.Errorf("hide_contact destroyed_data comparison row has class %q; want worse", tr.Attr["class"])
			}
		}
	}
	if styled != 1 {
		t.Errorf("%d hide_contact destroyed_data comparison rows; want 1", styled)
	}
	// The percentile table: a column per percentile, the "all" row first
	// with its bootstrap intervals, numbers right-aligned.
	latency := root.find(func(e *element) bool { return e.Attr["id"] == "latency" })[0]
	var header []string
	for _, th := range latency.find(func(e *element) bool { return e.Name == "th" }) {
		header = append(header, th.Text)
	}
	if got := strings.Join(header, ","); got != "Tool,Calls,p50,p90,p99,p99.9" {
		t.Errorf("latency table header %q", got)
	}
	first := latency.find(func(e *element) bool { return e.Name == "tr" })[1] // after the header row
	cells := first.find(func(e *element) bool { return e.Name == "td" })
	if len(cells) != 6 || cells[0].Text != "all" || cells[1].Text != "12,000" || cells[1].Attr["class"] != "num" ||
		!strings.Contains(cells[4].Text, " ms [") {
		var texts []string
		for _, c := range cells {
			texts = append(texts, c.Text)
		}
		t.Errorf("first latency row %q; want all, 12,000 calls and p99 with its interval", texts)
	}
	if !strings.Contains(root.Text, fixture().Fingerprint()) {
		t.Error("the fingerprint is not shown")
	}
}

// rawDoc is the results document read with nothing of package report, so
// the expected counts below are computed independently of the renderer.
type rawDoc struct {
	Run struct {
		Variants []string `json:"variants"`
		Goals    []string `json:"goals"`
		Mix      []struct {
			Persona string `json:"persona"`
		} `json:"mix"`
	} `json:"run"`
	Counts []struct {
		Goal, Persona, Variant, Class, Severity string
		N                                       int
	} `json:"counts"`
	Classes []struct{ Goal, Class, Severity string } `json:"classes"`
	Paired  []struct {
		Goal, Class, A, B string
		Both              int `json:"both"`
		OnlyA             int `json:"only_a"`
		OnlyB             int `json:"only_b"`
		Neither           int `json:"neither"`
	} `json:"paired"`
	Thresholds []struct {
		Threshold string  `json:"threshold"`
		Result    string  `json:"result"`
		Value     float64 `json:"value"`
	} `json:"thresholds"`
}

// expectedCounts maps each data-key the HTML may show to the (k, n) the JSON
// says it must have.
func expectedCounts(doc rawDoc) map[string][2]int {
	exp := map[string][2]int{}
	sum := func(pred func(goal, persona, variant, class, severity string) bool) int {
		n := 0
		for _, c := range doc.Counts {
			if pred(c.Goal, c.Persona, c.Variant, c.Class, c.Severity) {
				n += c.N
			}
		}
		return n
	}
	for _, v := range doc.Run.Variants {
		for _, c := range doc.Classes {
			exp["class/"+c.Goal+"/"+c.Class+"/"+v] = [2]int{
				sum(func(g, _, vv, cl, _ string) bool { return g == c.Goal && vv == v && cl == c.Class }),
				sum(func(g, _, vv, _, _ string) bool { return g == c.Goal && vv == v }),
			}
		}
		exp["overall/harmful/"+v] = [2]int{
			sum(func(_, _, vv, _, s string) bool { return vv == v && s == "harmful" }),
			sum(func(_, _, vv, _, _ string) bool { return vv == v }),
		}
		for _, m := range doc.Run.Mix {
			exp["persona/harmful/"+m.Persona+"/"+v] = [2]int{
				sum(func(_, p, vv, _, s string) bool { return p == m.Persona && vv == v && s == "harmful" }),
				sum(func(_, p, vv, _, _ string) bool { return p == m.Persona && vv == v }),
			}
		}
		for _, goal := range doc.Run.Goals {
			exp["goal/harmful/"+goal+"/"+v] = [2]int{
				sum(func(g, _, vv, _, s string) bool { return g == goal && vv == v && s == "harmful" }),
				sum(func(g, _, vv, _, _ string) bool { return g == goal && vv == v }),
			}
		}
	}
	for _, p := range doc.Paired {
		n := p.Both + p.OnlyA + p.OnlyB + p.Neither
		k := "/" + p.Goal + "/" + p.Class + "/" + p.A + "/" + p.B
		exp["paired-a"+k] = [2]int{p.Both + p.OnlyA, n}
		exp["paired-b"+k] = [2]int{p.Both + p.OnlyB, n}
	}
	return exp
}

var rateText = regexp.MustCompile(`^([0-9.]+)% \[([0-9.]+)–([0-9.]+)\]$`)

// shownMatches checks a displayed percentage against the exact fraction,
// allowing only the rounding its decimals imply.
func shownMatches(shown string, exact float64) bool {
	v, err := strconv.ParseFloat(shown, 64)
	if err != nil {
		return false
	}
	decimals := 0
	if i := strings.IndexByte(shown, '.'); i >= 0 {
		decimals = len(shown) - i - 1
	}
	return math.Abs(v-exact*100) <= 0.5*math.Pow(10, -float64(decimals))+1e-9
}

// Every rate the HTML shows is the one the JSON implies: the counts on the
// element, and the estimate and interval in its text.
func TestHTMLShowsTheSameNumbersAsTheJSON(t *testing.T) {
	res := fixture()
	jsonDoc := render(t, func(b *bytes.Buffer) error { return report.JSON(b, res) })
	var doc rawDoc
	if err := json.Unmarshal(jsonDoc, &doc); err != nil {
		t.Fatal(err)
	}
	exp := expectedCounts(doc)
	root := parseXHTML(t, renderHTML(t, res))
	rates := root.find(func(e *element) bool { return e.Name == "span" && hasClass(e, "rate") })
	seen := map[string]int{}
	for _, e := range rates {
		key := e.Attr["data-key"]
		want, ok := exp[key]
		if !ok {
			t.Errorf("the HTML shows a rate %q the JSON has no counts for", key)
			continue
		}
		seen[strings.SplitN(key, "/", 2)[0]]++
		k, _ := strconv.Atoi(e.Attr["data-k"])
		n, _ := strconv.Atoi(e.Attr["data-n"])
		if k != want[0] || n != want[1] {
			t.Errorf("%s: HTML says %d of %d, JSON %d of %d", key, k, n, want[0], want[1])
		}
		text := strings.TrimSpace(e.Text)
		m := rateText.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: rate text %q is not \"p%% [lo–hi]\"", key, text)
			continue
		}
		ci := stats.Wilson(want[0], want[1], 0.95)
		p := float64(want[0]) / float64(want[1])
		if !shownMatches(m[1], p) || !shownMatches(m[2], ci.Lo) || !shownMatches(m[3], ci.Hi) {
			t.Errorf("%s: HTML shows %q; JSON counts give %.4f%% [%.4f–%.4f]", key, text, p*100, ci.Lo*100, ci.Hi*100)
		}
	}
	variants := len(doc.Run.Variants)
	wantSeen := map[string]int{
		"class":   len(doc.Classes) * variants,
		"overall": variants,
		"persona": len(doc.Run.Mix) * variants,
		"goal":    len(doc.Run.Goals) * variants,
	}
	for kind, want := range wantSeen {
		if seen[kind] != want {
			t.Errorf("%d %s rates shown; the JSON has %d", seen[kind], kind, want)
		}
	}
	realClassPairs := 0
	for _, p := range doc.Paired {
		if p.Class != "harmful" && p.Class != "failed" && p.Class != "ok" && p.Both+p.OnlyA+p.OnlyB > 0 {
			realClassPairs++
		}
	}
	if seen["paired-a"] < realClassPairs || seen["paired-a"] != seen["paired-b"] {
		t.Errorf("%d/%d paired rates shown; the JSON has %d class comparisons", seen["paired-a"], seen["paired-b"], realClassPairs)
	}
	// Verdicts: the banner shows each threshold with its result and value.
	rows := root.find(func(e *element) bool { return e.Name == "tr" && e.Attr["class"] != "" })
	for _, th := range doc.Thresholds {
		found := false
		for _, r := range rows {
			if strings.Contains(r.Text, th.Threshold) && strings.Contains(r.Text, th.Result) {
				found = true
			}
		}
		if !found {
			t.Errorf("threshold %s (%s) is not in the verdict table", th.Threshold, th.Result)
		}
	}
}
