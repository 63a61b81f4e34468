package personas

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/herd-sh/herd/engine"

	"github.com/herd-sh/herd/internal/stemset"
)

// Model is the reader model's precomputed view of a world under one
// description variant: every tool's text read by its structure, its visible
// words at each attention level, every goal's intents matched against every
// tool, and (lazily, per persona) the choice distributions. It is immutable
// after NewModel, apart from those caches, and safe for many goroutines.
// The choice cache holds one entry per goal and *Persona: reuse the pack's
// personas rather than making one per episode.
type Model struct {
	world   *engine.World
	variant string
	rel     *relater
	texts   []*toolText
	views   [][attentionLevels]view // per tool, per attention level, under the variant
	ideal   [][attentionLevels]view // the same under the world's first variant, unchanged: what meant's tie-break reads
	goals   []*goalView
	byGoal  map[*engine.Goal]*goalView
	types   map[*engine.RecordType]int
	getTool []int // per record type: the tool that fetches one by key, -1 when none
	lists   [][]int
	all     []int           // every tool index
	verbs   map[string]bool // the tools' action words
	// actions are the words that name an action: the tools' action words,
	// both lexicons' words, read verbs and opposites (for readers of error
	// messages and other texts after the first choice).
	actions map[string]bool

	// meantOnce: meant is found by trying tools on the world, once, on
	// first use (a pointer, so that a copy of the model shares it).
	meantOnce *sync.Once
	advice    *adviceTable // what the texts say to do after choosing (advice.go)
}

// NewModel builds the reader model of a world under a description variant.
func NewModel(w *engine.World, variant string) (*Model, error) {
	return NewModelWith(w, variant, nil)
}

// NewModelWith is NewModel with some tool descriptions replaced (tool name
// → text): how a tool author tries a new wording without editing the world.
func NewModelWith(w *engine.World, variant string, descriptions map[string]string) (*Model, error) {
	if w == nil {
		return nil, fmt.Errorf("personas: no world")
	}
	if !w.HasVariant(variant) {
		return nil, fmt.Errorf("world %s: no description variant %q (it has %s)", w.Name, variant, strings.Join(w.Variants, ", "))
	}
	toolIndex := make(map[string]int, len(w.Tools))
	for i, t := range w.Tools {
		toolIndex[t.Name] = i
	}
	// Sorted, so that of several unknown names the same one is reported.
	for _, name := range slices.Sorted(maps.Keys(descriptions)) {
		if _, ok := toolIndex[name]; !ok {
			return nil, fmt.Errorf("world %s: descriptions: no tool named %q", w.Name, name)
		}
	}
	m := &Model{world: w, variant: variant, rel: newRelater(w.Lexicon), types: map[*engine.RecordType]int{}, meantOnce: new(sync.Once)}
	for i, rt := range w.Types {
		m.types[rt] = i
	}
	texts := make([]string, len(w.Tools))
	for i, t := range w.Tools {
		texts[i] = t.Description(variant)
		if d, ok := descriptions[t.Name]; ok {
			texts[i] = d
		}
	}
	m.texts = readTexts(w, texts, m.rel)
	tn := newToolNames(w, m.rel)
	m.views = make([][attentionLevels]view, len(w.Tools))
	for i, t := range w.Tools {
		m.views[i] = buildViews(t, i, m.texts[i], tn, m.rel)
	}
	// Meant's tie-break reads the world's first variant, whatever this
	// model reads.
	m.ideal = m.views
	if variant != w.DefaultVariant() || len(descriptions) > 0 {
		first := make([]string, len(w.Tools))
		for i, t := range w.Tools {
			first[i] = t.Description(w.DefaultVariant())
		}
		ft := readTexts(w, first, m.rel)
		m.ideal = make([][attentionLevels]view, len(w.Tools))
		for i, t := range w.Tools {
			m.ideal[i] = buildViews(t, i, ft[i], tn, m.rel)
		}
	}
	m.getTool = make([]int, len(w.Types))
	m.lists = make([][]int, len(w.Types))
	for i := range m.getTool {
		m.getTool[i] = -1
	}
	m.verbs = map[string]bool{}
	for i, t := range w.Tools {
		m.all = append(m.all, i)
		if v := m.views[i][seeName].verb; v != "" {
			m.verbs[v] = true
		}
		if t.Record == nil {
			continue
		}
		ri := m.types[t.Record]
		switch {
		case t.Kind == engine.KindGet && t.Key != "" && m.getTool[ri] < 0:
			m.getTool[ri] = i
		case t.Kind == engine.KindList:
			m.lists[ri] = append(m.lists[ri], i)
		}
	}
	m.actions = maps.Clone(m.verbs)
	for _, lx := range []*lexicon{m.rel.domain, m.rel.world} {
		for k := range lx.words {
			m.actions[k] = true
		}
	}
	for k := range readVerbs {
		m.actions[k] = true
	}
	for k := range m.rel.antonyms {
		m.actions[k] = true
	}
	m.advice = readAdvice(m, descriptions)
	mt := newMatcher(m.rel)
	m.byGoal = make(map[*engine.Goal]*goalView, len(w.Goals))
	for _, g := range w.Goals {
		gv := m.newGoalView(g, mt)
		m.goals = append(m.goals, gv)
		m.byGoal[g] = gv
	}
	return m, nil
}

// readTexts reads every tool's description by its structure, then marks
// the sentences most of the world's tools share nearly verbatim: a
// boilerplate sentence ("This tool is part of the Acme API") tells tools
// apart no more than silence, and a skimmer reads past it.
func readTexts(w *engine.World, descs []string, r *relater) []*toolText {
	out := make([]*toolText, len(descs))
	// Each sentence's stems (less the tool's own name words) as sorted
	// ids: comparing two is a merge, so that a world of thousands of tools
	// costs seconds here, not minutes.
	ids := map[string]int32{}
	sigs := make([][][]int32, len(descs))
	cmds := newCommandNames(w)
	for i, d := range descs {
		out[i] = &toolText{segs: readStructure(cmds.rewrite(d))}
		own := stemSet(strings.Fields(nameWords(w.Tools[i].Name))...)
		sigs[i] = make([][]int32, len(out[i].segs))
		for k, s := range out[i].segs {
			var set []int32
			for _, st := range stems(nameWords(s.text)) {
				if own[st] {
					continue
				}
				id, ok := ids[st]
				if !ok {
					id = int32(len(ids))
					ids[st] = id
				}
				set = append(set, id)
			}
			slices.Sort(set)
			sigs[i][k] = slices.Compact(set)
		}
	}
	n := len(descs)
	if n < 3 {
		return out
	}
	for i := range out {
		for k := range out[i].segs {
			mine := sigs[i][k]
			if len(mine) < 4 {
				continue // "Read-only." is information, however common
			}
			// Boilerplate when more than half the tools share the
			// sentence: stop counting as soon as that is decided.
			shared, left := 1, n-1
			for j := range out {
				if j == i {
					continue
				}
				left--
				for _, other := range sigs[j] {
					if similarSets(mine, other) {
						shared++
						break
					}
				}
				if 2*shared > n || 2*(shared+left) <= n {
					break
				}
			}
			out[i].segs[k].boiler = 2*shared > n
			out[i].segs[k].doing = out[i].segs[k].boiler && readsAsDoing(out[i].segs[k].text, r)
		}
	}
	return out
}

// readsAsDoing reports whether a sentence opens the way a description of
// what a tool does opens, with a verb in the third person ("Manages
// members, bookings and building access for the co-working space"), and
// not the way reference does ("This tool is part of the Acme API", "Part
// of the Vault API v2", "Calls the Admin API on behalf of the app",
// "Requires a token"). A reader of one sentence takes the first for what
// the tool does, and learns nothing from it when every tool opens so.
func readsAsDoing(text string, r *relater) bool {
	f := strings.Fields(text)
	if len(f) < 2 {
		return false
	}
	w := strings.ToLower(strings.Trim(f[0], `"'*_`+"`"))
	if len(w) < 4 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "'s") {
		return false
	}
	k := r.general.stem(w)
	if referenceVerbs[k] {
		return false
	}
	share := r.general.verbShare(k)
	return !math.IsNaN(share) && share >= doingVerbShare
}

// doingVerbShare is how verb-like (WordNet's share of verb senses, by
// frequency) an opening word must be to be read as a verb: "manages" is
// 0.36, as "management" shares its stem; "part" and "available" are far
// below.
const doingVerbShare = 0.3

// referenceVerbs open reference, not what a tool does: it calls an API,
// requires or needs a token, uses a key, counts against a quota, returns
// an object, sends a webhook, applies to a plan.
var referenceVerbs = stemSet("calls", "requires", "needs", "uses", "counts", "returns", "sends", "applies", "belongs", "runs", "costs", "supports", "accepts", "emits", "authenticates")

// boilerplateSimilarity is how alike (shared words over all words) two
// sentences must be to count as the same sentence.
const boilerplateSimilarity = 0.75

// similarSets reports whether two sorted, duplicate-free stem sets have a
// Jaccard index of at least boilerplateSimilarity.
func similarSets(a, b []int32) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	// The index cannot reach the bar when the sizes are too far apart.
	if float64(min(len(a), len(b))) < boilerplateSimilarity*float64(max(len(a), len(b))) {
		return false
	}
	return stemset.Jaccard(a, b) >= boilerplateSimilarity
}

// isAction tells the words a goal's verb is recognised by: the tools'
// action words, and what the relater knows as actions.
func (m *Model) isAction(k string) bool { return m.verbs[k] || m.rel.isAction(k) }

// World returns the model's world.
func (m *Model) World() *engine.World { return m.world }

// Variant returns the description variant the model reads.
func (m *Model) Variant() string { return m.variant }

// idealReader is who breaks meant's ties: reads everything, heeds every
// warning, takes synonyms at half weight, believes no promotion, is not
// swayed by order, and always picks the best.
var idealReader = Traits{Attention: 1, Caution: 1, Literalness: 0.5, Noise: 1, Patience: 1, Retry: RetryPolicy{Mode: RetryNone}}

// Meant is the tool the goal needs ("" for a goal of another world): the
// one whose ideal call reaches the goal's ok outcome in the world itself
// (meant.go).
func (m *Model) Meant(g *engine.Goal) string {
	gv := m.byGoal[g]
	if gv == nil {
		return ""
	}
	m.ensureMeant()
	return m.world.Tools[gv.meant].Name
}

// MeantHow says how Meant was found: "world" (its ideal call alone reached
// the ok outcome), "world, pair" (with a second tool, for a goal of two
// actions) or "reader" (no tool did; the ideal reader's pick).
func (m *Model) MeantHow(g *engine.Goal) string {
	gv := m.byGoal[g]
	if gv == nil {
		return ""
	}
	m.ensureMeant()
	return gv.meantHow
}

// Scores are a persona's first-choice scores for the goal: every tool with
// its score and the probability of being chosen. Nil for a goal of another
// world or a persona whose traits are out of range.
func (m *Model) Scores(p *Persona, g *engine.Goal) []ToolScore {
	gv := m.byGoal[g]
	if gv == nil || p == nil || p.Traits.Validate() != nil {
		return nil
	}
	c := gv.choiceFor(m, p)
	return c.acts[0].toolScores(m, nil)
}

// Confidence is how surely a persona finds the goal's first action among
// the tools, in [0, 1]: the best match of the goal's verb in any tool's
// action as the persona reads them. Near 0, no tool says it does what the
// goal asks and the first choice is close to a guess — a reason to look
// around first. -1 for a goal of another world or invalid traits.
func (m *Model) Confidence(p *Persona, g *engine.Goal) float64 {
	gv := m.byGoal[g]
	if gv == nil || p == nil || p.Traits.Validate() != nil {
		return -1
	}
	return round4(gv.choiceFor(m, p).acts[0].confidence)
}

// Explain breaks a persona's first-choice scores for the goal into their
// parts, with the probability of each tool being chosen first: why a
// persona chose what it chose. Nil for a goal of another world or a
// persona whose traits are out of range.
func (m *Model) Explain(p *Persona, g *engine.Goal) []ScoreParts {
	gv := m.byGoal[g]
	if gv == nil || p == nil || p.Traits.Validate() != nil {
		return nil
	}
	parts, _ := m.scoreParts(gv.readings[0], m.all, p.Traits)
	c := gv.choiceFor(m, p)
	for i, ts := range c.acts[0].toolScores(m, nil) {
		parts[i].P = ts.P
	}
	return parts
}

// goalView is everything about a goal that does not depend on the agent.
type goalView struct {
	goal     *engine.Goal
	actions  []intent   // what the goal asks for, in order (at least one)
	readings []*reading // each action matched against every tool
	ideal    *reading   // the first action matched against the first variant's texts (meant's tie-break)
	meant    int
	meantHow string

	idKeyFor map[string]string // tool key param → knows key holding that id
	// lookup: per record type, the knows key and the field it matches, and
	// the intent a lookup reads list tools for.
	lookups []lookupSpec
	explore *reading
	fills   [][2][]fill // per tool, per (attention < full, full): per param

	choices sync.Map // *Persona → *choice
}

type lookupSpec struct {
	known  string        // knows key ("" when the agent cannot look this type up)
	field  *engine.Field // the field it matches
	intent *reading
	others []knownField // further known fields to tell same-named records apart
}

type knownField struct {
	known string
	field *engine.Field
}

// fill is where one parameter's value comes from.
type fill struct {
	known   string        // a knows key
	version *engine.Field // an expected-version param: the record field it echoes
	// copied: a create's required parameter nothing known fills, taken
	// from the record the goal is about (its field of this name, or its
	// id for a reference to it): the agent makes the new record as a copy
	// of the one it has, the way "book them a table for six" is filled
	// with the booking's own slot.
	copied   *engine.Field
	copiedID bool
}

// copiesTarget reports whether any parameter is filled from the goal's
// target record.
func copiesTarget(fills []fill) bool {
	for _, f := range fills {
		if f.copied != nil || f.copiedID {
			return true
		}
	}
	return false
}

// newGoalView builds a goal's view: its intents, matched against every
// tool's views.
func (m *Model) newGoalView(g *engine.Goal, mt *matcher) *goalView {
	w := m.world
	gv := &goalView{goal: g, idKeyFor: map[string]string{}}
	strong := func(k string) bool { return m.verbs[k] || m.rel.isActionWord(k) }
	gv.actions = parseIntentWith(removePlaceholders(subjectPlaceholders(g.Intent)), m.isAction, strong, m.rel)
	known := knownValueWords(g.Intent)
	isField := func(name string) bool { return g.Target != nil && g.Target.Field(name) != nil }
	plain := removePlaceholders(g.Intent)
	otherObject, manner, erases := otherObjects(w, g, plain), mannerAdverbs(plain), erasesKept(m, g, plain)
	var otherTypes []string
	for _, rt := range w.Types {
		if rt != g.Target {
			otherTypes = append(otherTypes, stems(strings.ReplaceAll(rt.Name, "_", " "))...)
		}
	}
	for i := range gv.actions {
		gv.actions[i].otherObject, gv.actions[i].manner, gv.actions[i].erasesKept = otherObject, manner, erases
		gv.actions[i].otherTypes = otherTypes
		gv.actions[i].forbids = forbiddenActions(plain, &gv.actions[i], m.rel)
		if erases != nil {
			// "Get rid of it for good, but keep it on file": to end it
			// and keep the record is to cancel it (void it, revoke it).
			gv.actions[i].preserve = true
			gv.actions[i].addSense(key("cancel"), keptEndWeight)
		}
		gv.actions[i].readRecordThat(plain)
		gv.actions[i].readRemoveButKeep(m.rel)
		gv.actions[i].addContext(known)
		gv.actions[i].readForAWhile(plain) // a placeholder's dot ("{{knows.months}}") is no clause break
		gv.actions[i].preserve = gv.actions[i].preserve || getBack.MatchString(g.Intent)
		gv.actions[i].readWhen(g.Intent)
		gv.actions[i].readNewValue(g.KnowsKeys, isField)
	}
	for _, in := range gv.actions {
		gv.readings = append(gv.readings, mt.newReading(in, m.views))
	}
	gv.ideal = gv.readings[0]
	if !sameViews(m.ideal, m.views) {
		gv.ideal = mt.newReading(gv.actions[0], m.ideal)
	}
	for _, k := range g.KnowsKeys {
		for _, t := range w.Tools {
			if t.Key != "" && t.Key != "id" && k == t.Key {
				gv.idKeyFor[t.Key] = k
			}
		}
	}
	gv.lookups = make([]lookupSpec, len(w.Types))
	for ri, rt := range w.Types {
		ls := lookupSpec{}
		for _, k := range g.KnowsKeys {
			f := knownFieldOf(rt, k)
			if f == nil {
				continue
			}
			if ls.known == "" {
				ls.known, ls.field = k, f
				ls.intent = mt.newReading(lookupIntent(rt, f.Name, m.rel, m.isAction), m.views)
				continue
			}
			ls.others = append(ls.others, knownField{known: k, field: f})
		}
		gv.lookups[ri] = ls
	}
	gv.explore = mt.newReading(exploreIntent(g.Target, m.rel, m.isAction), m.views)
	gv.fills = make([][2][]fill, len(w.Tools))
	for ti, t := range w.Tools {
		for b := 0; b < 2; b++ {
			gv.fills[ti][b] = fillsFor(t, g, b == 1)
		}
	}
	return gv
}

// sameViews reports whether two view tables are one.
func sameViews(a, b [][attentionLevels]view) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// knownFieldOf is the field of rt a knows key names: the same name, or the
// key's last word ("customer_email" → email). Ids and datetimes are not
// looked up.
func knownFieldOf(rt *engine.RecordType, key string) *engine.Field {
	f := rt.Field(key)
	if f == nil {
		if i := strings.LastIndexByte(key, '_'); i >= 0 {
			f = rt.Field(key[i+1:])
		}
	}
	if f == nil || f.Type == engine.FieldID || f.Type == engine.FieldDatetime || f.Type == engine.FieldRef {
		return nil
	}
	return f
}

// choice is one persona's precomputed distributions for one goal: the
// first choice depends only on (variant, goal, persona), never on the
// agent's seed, so it is computed once and every episode only samples.
type choice struct {
	traits  Traits
	level   attentionLevel
	acts    []dist // per action of the goal
	lookup  []dist // per record type
	explore dist
}

func (gv *goalView) choiceFor(m *Model, p *Persona) *choice {
	if c, ok := gv.choices.Load(p); ok {
		if c := c.(*choice); c.traits == p.Traits {
			return c
		}
	}
	m.ensureMeant()
	c := gv.newChoice(m, p.Traits)
	gv.choices.Store(p, c)
	return c
}

func (gv *goalView) newChoice(m *Model, tr Traits) *choice {
	c := &choice{traits: tr, level: levelOf(tr.Attention)}
	c.acts = make([]dist, len(gv.actions))
	for i, rd := range gv.readings {
		c.acts[i] = m.newDist(rd, m.all, tr)
		slip, _ := m.scoreParts(rd, m.all, slipTraits(tr))
		c.acts[i].lapse(lapseShare(c.acts[i].scores, m.informed(rd, m.all, c.level)), tr.Noise, slip)
		if i > 0 {
			c.acts[i].covers = m.coverage(rd, m.all, tr)
		}
	}
	c.lookup = make([]dist, len(m.world.Types))
	for ri := range m.world.Types {
		ls := &gv.lookups[ri]
		if ls.known == "" || len(m.lists[ri]) == 0 {
			continue
		}
		c.lookup[ri] = m.newDist(ls.intent, m.lists[ri], tr)
	}
	if ti := m.types[gv.goal.Target]; len(m.lists[ti]) > 0 {
		c.explore = m.newDist(gv.explore, m.lists[ti], tr)
	}
	return c
}

// newDist scores candidates for a reading and makes the distribution.
func (m *Model) newDist(rd *reading, cands []int, tr Traits) dist {
	parts, conf := m.scoreParts(rd, cands, tr)
	scores := make([]float64, len(parts))
	for i, p := range parts {
		scores[i] = p.Score
	}
	return newDist(cands, scores, tr.Noise, conf)
}
