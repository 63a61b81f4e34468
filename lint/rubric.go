package lint

import (
	"slices"
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
}

// toolSet is the tools being linted with what every check needs to see
// of the others: siblings, mentions, the variant.
type toolSet struct {
	tools   []Tool
	byName  map[string]*Tool
	opts    Options
	content map[string][]string // tool → content stems of its description
	// Computed once per tool, so that comparing every tool with every
	// other costs a merge of two short sorted slices, not a tokenizing:
	norm  map[string]string  // tool → its description's words, joined
	stems map[string][]int32 // tool → its content stems as sorted ids
}

func newToolSet(tools []Tool, opts Options) *toolSet {
	ts := &toolSet{tools: tools, byName: make(map[string]*Tool, len(tools)), opts: opts, content: map[string][]string{},
		norm: make(map[string]string, len(tools)), stems: make(map[string][]int32, len(tools))}
	ids := map[string]int32{}
	for i := range ts.tools {
		t := &ts.tools[i]
		ts.byName[t.Name] = t
		content := contentStems(t.Description)
		ts.content[t.Name] = content
		ts.norm[t.Name] = normalized(t.Description)
		set := make([]int32, 0, len(content))
		for _, w := range content {
			id, ok := ids[w]
			if !ok {
				id = int32(len(ids))
				ids[w] = id
			}
			set = append(set, id)
		}
		slices.Sort(set)
		ts.stems[t.Name] = slices.Compact(set)
		t.byNature, t.byNatureKnown = t.readDestructiveByNature(), true
		t.wordSet = setOf(words(t.Description)...)
	}
	return ts
}

// siblings are the other tools on the same record type whose verbs share a
// family: the ones an agent may take for this one.
func (ts *toolSet) siblings(t *Tool) []*Tool {
	rec := t.record()
	if rec == "" {
		return nil
	}
	var out []*Tool
	for i := range ts.tools {
		u := &ts.tools[i]
		if u.Name != t.Name && u.record() == rec && u.family() == t.family() {
			out = append(out, u)
		}
	}
	return out
}

// onRecord lists the other tools on t's record type.
func (ts *toolSet) onRecord(t *Tool) []*Tool {
	rec := t.record()
	var out []*Tool
	for i := range ts.tools {
		u := &ts.tools[i]
		if rec != "" && u.Name != t.Name && u.record() == rec {
			out = append(out, u)
		}
	}
	return out
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
	ts := newToolSet(slices.Clone(tools), opts)
	r := Report{World: opts.World, Variant: opts.Variant, Overridden: opts.Overridden,
		Findings: []Finding{}, Tools: []ToolScore{}, Confusions: opts.Confusions}
	sums := make([]float64, len(checks))
	for i := range ts.tools {
		t := &ts.tools[i]
		score := ToolScore{Tool: t.Name}
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
	return r
}

func clamp(x, lo, hi float64) float64 { return max(lo, min(hi, x)) }
