package personas

import (
	"fmt"
	"strings"

	"github.com/herd-sh/herd/engine"
)

// A goal can be written so that no agent can do it, whatever the texts say:
// its value is outside the bounds of the parameter that takes it (a
// threshold of 95 where the tool allows at most 90), or its intent names
// the target only by a title that other records share, so that a careful
// agent finds several and cannot tell which it means. Every rate of such a
// goal measures the world's mistake rather than the descriptions, and
// nothing in a report says so. GoalProblems finds both, in the world
// itself, for herd validate.

// GoalProblem is one thing about a goal that keeps agents from doing it.
type GoalProblem struct {
	Goal    *engine.Goal
	Message string
}

// maxCheckedTargets bounds the targets GoalProblems looks at per goal (a
// seeded world may have thousands; a share of the first ones is enough to
// say the goal is ambiguous, and keeps validate fast on a big world).
const maxCheckedTargets = 200

// GoalProblems checks every goal of the model's world on its default seed.
// A goal that expects agents to refrain is only checked for its targets.
func (m *Model) GoalProblems() ([]GoalProblem, error) {
	base, err := m.world.Seed(m.world.DefaultSeed)
	if err != nil {
		return nil, err
	}
	m.ensureMeant()
	var out []GoalProblem
	for _, gv := range m.goals {
		g := gv.goal
		if len(base.Candidates(g)) == 0 {
			continue // the loader reports a goal without targets
		}
		if !g.Refrain && gv.meantHow == meantByReader && !m.okThroughRefusal(g, base) {
			out = append(out, GoalProblem{g, m.unreachable(gv, base)})
			continue // which tool is meant is unknown: so is the target it would need
		}
		if t := m.world.Tools[gv.meant]; t.Key == "" || t.Record != g.Target {
			continue // the goal makes a record, or acts on another: no target to find
		}
		if msg := m.ambiguousTargets(gv, base); msg != "" {
			out = append(out, GoalProblem{g, msg})
		}
	}
	return out, nil
}

// okThroughRefusal: some tool's ideal call reaches an ok outcome by being
// refused (a goal whose ok outcome is to stop cleanly at a declined card).
// Meant skips failed calls; such a goal is reachable all the same.
func (m *Model) okThroughRefusal(g *engine.Goal, base *engine.Base) bool {
	n := len(base.Candidates(g))
	k := min(n, meantTargets)
	for _, t := range m.world.Tools {
		for i := 0; i < k; i++ {
			s := base.NewSession(uint64(i)+1, nil)
			at, err := g.Begin(s, uint64(i*n/k))
			if err != nil {
				return false
			}
			if res := s.Call(t.Name, idealArgs(t, g, at)); res.OK() {
				continue
			}
			if v, err := at.Judge(); err == nil && v.Severity == engine.SeverityOK {
				return true
			}
		}
	}
	return false
}

// unreachable says why no tool's ideal call reached an ok outcome: what
// the likeliest tool answered when it refused the call, or else the first
// tool that refused the goal's values as arguments (a required parameter
// no knows key fills, a value out of bounds).
func (m *Model) unreachable(gv *goalView, base *engine.Base) string {
	msg := fmt.Sprintf("no tool, called with what the goal gives on any of its first %d targets, reaches an ok outcome, so no agent can achieve it", min(len(base.Candidates(gv.goal)), meantTargets))
	refusal := func(ti int) *engine.ToolError {
		t := m.world.Tools[ti]
		s := base.NewSession(1, nil)
		at, err := gv.goal.Begin(s, 0)
		if err != nil {
			return nil
		}
		if res := s.Call(t.Name, idealArgs(t, gv.goal, at)); !res.OK() {
			return res.Err
		}
		return nil
	}
	say := func(ti int, e *engine.ToolError, who string) string {
		return fmt.Sprintf("%s: %s, %s, refuses the goal's own values (%s: %s); check them against its parameters — their names (a knows key fills the parameter it is named after), min, max and values — and the bounds of the fields they write", msg, m.world.Tools[ti].Name, who, e.Code, e.Message)
	}
	if e := refusal(gv.meant); e != nil {
		return say(gv.meant, e, "the likeliest tool")
	}
	for ti, t := range m.world.Tools {
		if !t.Writes() || ti == gv.meant {
			continue
		}
		if e := refusal(ti); e != nil && e.Code == engine.CodeInvalidArgument {
			return say(ti, e, "which writes")
		}
	}
	return msg + "; check its ok outcome's condition against what its tools do"
}

// ambiguousTargets reports targets an agent cannot single out: the goal
// gives neither the target's id nor a field to find it by, or the fields
// it gives match another record of the type too — compared as an agent
// picking from search results compares them (lookupSpec.matches).
func (m *Model) ambiguousTargets(gv *goalView, base *engine.Base) string {
	g := gv.goal
	cands := base.Candidates(g)
	n := min(len(cands), maxCheckedTargets)
	ls := &gv.lookups[m.types[g.Target]]
	// The target type's records by their looked-up value, folded, so
	// that each target is compared with its namesakes only.
	var byValue map[string][]*engine.Record
	if ls.known != "" {
		byValue = map[string][]*engine.Record{}
		for _, r := range base.Records(g.Target) {
			k := strings.ToLower(strings.TrimSpace(r.String(ls.field.Name)))
			byValue[k] = append(byValue[k], r)
		}
	}
	noWay, shared := 0, 0
	example := ""
	for i := 0; i < n; i++ {
		rnd := uint64(i * len(cands) / n)
		at, err := g.Begin(base.NewSession(uint64(i)+1, nil), rnd)
		if err != nil {
			return ""
		}
		if targetIDKey(g, at) != "" {
			continue
		}
		if ls.known == "" {
			noWay++
			continue
		}
		value := knownString(at.Knows[ls.known])
		matches := 0
		for _, r := range byValue[strings.ToLower(strings.TrimSpace(value))] {
			if ls.matches(r, value) && ls.matchesOthers(r, at.Knows) {
				matches++
			}
		}
		if matches > 1 {
			shared++
			if example == "" {
				example = fmt.Sprintf("%s %q matches %d %s records", ls.field.Name, value, matches, g.Target.Name)
			}
		}
	}
	switch {
	case noWay > 0:
		return fmt.Sprintf("on %d of %d targets the goal gives neither the %s's id nor a field to find it by, so no agent can tell which record is meant (add a knows: entry with its id or a field that tells it apart)", noWay, n, g.Target.Name)
	case shared*4 >= n:
		// A few shared names are what real data has (people share
		// names); a quarter or more of the targets is the world's doing.
		fields := []string{ls.field.Name}
		for _, o := range ls.others {
			fields = append(fields, o.field.Name)
		}
		return fmt.Sprintf("on %d of %d targets what the goal gives (%s) matches more than one %s (%s), so a careful agent cannot tell which is meant and gives up, and others may act on the wrong one (give the id in knows:, or a field no other record shares)", shared, n, strings.Join(fields, ", "), g.Target.Name, example)
	}
	return ""
}
