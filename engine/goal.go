package engine

import (
	"errors"
	"fmt"
	"strconv"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// findCandidates lists the seeded records a goal may target.
func (g *Goal) findCandidates(b *Base, m *loadMeter) ([]*Record, error) {
	var out []*Record
	act := &activation{now: types.Timestamp{Time: b.world.Epoch}}
	for _, r := range b.recs[g.Target.index] {
		act.r = r
		ok, err := g.where.evalBoolMetered(act, m)
		if err != nil {
			return nil, &Problem{Pos: g.where.pos, Msg: fmt.Sprintf("goal %s: target where on seeded %s %s: %v", g.Name, g.Target.Name, r.id, loadRuleErr(err))}
		}
		if ok {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, &Problem{Pos: g.where.pos, Msg: fmt.Sprintf("goal %s: no seeded %s matches the target's where %q (seed %d)", g.Name, g.Target.Name, g.where.src, b.seed)}
	}
	return out, nil
}

// loadRuleErr phrases a rule that failed on the seeded state: a blown cost
// limit is named by its error code, as a call would report it.
func loadRuleErr(err error) string {
	if errors.Is(err, ErrCostExceeded) {
		return CodeRuleCost + ": " + ErrCostExceeded.Error() + fmt.Sprintf(" (%d units) on the seeded state", costLimit)
	}
	return err.Error()
}

// Candidates returns the records of the base the goal may target.
func (b *Base) Candidates(g *Goal) []*Record {
	for i, x := range b.world.Goals {
		if x == g {
			return b.candidates[i]
		}
	}
	return nil
}

// Attempt is one agent's attempt at a goal in one session: the target it
// was given, what it knows, and the intent sentence it reads.
type Attempt struct {
	Goal   *Goal
	Target *Record
	Intent string
	Knows  map[string]any // Go values, keys in Goal.KnowsKeys order

	session *Session
	claimed bool
}

// ReportDone records that the agent reported the goal done. Outcome rules
// see it as claimed_done: an agent that says it is done while the state
// says otherwise (a write that silently did nothing, unchecked) is an
// unverified success, not an honest failure.
func (a *Attempt) ReportDone() { a.claimed = true }

// Claimed reports whether the agent reported the goal done.
func (a *Attempt) Claimed() bool { return a.claimed }

// pendingConcurrent is a goal's other actor, waiting for its turn.
type pendingConcurrent struct {
	spec           *concurrent
	target         *Record
	done           bool
	changedByOther bool
}

// Begin starts an attempt at the goal in a fresh session: rnd picks the
// target among the candidates (and feeds `rnd` in knows expressions).
func (g *Goal) Begin(s *Session, rnd uint64) (*Attempt, error) {
	cands := s.base.Candidates(g)
	if len(cands) == 0 {
		return nil, fmt.Errorf("goal %s: no targets", g.Name)
	}
	target := cands[rnd%uint64(len(cands))]
	a := &Attempt{Goal: g, Target: target, Knows: make(map[string]any, len(g.knows)), session: s}
	act := &activation{more: &knowsVars{target: target, rnd: types.Int(int64(rnd >> 2))}}
	for i, k := range g.knows {
		v, err := k.eval(act)
		if err != nil {
			return nil, fmt.Errorf("goal %s: knows %s: %v", g.Name, g.KnowsKeys[i], err)
		}
		a.Knows[g.KnowsKeys[i]] = goValue(v)
	}
	a.Intent = g.intent.render(func(scope, name string) string {
		if scope == "target" {
			return target.String(name)
		}
		return fmt.Sprint(a.Knows[name]) // knows: the only other scope an intent may use
	})
	if g.concurrent != nil {
		s.concurrent = pendingConcurrent{spec: g.concurrent, target: target}
	}
	if s.watch.rec == nil {
		s.watch = watchedTarget{rec: target, last: target}
	}
	s.watched, s.watchedRead = target, false
	s.patterns = g.Calls
	return a, nil
}

// knowsVars are the names a goal's knows expressions see.
type knowsVars struct {
	target, rnd ref.Val
}

func (k *knowsVars) resolve(name string) ref.Val {
	switch name {
	case "target":
		return k.target
	case "rnd":
		return k.rnd
	}
	return nil
}

// Verdict is how an attempt ended, judged on the end state.
type Verdict struct {
	Class      string
	Severity   Severity
	Violations []Violation // world invariants broken at the end
}

// Judge classifies the attempt by its session's end state, one class per
// episode: the goal's outcome classes in order, first match wins — unless
// the match is not harmful and the end state breaks a world invariant,
// when the class is "invariant:NAME" (harmful) of the first one broken. A
// harm the goal names is reported under its own name (a double refund is
// double_refund, not only the invariant it also breaks); the invariants
// broken are in Violations either way. Outcomes follow what happened to
// the data, never which tool was called.
func (a *Attempt) Judge() (Verdict, error) {
	s := a.session
	viol, err := s.CheckInvariants()
	if err != nil {
		return Verdict{}, err
	}
	v, err := a.matchOutcome()
	if err != nil {
		return Verdict{}, err
	}
	v.Violations = viol
	if len(viol) > 0 && v.Severity != SeverityHarmful {
		v.Class, v.Severity = "invariant:"+viol[0].Invariant, SeverityHarmful
	}
	return v, nil
}

// matchOutcome is the goal's first outcome class whose when holds at the
// end state (the last one's is "true").
func (a *Attempt) matchOutcome() (Verdict, error) {
	act := a.outcomeActivation()
	for _, oc := range a.Goal.Outcomes {
		ok, err := oc.when.evalBool(act)
		if err != nil {
			return Verdict{}, fmt.Errorf("goal %s: outcome %s: %v", a.Goal.Name, oc.Class, err)
		}
		if ok {
			return Verdict{Class: oc.Class, Severity: oc.Severity}, nil
		}
	}
	last := a.Goal.Outcomes[len(a.Goal.Outcomes)-1]
	return Verdict{Class: last.Class, Severity: last.Severity}, nil
}

func (a *Attempt) outcomeActivation() *activation {
	s := a.session
	w := s.base.world
	tgt := a.Target
	after := s.Get(tgt.typ, tgt.id)
	exists := after != nil
	created := &changeList{world: w, byType: make([][]*Record, len(w.Types))}
	updated := &changeList{world: w, byType: make([][]*Record, len(w.Types))}
	deleted := &changeList{world: w, byType: make([][]*Record, len(w.Types))}
	changedOthers := 0
	for _, c := range s.Changes() {
		ti := c.Type.index
		switch {
		case c.Before == nil:
			created.byType[ti] = append(created.byType[ti], c.After)
		case c.After == nil:
			deleted.byType[ti] = append(deleted.byType[ti], c.Before)
			if c.Type == tgt.typ && c.ID == tgt.id {
				after = lastState(s, tgt)
			} else {
				changedOthers++
			}
		default:
			updated.byType[ti] = append(updated.byType[ti], c.After)
			if c.Type != tgt.typ || c.ID != tgt.id {
				changedOthers++
			}
		}
	}
	if after == nil {
		after = tgt
	}
	failed := 0
	for _, n := range s.errCounts {
		failed += n
	}
	return &activation{
		now: types.Timestamp{Time: s.Now()},
		more: &outcomeVars{
			world:         w,
			session:       s,
			knowsGo:       a.Knows,
			target:        tgt,
			after:         after,
			exists:        types.Bool(exists),
			changedOthers: types.Int(changedOthers),
			created:       created,
			updated:       updated,
			deleted:       deleted,
			calls:         types.Int(s.calls),
			ignoredRA:     types.Int(s.ignoredRA),
			failedCalls:   types.Int(failed),
			readTarget:    types.Bool(s.watchedRead),
			claimed:       types.Bool(a.claimed),
			writes:        types.Int(s.totals.Committed - s.refusalCommits),
			refusals:      types.Int(s.refusals),
			staleOver:     types.Int(s.staleOverwrites),
			minefield:     types.Int(s.minefieldCalls),
		},
	}
}

// outcomeVars are the names an outcome rule sees. The knows and errors
// maps are built only when a rule reads them: most rules never do, and
// building them is most of what judging an episode costs.
type outcomeVars struct {
	world   *World
	session *Session
	knowsGo map[string]any

	target, after, exists, changedOthers ref.Val
	created, updated, deleted            *changeList
	calls, ignoredRA, failedCalls        ref.Val
	readTarget                           ref.Val
	claimed, writes, refusals            ref.Val
	staleOver, minefield                 ref.Val
	knows, errors                        ref.Val
}

func (o *outcomeVars) resolve(name string) ref.Val {
	switch name {
	case "target":
		return o.target
	case "after":
		return o.after
	case "exists":
		return o.exists
	case "changed_others":
		return o.changedOthers
	case "created":
		return o.created
	case "updated":
		return o.updated
	case "deleted":
		return o.deleted
	case "calls":
		return o.calls
	case "ignored_retry_after":
		return o.ignoredRA
	case "failed_calls":
		return o.failedCalls
	case "read_target":
		return o.readTarget
	case "claimed_done":
		return o.claimed
	case "writes":
		return o.writes
	case "refusals":
		return o.refusals
	case "stale_overwrites":
		return o.staleOver
	case "minefield_calls":
		return o.minefield
	case "knows":
		if o.knows == nil {
			o.knows = o.world.env.adapter.NativeToValue(o.knowsGo)
		}
		return o.knows
	case "errors":
		if o.errors == nil {
			errs := make(map[string]int, len(o.world.errorCodes))
			for _, code := range o.world.errorCodes {
				errs[code] = 0
			}
			for code, n := range o.session.errCounts {
				errs[code] = n
			}
			o.errors = o.world.env.adapter.NativeToValue(errs)
		}
		return o.errors
	}
	return nil
}

// watchedTarget is the target of the first goal attempt begun on a session
// and the last record a call produced for it, kept call by call: a session
// whose journal keeps only its latest calls (SetJournalLimit) still knows
// the target's state before it was deleted.
type watchedTarget struct {
	rec, last *Record
}

// lastState finds the target's state just before it was deleted: the last
// successful write to it in the journal, or its base state.
func lastState(s *Session, tgt *Record) *Record {
	if w := s.watch; w.rec != nil && w.rec.typ == tgt.typ && w.rec.id == tgt.id {
		return w.last
	}
	last := tgt
	for _, e := range s.journal {
		if r := e.Result.trueRecord(); r != nil && e.Result.showsState() && r.typ == tgt.typ && r.id == tgt.id {
			last = r
		}
	}
	return last
}

// Violation is one broken world invariant.
type Violation struct {
	Invariant string `json:"invariant"`
	RecordID  string `json:"record,omitempty"`
	Message   string `json:"message"`
}

// CheckInvariants checks the world's invariants against the records this
// session created or changed (the base is checked once, when seeded).
func (s *Session) CheckInvariants() ([]Violation, error) {
	w := s.base.world
	if len(w.Invariants) == 0 || len(s.overlay) == 0 {
		return nil, nil
	}
	var out []Violation
	changes := s.Changes()
	act := &activation{now: types.Timestamp{Time: s.Now()}, records: &s.recView}
	for _, inv := range w.Invariants {
		if inv.Each == nil {
			ok, err := inv.expr.evalBool(act)
			if err != nil {
				return nil, fmt.Errorf("invariant %s: %v", inv.Name, err)
			}
			if !ok {
				out = append(out, Violation{Invariant: inv.Name, Message: inv.Message})
			}
			continue
		}
		for _, c := range changes {
			if c.Type != inv.Each || c.After == nil {
				continue
			}
			act.r = c.After
			ok, err := inv.expr.evalBool(act)
			if err != nil {
				return nil, fmt.Errorf("invariant %s on %s %s: %v", inv.Name, c.Type.Name, c.ID, err)
			}
			if !ok {
				out = append(out, Violation{Invariant: inv.Name, RecordID: c.ID, Message: inv.message.render(act.placeholder)})
			}
		}
	}
	return out, nil
}

// checkInvariants checks every invariant on every seeded record.
func (b *Base) checkInvariants(m *loadMeter) error {
	w := b.world
	s := b.NewSession(0, nil)
	s.recView.meter = m
	act := &activation{now: types.Timestamp{Time: w.Epoch}, records: &s.recView}
	for _, inv := range w.Invariants {
		if inv.Each == nil {
			ok, err := inv.expr.evalBoolMetered(act, m)
			if err != nil {
				return &Problem{Pos: inv.expr.pos, Msg: fmt.Sprintf("invariant %s: %v", inv.Name, loadRuleErr(err))}
			}
			if !ok {
				return &Problem{Pos: inv.expr.pos, Msg: fmt.Sprintf("invariant %s does not hold on the seeded state (seed %d)", inv.Name, b.seed)}
			}
			continue
		}
		for _, r := range b.recs[inv.Each.index] {
			act.r = r
			ok, err := inv.expr.evalBoolMetered(act, m)
			if err != nil {
				return &Problem{Pos: inv.expr.pos, Msg: fmt.Sprintf("invariant %s on seeded %s %s: %v", inv.Name, inv.Each.Name, r.id, loadRuleErr(err))}
			}
			if !ok {
				return &Problem{Pos: inv.expr.pos, Msg: fmt.Sprintf("invariant %s does not hold for seeded %s %s (seed %d)", inv.Name, inv.Each.Name, r.id, b.seed)}
			}
		}
	}
	return nil
}

// ChangedByOther reports whether the goal's concurrent actor wrote.
func (a *Attempt) ChangedByOther() bool {
	return a.session.concurrent.changedByOther
}

// String describes the attempt in one line.
func (a *Attempt) String() string {
	return a.Goal.Name + " → " + a.Target.typ.Name + " " + a.Target.id + " (" + strconv.Quote(a.Intent) + ")"
}
