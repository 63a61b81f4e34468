package personas

import "github.com/herd-sh/herd/engine"

// The tool a goal means is a fact about the world, not about a reader: it
// is the tool whose ideal call reaches the goal's ok outcome. The model
// finds it by trying each tool on forks of the goal's session (sessions are
// copy-on-write, so a fork costs a few hundred nanoseconds), on several
// targets so that an outcome that is ok for another reason (a locked
// contact refused the call) does not make a wrong tool look right. Among
// tools that do as well, the ideal reader's favourite wins; when no tool
// does it alone, pairs are tried for a goal of two actions; when none
// does, the ideal reader's pick stands, and MeantHow says so.

// meantTargets is how many of a goal's targets each candidate is tried on.
const meantTargets = 8

// Ways Meant was found.
const (
	meantByWorld  = "world"
	meantByPair   = "world, pair"
	meantByReader = "reader"
)

// ensureMeant finds every goal's meant tool, once.
func (m *Model) ensureMeant() {
	m.meantOnce.Do(func() {
		base, err := m.world.Seed(m.world.DefaultSeed)
		for _, gv := range m.goals {
			m.findMeant(gv, base, err)
		}
	})
}

func (m *Model) findMeant(gv *goalView, base *engine.Base, seedErr error) {
	parts, _ := m.scoreParts(gv.ideal, m.all, idealReader)
	readerPick := 0
	for i, p := range parts {
		if p.Score > parts[readerPick].Score {
			readerPick = i
		}
	}
	gv.meant, gv.meantHow = readerPick, meantByReader
	if seedErr != nil || base == nil || len(base.Candidates(gv.goal)) == 0 {
		return
	}
	// ok[i]: on how many targets tool i alone reached an ok outcome.
	ok := make([]int, len(m.world.Tools))
	best := 0
	for ti := range m.world.Tools {
		ok[ti] = m.tryTools(gv.goal, base, []int{ti})
		best = max(best, ok[ti])
	}
	how := meantByWorld
	if best == 0 && len(gv.actions) > 1 {
		// No tool alone: a pair, the first of which is meant.
		for a := range m.world.Tools {
			for b := range m.world.Tools {
				if a == b {
					continue
				}
				if n := m.tryTools(gv.goal, base, []int{a, b}); n > ok[a] {
					ok[a] = n
				}
			}
			best = max(best, ok[a])
		}
		how = meantByPair
	}
	if best == 0 {
		return
	}
	pick := -1
	for ti := range m.world.Tools {
		if ok[ti] == best && (pick < 0 || parts[ti].Score > parts[pick].Score) {
			pick = ti
		}
	}
	gv.meant, gv.meantHow = pick, how
}

// tryTools calls the tools in order, ideally, on forks of the goal's
// session for each of up to meantTargets targets, and counts the targets
// on which the goal ended ok.
func (m *Model) tryTools(g *engine.Goal, base *engine.Base, tools []int) int {
	n := len(base.Candidates(g))
	k := min(n, meantTargets)
	count := 0
	for i := 0; i < k; i++ {
		rnd := uint64(i * n / k)
		s := base.NewSession(uint64(i)+1, nil)
		at, err := g.Begin(s, rnd)
		if err != nil {
			return 0
		}
		failed := false
		for _, ti := range tools {
			t := m.world.Tools[ti]
			if res := s.Call(t.Name, idealArgs(t, g, at)); !res.OK() {
				failed = true
				break
			}
		}
		if failed {
			continue
		}
		if v, err := at.Judge(); err == nil && v.Severity == engine.SeverityOK {
			count++
		}
	}
	return count
}

// idealArgs fills a tool the way an agent that knows everything the goal
// says and found the right record would: the key is the target's id, a
// reference to the target's type is the target, an expected version is the
// target's, the idempotency key is one key, other parameters take what the
// goal knows by name (args.go), and a list's query is the first thing known.
func idealArgs(t *engine.Tool, g *engine.Goal, at *engine.Attempt) map[string]any {
	args := make(map[string]any, len(t.Params))
	tgt := at.Target
	fills := fillsFor(t, g, true)
	for i, p := range t.Params {
		f := fills[i]
		switch {
		case p.Name == t.Key && t.Key != "":
			if t.Record == tgt.RecordType() {
				args[p.Name] = tgt.ID()
			} else if v, ok := at.Knows[p.Name]; ok {
				args[p.Name] = jsonArg(v)
			}
		case p.Name == t.Idempotency && t.Idempotency != "":
			args[p.Name] = "herd-meant"
		case f.version != nil:
			if t.Record == tgt.RecordType() {
				if v := tgt.Get(f.version.Name); v != nil {
					args[p.Name] = v
				}
			}
		case f.known != "":
			if v, ok := at.Knows[f.known]; ok && knownFits(p, v) {
				args[p.Name] = jsonArg(v)
			}
		case p.Field != nil && p.Field.Type == engine.FieldRef && p.Field.Ref == tgt.RecordType():
			args[p.Name] = tgt.ID()
		case t.Kind == engine.KindList && isQueryParam(p):
			for _, k := range g.KnowsKeys {
				if s, ok := at.Knows[k].(string); ok && k != "id" {
					args[p.Name] = s
					break
				}
			}
		}
	}
	return args
}
