package personas

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/herd-sh/herd/engine"
)

// Model is the reader model's precomputed view of a world under one
// description variant: every tool's visible text at each attention level,
// every goal's words, and (lazily, per persona) the choice distributions.
// It is immutable after NewModel, apart from that cache, and safe for many
// goroutines. The cache holds one entry per goal and *Persona: reuse the
// pack's personas rather than making one per episode.
type Model struct {
	world   *engine.World
	variant string
	lex     *lexicon
	views   [][3]view // per tool, per attention level, under the variant
	goals   []*goalView
	byGoal  map[*engine.Goal]*goalView
	types   map[*engine.RecordType]int
	getTool []int // per record type: the tool that fetches one by key, -1 when none
	lists   [][]int
	all     []int           // every tool index
	actions map[string]bool // words that name an action: tool verbs, lexicon words
	advice  *adviceTable    // what the texts say to do after choosing (advice.go)
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
	m := &Model{world: w, variant: variant, lex: newLexicon(w.Lexicon), types: map[*engine.RecordType]int{}}
	for i, rt := range w.Types {
		m.types[rt] = i
	}
	m.views = make([][3]view, len(w.Tools))
	// Meant is judged on the world's first variant, whatever this model
	// reads. Those views are needed only to build the goals below, and are
	// the model's own when it reads that variant unchanged.
	ideal := m.views
	ownIdeal := variant != w.Variants[0] || len(descriptions) > 0
	if ownIdeal {
		ideal = make([][3]view, len(w.Tools))
	}
	m.getTool = make([]int, len(w.Types))
	m.lists = make([][]int, len(w.Types))
	for i := range m.getTool {
		m.getTool[i] = -1
	}
	for i, t := range w.Tools {
		text := t.Description(variant)
		if d, ok := descriptions[t.Name]; ok {
			text = d
		}
		m.views[i] = buildViews(t, i, text, toolIndex)
		if ownIdeal {
			ideal[i] = buildViews(t, i, t.Description(w.Variants[0]), toolIndex)
		}
		m.all = append(m.all, i)
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
	m.actions = actionWords(m)
	m.advice = readAdvice(m, descriptions)
	m.byGoal = make(map[*engine.Goal]*goalView, len(w.Goals))
	for _, g := range w.Goals {
		gv := m.newGoalView(g, ideal)
		m.goals = append(m.goals, gv)
		m.byGoal[g] = gv
	}
	return m, nil
}

// actionWords are the words a goal's verb is recognised by: the first word
// of every tool's name, every lexicon word, read verbs and antonyms.
func actionWords(m *Model) map[string]bool {
	out := map[string]bool{}
	for _, v := range m.views {
		if v[seeName].verb != "" {
			out[v[seeName].verb] = true
		}
	}
	for w := range m.lex.words {
		out[w] = true
	}
	for w := range readVerbs {
		out[w] = true
	}
	for w := range antonyms {
		out[w] = true
	}
	return out
}

// World returns the model's world.
func (m *Model) World() *engine.World { return m.world }

// Variant returns the description variant the model reads.
func (m *Model) Variant() string { return m.variant }

// idealReader is who Meant asks: reads everything, heeds every warning,
// takes synonyms at half weight, and always picks the best.
var idealReader = Traits{Attention: 1, Caution: 1, Literalness: 0.5, Noise: 1, Patience: 1, Retry: RetryPolicy{Mode: RetryNone}}

// Meant is the tool an ideal reader chooses for the goal under the world's
// first variant ("" for a goal of another world).
func (m *Model) Meant(g *engine.Goal) string {
	gv := m.byGoal[g]
	if gv == nil {
		return ""
	}
	return m.world.Tools[gv.meant].Name
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

// Explain breaks a persona's first-choice scores for the goal into their
// parts, with the probability of each tool being chosen first: why a
// persona chose what it chose. Nil for a goal of another world or a
// persona whose traits are out of range.
func (m *Model) Explain(p *Persona, g *engine.Goal) []ScoreParts {
	gv := m.byGoal[g]
	if gv == nil || p == nil || p.Traits.Validate() != nil {
		return nil
	}
	parts := scoreParts(m, m.views, &gv.actions[0], m.all, p.Traits)
	c := gv.choiceFor(m, p)
	for i, ts := range c.acts[0].toolScores(m, nil) {
		parts[i].P = ts.P
	}
	return parts
}

// goalView is everything about a goal that does not depend on the agent.
type goalView struct {
	goal    *engine.Goal
	actions []intent // what the goal asks for, in order (at least one)
	meant   int

	idKeyFor map[string]string // tool key param → knows key holding that id
	// lookup: per record type, the knows key and the field it matches, and
	// the intent a lookup reads list tools for.
	lookups []lookupSpec
	explore intent
	fills   [][2][]fill // per tool, per (attention < full, full): per param

	choices sync.Map // *Persona → *choice
}

type lookupSpec struct {
	known  string        // knows key ("" when the agent cannot look this type up)
	field  *engine.Field // the field it matches
	intent intent
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
}

// newGoalView builds a goal's view; ideal is every tool's views under the
// world's first variant, which Meant is judged on.
func (m *Model) newGoalView(g *engine.Goal, ideal [][3]view) *goalView {
	w := m.world
	gv := &goalView{goal: g, actions: parseIntent(removePlaceholders(g.Intent), m.actions), idKeyFor: map[string]string{}}
	scores := scoreTools(m, ideal, &gv.actions[0], m.all, idealReader)
	for i, s := range scores {
		if s > scores[gv.meant] {
			gv.meant = i
		}
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
				ls.intent = lookupIntent(rt, f.Name)
				continue
			}
			ls.others = append(ls.others, knownField{known: k, field: f})
		}
		gv.lookups[ri] = ls
	}
	gv.explore = exploreIntent(g.Target)
	gv.fills = make([][2][]fill, len(w.Tools))
	for ti, t := range w.Tools {
		for b := 0; b < 2; b++ {
			gv.fills[ti][b] = fillsFor(t, g, b == 1)
		}
	}
	return gv
}

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
	c := gv.newChoice(m, p.Traits)
	gv.choices.Store(p, c)
	return c
}

func (gv *goalView) newChoice(m *Model, tr Traits) *choice {
	c := &choice{traits: tr, level: levelOf(tr.Attention)}
	c.acts = make([]dist, len(gv.actions))
	for i := range gv.actions {
		c.acts[i] = newDist(m.all, scoreTools(m, m.views, &gv.actions[i], m.all, tr), tr.Noise)
	}
	c.lookup = make([]dist, len(m.world.Types))
	for ri := range m.world.Types {
		ls := &gv.lookups[ri]
		if ls.known == "" || len(m.lists[ri]) == 0 {
			continue
		}
		c.lookup[ri] = newDist(m.lists[ri], scoreTools(m, m.views, &ls.intent, m.lists[ri], tr), tr.Noise)
	}
	if ti := m.types[gv.goal.Target]; len(m.lists[ti]) > 0 {
		c.explore = newDist(m.lists[ti], scoreTools(m, m.views, &gv.explore, m.lists[ti], tr), tr.Noise)
	}
	return c
}
