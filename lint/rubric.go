package lint

import (
	"context"
	"slices"
	"strings"
)

// Options are what the rubric needs besides the tools themselves.
type Options struct {
	World   string // recorded in the report; may be empty
	Variant string // recorded on every finding
	// Overridden lists the tools whose text came from a descriptions file.
	Overridden []string
	// Confusions are the tool pairs a reader model found agents likely to
	// mix up (see MeasureConfusions); nil when no model was run, e.g. for
	// an external server's tool list without goals.
	Confusions []Confusion
	// Tokenizer counts what each tool's definition costs a model; nil
	// counts nothing.
	Tokenizer *Tokenizer
}

// toolSet is the tools being linted with what every check needs to see
// of the others: siblings, mentions, near-duplicates, the variant. It is
// built once, in time linear in the tools, so that no check has to walk
// every other tool for every tool.
type toolSet struct {
	tools  []Tool
	byName map[string]*Tool
	opts   Options
	// index is each tool's position in tools.
	index map[*Tool]int
	// content are each tool's content stems (by position).
	content [][]string
	// norm is each tool's description reduced to its words, joined;
	// sameText groups the tools by it (exact duplicates).
	norm     []string
	sameText map[string][]int
	// stems are each tool's distinct content stems as ids, sorted so that
	// the rarest stems across the tools come first; byPrefix lists, for a
	// stem id, the tools that have it among their first few (their
	// prefix): near-duplicates are found through it (disambiguation.go).
	stems    [][]int32
	byPrefix map[int32][]int32
	// onRec and inFamily group the tools by record type, and by record
	// type and verb family (the siblings).
	onRec    map[string][]*Tool
	inFamily map[string][]*Tool
	// finders are, per record type, the first two search tools and the
	// first two list tools (where an agent gets an id it lacks).
	searchers, listers map[string][]*Tool
	// confusions lists, per tool, the indexes of the confusions it is in.
	confusions map[string][]int
	// groups caches what the usage check reads of each sibling group.
	groups map[string]*siblingGroup
	// seen and stamp mark the tools twins has looked at for one tool
	// (seen[j] == stamp), without clearing a set per tool.
	seen  []int32
	stamp int32
}

func newToolSet(tools []Tool, opts Options) *toolSet {
	n := len(tools)
	ts := &toolSet{tools: tools, byName: make(map[string]*Tool, n), opts: opts, index: make(map[*Tool]int, n),
		content: make([][]string, n), norm: make([]string, n), sameText: make(map[string][]int, n),
		stems: make([][]int32, n), byPrefix: map[int32][]int32{},
		onRec: map[string][]*Tool{}, inFamily: map[string][]*Tool{},
		searchers: map[string][]*Tool{}, listers: map[string][]*Tool{}, confusions: map[string][]int{}, groups: map[string]*siblingGroup{}, seen: make([]int32, n)}
	df := map[string]int{} // stem → how many tools have it
	for i := range ts.tools {
		t := &ts.tools[i]
		ts.byName[t.Name] = t
		ts.index[t] = i
		t.verbName, t.recordName, t.familyName = t.readVerb(), t.record(), t.readFamily()
		t.namesKnown = true
		t.byNature, t.byNatureKnown = t.readDestructiveByNature(), true
		t.effectClass, t.effectKnown = t.readEffect(), true
		t.wordSet = setOf(words(t.Description)...)
		ts.content[i] = contentStems(t.Description)
		ts.norm[i] = normalized(t.Description)
		ts.sameText[ts.norm[i]] = append(ts.sameText[ts.norm[i]], i)
		for _, w := range distinct(ts.content[i]) {
			df[w]++
		}
		if rec := t.record(); rec != "" {
			ts.onRec[rec] = append(ts.onRec[rec], t)
			key := rec + "\x00" + t.family()
			ts.inFamily[key] = append(ts.inFamily[key], t)
			if t.kind() == "list" {
				if v := t.verb(); v == "search" || v == "find" || v == "query" {
					ts.searchers[rec] = appendUpTo(ts.searchers[rec], t, 2)
				} else {
					ts.listers[rec] = appendUpTo(ts.listers[rec], t, 2)
				}
			}
		}
	}
	// Stem ids in order of rarity: a tool's rarest stems are its prefix.
	all := make([]string, 0, len(df))
	for w := range df {
		all = append(all, w)
	}
	slices.SortFunc(all, func(a, b string) int {
		if df[a] != df[b] {
			return df[a] - df[b]
		}
		return strings.Compare(a, b)
	})
	ids := make(map[string]int32, len(all))
	for i, w := range all {
		ids[w] = int32(i)
	}
	for i := range ts.tools {
		set := make([]int32, 0, len(ts.content[i]))
		for _, w := range ts.content[i] {
			set = append(set, ids[w])
		}
		slices.Sort(set)
		set = slices.Compact(set)
		ts.stems[i] = set
		for _, id := range set[:prefixLength(len(set))] {
			ts.byPrefix[id] = append(ts.byPrefix[id], int32(i))
		}
	}
	for k, c := range opts.Confusions {
		ts.confusions[c.Tool] = append(ts.confusions[c.Tool], k)
		if c.Meant != c.Tool {
			ts.confusions[c.Meant] = append(ts.confusions[c.Meant], k)
		}
	}
	return ts
}

// distinct is ws without repeats, in first-seen order.
func distinct(ws []string) []string {
	seen := make(map[string]bool, len(ws))
	out := ws[:0:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func appendUpTo(ts []*Tool, t *Tool, n int) []*Tool {
	if len(ts) < n {
		return append(ts, t)
	}
	return ts
}

// siblings are the tools on the same record type whose verbs share a
// family with t's: the ones an agent may take for it. The slice includes t
// itself and is shared: callers skip t and do not modify it.
func (ts *toolSet) siblings(t *Tool) []*Tool {
	rec := t.record()
	if rec == "" {
		return nil
	}
	return ts.inFamily[rec+"\x00"+t.family()]
}

// onRecord lists the tools on t's record type, t included (shared, as
// siblings).
func (ts *toolSet) onRecord(t *Tool) []*Tool {
	if rec := t.record(); rec != "" {
		return ts.onRec[rec]
	}
	return nil
}

// mentions reports whether t's description names the tool called name.
func mentions(t *Tool, name string) bool {
	if t.wordSet != nil {
		return t.wordSet[name]
	}
	return slices.Contains(words(t.Description), name)
}

// check is one dimension of the rubric applied to one tool.
type check func(ts *toolSet, t *Tool) (score float64, findings []Finding)

// checks are the dimensions, in report order.
var checks = []struct {
	dim string
	run check
}{
	{DimPurpose, checkPurpose},
	{DimUsage, checkUsage},
	{DimSideEffects, checkSideEffects},
	{DimParams, checkParams},
	{DimLength, checkLength},
	{DimDisambiguation, checkDisambiguation},
	{DimAnnotations, checkAnnotations},
}

// finding makes a finding about t on dim.
func (ts *toolSet) finding(t *Tool, dim, level, msg, fix string) Finding {
	return Finding{Tool: t.Name, Variant: ts.opts.Variant, Dimension: dim, Level: level, Message: msg, Fix: fix}
}

// LintTools runs the rubric over a plain list of tool descriptors. It is
// deterministic: the same tools and options give the same report.
func LintTools(tools []Tool, opts Options) Report {
	r, _ := LintToolsContext(context.Background(), tools, opts)
	return r
}

// LintToolsContext is LintTools that stops when ctx is done (between two
// tools), returning ctx's error.
func LintToolsContext(ctx context.Context, tools []Tool, opts Options) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	ts := newToolSet(slices.Clone(tools), opts)
	r := Report{World: opts.World, Variant: opts.Variant, Overridden: opts.Overridden,
		Findings: []Finding{}, Tools: []ToolScore{}, Confusions: opts.Confusions}
	sums := make([]float64, len(checks))
	for i := range ts.tools {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		t := &ts.tools[i]
		score := ToolScore{Tool: t.Name, Effect: t.effect()}
		total := 0.0
		for j, c := range checks {
			s, fs := c.run(ts, t)
			s = round1(clamp(s, 0, 100))
			score.Dimensions = append(score.Dimensions, DimensionScore{Dimension: c.dim, Score: s})
			total += s
			sums[j] += s
			for _, f := range fs {
				r.Findings = append(r.Findings, f)
				switch f.Level {
				case LevelError:
					r.Counts.Errors++
				case LevelWarning:
					r.Counts.Warnings++
				default:
					r.Counts.Infos++
				}
			}
		}
		score.Score = round1(total / float64(len(checks)))
		r.Tools = append(r.Tools, score)
	}
	overall := 0.0
	for j, c := range checks {
		avg := 100.0
		if len(ts.tools) > 0 {
			avg = sums[j] / float64(len(ts.tools))
		}
		r.Dimensions = append(r.Dimensions, DimensionScore{Dimension: c.dim, Score: round1(avg)})
		overall += avg
	}
	r.Score = round1(overall / float64(len(checks)))
	if opts.Tokenizer != nil {
		r.Tokens = opts.Tokenizer.Cost(tools)
	}
	return r, nil
}

func clamp(x, lo, hi float64) float64 { return max(lo, min(hi, x)) }
