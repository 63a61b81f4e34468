package personas

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
)

// Run plays one episode: the agent looks around (explore), picks a tool
// with the reader model, looks up the record it needs, looks at it
// (verify), acts, handles errors by its retry policy, reads back (verify)
// and, when nothing visibly changed, tries the next-best tool — all within
// its patience. The end state is then judged by the engine: outcome classes
// follow what happened to the data, never which tool was called.
func (m *Model) Run(ep Episode) (Outcome, error) {
	gv, err := m.check(&ep)
	if err != nil {
		return Outcome{}, err
	}
	local := ep.Base.NewSession(ep.Seed, ep.Profile)
	rnd := entropy.Key{Seed: ep.Seed, Purpose: entropy.Goal}.Uint64()
	attempt, err := ep.Goal.Begin(local, rnd)
	if err != nil {
		return Outcome{}, fmt.Errorf("persona %s: %w", ep.Persona.Name, err)
	}
	// In-process the agent calls the local session itself. Over a served
	// world it calls the remote one, and the local session stays untouched
	// until Settle copies the served end state into it for judging.
	var s Session = local
	var remote RemoteSession
	if ep.Remote != nil {
		if remote, err = ep.Remote.Open(ep, attempt, rnd); err != nil {
			return Outcome{}, err
		}
		defer remote.Close()
		s = remote
	}
	a := agent{m: m, gv: gv, c: gv.choiceFor(m, ep.Persona), tr: ep.Persona.Traits, seed: ep.Seed, s: s, at: attempt,
		dice: newDice(ep.Seed), remote: remote != nil, redirect: -1, resume: -1}
	a.out.Meant = m.world.Tools[gv.meant].Name
	a.verify = a.dice.traits.float() < a.tr.Verify
	explore := a.dice.traits.float() < a.tr.Explore
	// An agent that does not take in a tool's parameters treats an update
	// as "send the record back, changed": it reads first and copies every
	// field — the habit that loses a colleague's newer edit.
	a.wholeRecord = a.dice.traits.float() >= a.tr.Attention
	if ep.Trace {
		a.trace = &Trace{Persona: ep.Persona.Name, Goal: ep.Goal.Name, Variant: m.variant, Intent: attempt.Intent,
			Target: attempt.Target.ID(), Knows: maps.Clone(attempt.Knows)}
	}

	if explore {
		a.exploreFirst()
	}
	for ai := range gv.actions {
		a.act = ai
		if a.declines(ai) {
			break
		}
		// A tool that did an earlier action is not how to do this one:
		// "return and refund" is two different calls.
		a.tried.reset()
		for _, ti := range a.done.list() {
			a.tried.add(ti)
		}
		a.redirect, a.resume = -1, -1
		a.calledHere = false
		for a.stop == "" {
			// An error message or a precondition may have said which tool
			// to use next; otherwise the next-best by the reader model.
			ti, redirected := a.takeRedirect()
			if !redirected {
				// Past the first try of this action, only as far as the
				// agent still believes in another tool (persevere.go).
				ti = a.c.acts[ai].sampleNext(a.dice.choice.float(), a.tried.list(), a.calledHere)
			}
			if ti < 0 {
				a.giveUp("no other tool fits")
				break
			}
			a.viaRedirect = redirected
			// A reader of everything that chose in a slip read the tool
			// as a skimmer does (slipTraits): it calls it so too, with
			// what the skim and a read-on show, not the parameter docs
			// or its habit of passing a key. Terse texts slip more.
			a.slipping = !redirected && a.c.level == seeEverything && a.dice.advice.float() < a.c.acts[ai].slipOf(ti)
			ok := a.perform(ti)
			a.viaRedirect, a.slipping = false, false
			if redirected && a.resume >= 0 && a.resume != ti {
				// ti was what had to come first: now the tool it unblocked.
				if r := a.resume; ok {
					a.resume, a.redirect = -1, r
					continue
				}
				a.resume = -1
			}
			if ok {
				a.done.add(ti)
				break
			}
		}
		if a.stop != "" {
			break
		}
	}

	// An agent that went through every action without stopping reports
	// the goal done; the outcome rules can hold that claim against the
	// state (claimed_done: an unverified success).
	if a.stop == "" {
		attempt.ReportDone()
		a.out.Claimed = true
	}
	if remote != nil {
		if err := remote.Settle(local); err != nil {
			return Outcome{}, err
		}
		a.settle(local)
	}
	v, err := attempt.Judge()
	if err != nil {
		return Outcome{}, fmt.Errorf("persona %s: goal %s: %w", ep.Persona.Name, ep.Goal.Name, err)
	}
	a.out.Class, a.out.Severity, a.out.Violations = v.Class, v.Severity, v.Violations
	a.out.Calls = local.Calls()
	a.out.Target = attempt.Target.ID()
	a.out.IgnoredRetryAfter = local.IgnoredRetryAfter()
	a.out.Recovered = len(a.out.Faults) > 0 && v.Severity == engine.SeverityOK
	if a.trace != nil {
		a.trace.WorldDiff = worldDiff(local, attempt.Target)
	}
	a.out.Trace = a.trace
	return a.out, nil
}

// check refuses an episode Run cannot play, and returns its goal's view.
func (m *Model) check(ep *Episode) (*goalView, error) {
	switch {
	case ep.Base == nil:
		return nil, errors.New("personas: episode has no base")
	case ep.Base.World() != m.world:
		return nil, fmt.Errorf("personas: the episode's base is of world %s, the model's is %s", ep.Base.World().Name, m.world.Name)
	case ep.Persona == nil:
		return nil, errors.New("personas: episode has no persona")
	case ep.Goal == nil:
		return nil, errors.New("personas: episode has no goal")
	}
	gv := m.byGoal[ep.Goal]
	if gv == nil {
		return nil, fmt.Errorf("personas: goal %s is not a goal of world %s", ep.Goal.Name, m.world.Name)
	}
	if err := ep.Persona.Traits.Validate(); err != nil {
		return nil, fmt.Errorf("persona %s: %w", ep.Persona.Name, err)
	}
	return gv, nil
}

// agent is one episode's state. It lives on Run's stack.
type agent struct {
	m      *Model
	gv     *goalView
	c      *choice
	tr     Traits
	seed   uint64 // the agent's seed
	s      Session
	at     *engine.Attempt
	dice   dice
	out    Outcome
	trace  *Trace
	verify bool
	// wholeRecord: updates send every field of the last read back.
	wholeRecord bool

	act   int              // the goal's action under way
	tried smallInts        // tools tried for it, in order
	done  smallInts        // tools that did the goal's earlier actions
	known []*resolved      // records the agent has an id for
	seen  []*engine.Record // the last listing it read

	// the current list query (lookups)
	query      string
	queryField *engine.Field
	shortQuery bool

	lastArgs   map[string]any // the arguments of the last call
	action     int            // intended actions so far: one idempotency key each
	commits    int            // commits of the current action
	idemKey    string
	idemAction int
	stop       string // why the agent stopped; "" while it goes on
	// calledHere: a tool was called for the current action (and did not
	// do it). A tool the agent could not even use (no id to give it) says
	// nothing about the others; one that was called and failed makes the
	// agent weigh whether another still fits (persevere.go).
	calledHere bool

	// What the agent read after choosing (advice.go): its decisions about
	// the advice it saw, the tool an error sent it to next (-1: none) and
	// the tool to try again after that one (-1: none).
	heard       [8]heard
	nHeard      int
	redirect    int
	resume      int
	viaRedirect bool      // the tool being performed is one an error sent the agent to
	slipping    bool      // the tool being performed was chosen in a slip: it is called as a skimmer reads it
	base        *resolved // the record a create being performed copies (fill.copied), nil when none
	pendingRead string    // tracing: why the next call is made as it is

	// remote: the session is served elsewhere. remoteCalls then holds
	// what settle needs of each call to correct the books from the served
	// journal.
	remote      bool
	remoteCalls []remoteCall
}

// remoteCall is what the agent remembers of one call to a served world:
// the intended action it belonged to (so that settle can count duplicated
// commits) and how it was spoiled on purpose (so that settle can rewrite
// the trace's result line).
type remoteCall struct {
	action  int32
	hostile string
}

// resolved is a record the agent knows the id of, and its last read.
type resolved struct {
	rt  *engine.RecordType
	id  string
	rec *engine.Record
}

// perform tries one tool for the goal; true when the agent believes the
// goal is done. On false with no stop, the agent tries the next-best tool.
func (a *agent) perform(ti int) bool {
	t := a.m.world.Tools[ti]
	var scores []ToolScore
	if !a.viaRedirect {
		// A tool an error message sent the agent to was not chosen by
		// score: its step carries none.
		scores = a.scoresFor(&a.c.acts[a.act], a.tried.list())
	}
	a.tried.add(ti)

	var target *resolved
	if t.Key != "" && t.Record != nil {
		target = a.resolve(t)
		if target == nil {
			return false
		}
		wholeRecord := a.wholeRecord && t.Kind == engine.KindUpdate
		if (a.verify || wholeRecord || a.wantsVersion(ti)) && target.rec == nil {
			if !a.look(target) {
				return false
			}
		}
	}
	// A create that copies the goal's record needs that record read first,
	// as an agent booking "the same again, for six" looks the booking up.
	a.base = nil
	if t.Kind == engine.KindCreate && copiesTarget(a.gv.fills[ti][0]) {
		base := a.resolveRecord(a.gv.goal.Target, "")
		if base == nil {
			return false
		}
		if base.rec == nil && !a.look(base) {
			return false
		}
		a.base = base // with no get tool to read it by, nothing is copied
	}
	if t.Kind == engine.KindList {
		a.setQuery(t.Record)
	}

	a.action++
	a.commits = 0
	a.calledHere = true
	res, ok, confirmed := a.callWithPolicy(StepAct, ti, target, scores)
	if !ok {
		return false
	}
	if !t.Writes() {
		if res.Records != nil {
			a.seen = res.Records
		}
		if target != nil && res.Record != nil {
			target.rec = res.Record
		}
		// A read answers a question; it changes nothing, which the agent
		// sees in the answer itself.
		return a.gv.actions[a.act].reads
	}
	if !a.verify || target == nil || confirmed {
		return true
	}
	// a.lastArgs is still the act's: reading back overwrites it.
	sent := a.lastArgs
	// Did the write's own answer show it landed? Only then does a read-back
	// that says otherwise mean the answer lied; a tool that answered with
	// the record unchanged simply did not do this, and the next-best tool
	// may.
	answered := res.Record != nil && a.changed(t, target.rec, res.Record, sent)
	if a.readBack(t, target, sent) {
		return true
	}
	if !answered {
		return false
	}
	return a.resend(ti, t, target, sent)
}

// resend handles a write whose answer showed it done and which, read back,
// did not land (a silent no-op, or a read that lags): an agent whose policy retries sends
// it once more and reads back again; one that never retries stops and says
// the write did not take. Either way it does not report the goal done on
// the strength of an answer its own check contradicts.
func (a *agent) resend(ti int, t *engine.Tool, target *resolved, sent map[string]any) bool {
	if a.stop != "" {
		return false
	}
	if a.tr.Retry.Mode == RetryNone {
		a.giveUp("the write answered ok but did not take")
		return false
	}
	a.pendingRead = "read back: the write did not take; sending it again"
	if _, ok, confirmed := a.callWithPolicy(StepRetry, ti, target, nil); !ok || confirmed {
		a.pendingRead = ""
		return ok
	}
	if a.readBack(t, target, a.lastArgs) {
		return true
	}
	a.giveUp("the write answered ok but did not take")
	return false
}

// refrainBelow is the action confidence under which no tool says it does
// what the goal asks: the reader's choice is a guess among tools that do
// other things. It is "nothing matched at all", not "matched weakly": a
// weak match is a paraphrase or a near-synonym ("bump the priority" and a
// tool that changes the priority), which a careful reader tries rather
// than refuses — refusing needs every tool to say it does something else.
const refrainBelow = 0.005

// declines decides, before an action, whether the agent refuses it because
// no tool fits (the reader model's confidence for the action is below
// refrainBelow). Declining takes both reading the tools well enough to know
// none of them does it (attention) and preferring to do nothing over a
// guess (caution): the chance is attention × caution, drawn from the
// agent's own trait dice — about 0.86 for careful, 0.03 for hasty. An
// action some tool fits never draws, so goals with a fitting tool play
// exactly as before.
func (a *agent) declines(ai int) bool {
	if a.c.acts[ai].confidence >= refrainBelow {
		return false
	}
	if a.dice.traits.float() >= a.tr.Attention*a.tr.Caution {
		return false
	}
	a.out.Declined = true
	a.giveUp("no tool does this: declining")
	return true
}

// resolve finds the id of the record a keyed tool acts on: known from the
// goal, found earlier, or looked up now.
func (a *agent) resolve(t *engine.Tool) *resolved { return a.resolveRecord(t.Record, t.Key) }

// resolveRecord finds a record of type rt, whose id a parameter named key
// ("" for none) takes.
func (a *agent) resolveRecord(rt *engine.RecordType, key string) *resolved {
	for _, r := range a.known {
		if r.rt == rt {
			return r
		}
	}
	idKey := a.gv.idKeyFor[key]
	if idKey == "" && rt == a.gv.goal.Target {
		idKey = a.targetIDKey()
	}
	if idKey != "" {
		if v, ok := a.at.Knows[idKey]; ok {
			return a.remember(rt, knownString(v), nil)
		}
	}
	return a.lookup(rt)
}

// targetIDKey is the knows key that told the agent its target's id ("id",
// "customer"…), "" when it was not told.
func (a *agent) targetIDKey() string { return targetIDKey(a.gv.goal, a.at) }

// targetIDKey is the knows key of goal g whose value, in attempt at, is the
// target's id; "" when the goal does not give it.
func targetIDKey(g *engine.Goal, at *engine.Attempt) string {
	id := at.Target.ID()
	for _, k := range g.KnowsKeys {
		if v, ok := at.Knows[k].(string); ok && v == id {
			return k
		}
	}
	return ""
}

func (a *agent) remember(rt *engine.RecordType, id string, rec *engine.Record) *resolved {
	r := &resolved{rt: rt, id: id, rec: rec}
	a.known = append(a.known, r)
	return r
}

// setQuery prepares a list call: what to search for in which field.
func (a *agent) setQuery(rt *engine.RecordType) {
	a.query, a.queryField = "", nil
	if rt == nil {
		return
	}
	ls := &a.gv.lookups[a.m.types[rt]]
	if ls.known == "" {
		return
	}
	a.query = knownString(a.at.Knows[ls.known])
	a.queryField = ls.field
	// A hurried searcher types less than it knows ("Smith").
	a.shortQuery = a.dice.args.float() >= a.tr.Attention
}

func knownString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// lookup finds a record by what the agent knows, with list tools chosen by
// the reader model: search, then pick the result that matches.
func (a *agent) lookup(rt *engine.RecordType) *resolved {
	ri := a.m.types[rt]
	ls := &a.gv.lookups[ri]
	if ls.known == "" || len(a.c.lookup[ri].tools) == 0 {
		// Nothing the agent knows finds this record: this tool is no use,
		// another may be.
		a.note("cannot find the " + rt.Name + " without its id")
		return nil
	}
	value := knownString(a.at.Knows[ls.known])
	if len(a.seen) > 0 && a.seen[0].RecordType() == rt {
		if rec, _ := a.pick(ls, a.seen, value); rec != nil {
			return a.remember(rt, rec.ID(), rec)
		}
	}
	d := &a.c.lookup[ri]
	var tried smallInts
	for a.stop == "" {
		scores := a.scoresFor(d, tried.list())
		li := d.sample(a.dice.choice.float(), tried.list())
		if li < 0 {
			a.giveUp(fmt.Sprintf("could not find %s %q", rt.Name, value))
			return nil
		}
		tried.add(li)
		a.setQuery(rt)
		res, ok, _ := a.callWithPolicy(StepLook, li, nil, scores)
		if !ok {
			continue
		}
		a.seen = res.Records
		rec, ambiguous := a.pick(ls, res.Records, value)
		if rec != nil {
			return a.remember(rt, rec.ID(), rec)
		}
		if ambiguous {
			a.giveUp(fmt.Sprintf("several %s records match %q; cannot tell which is meant", rt.Name, value))
			return nil
		}
	}
	return nil
}

// pick chooses the record meant among results. An attentive reader wants
// an exact match and tells same-named records apart by anything else it
// knows; if it still cannot, a cautious one stops rather than guess. An
// inattentive reader takes the first result that looks similar — with
// near-duplicate names, maybe the wrong one.
func (a *agent) pick(ls *lookupSpec, recs []*engine.Record, value string) (rec *engine.Record, ambiguous bool) {
	if a.dice.args.float() < a.tr.Attention {
		var first *engine.Record
		n := 0
		for _, r := range recs {
			if a.matches(ls, r, value) {
				if first == nil {
					first = r
				}
				n++
			}
		}
		if n <= 1 {
			return first, false
		}
		if len(ls.others) > 0 {
			var only *engine.Record
			k := 0
			for _, r := range recs {
				if a.matches(ls, r, value) && a.matchesOthers(ls, r) {
					if only == nil {
						only = r
					}
					k++
				}
			}
			if k == 1 {
				return only, false
			}
		}
		if a.tr.Caution >= cautionThreshold {
			return nil, true
		}
		return first, false
	}
	for _, r := range recs {
		if similar(r.String(ls.field.Name), value) {
			return r, false
		}
	}
	return nil, false
}

func (a *agent) matches(ls *lookupSpec, r *engine.Record, value string) bool {
	return ls.matches(r, value)
}

func (a *agent) matchesOthers(ls *lookupSpec, r *engine.Record) bool {
	return ls.matchesOthers(r, a.at.Knows)
}

// matches: record r's looked-up field holds value, as a reader compares
// a search result with what it was told (case and spacing aside).
func (ls *lookupSpec) matches(r *engine.Record, value string) bool {
	return strings.EqualFold(strings.TrimSpace(r.String(ls.field.Name)), strings.TrimSpace(value))
}

// matchesOthers: r holds every other field the goal told (knows).
func (ls *lookupSpec) matchesOthers(r *engine.Record, knows map[string]any) bool {
	for _, o := range ls.others {
		if !strings.EqualFold(r.String(o.field.Name), knownString(knows[o.known])) {
			return false
		}
	}
	return true
}

// look reads the record before acting (its version, its fields).
func (a *agent) look(target *resolved) bool {
	gi := a.m.getTool[a.m.types[target.rt]]
	if gi < 0 {
		return true // nothing to look with; act blind
	}
	res, ok, _ := a.callWithPolicy(StepLook, gi, target, nil)
	if ok && res.Record != nil {
		target.rec = res.Record
	}
	return ok
}

// readBack checks after a write, whose arguments were sent, that something
// visibly changed.
func (a *agent) readBack(t *engine.Tool, target *resolved, sent map[string]any) bool {
	gi := a.m.getTool[a.m.types[target.rt]]
	if gi < 0 {
		return true
	}
	before := target.rec
	res, ok, _ := a.callWithPolicy(StepVerify, gi, target, nil)
	if !ok {
		// Gone (it was deleted) or unreadable: either way nothing more to do
		// with this record.
		return true
	}
	target.rec = res.Record
	return a.changed(t, before, res.Record, sent)
}

// changed is the agent's own check that its write landed: the fields it
// sent now hold what it sent, or else the record differs from before.
func (a *agent) changed(t *engine.Tool, before, after *engine.Record, sent map[string]any) bool {
	if after == nil {
		return true
	}
	if t.Kind == engine.KindUpdate {
		checked := false
		for _, p := range t.Params {
			v, ok := sent[p.Name]
			if !ok || p.Field == nil || p.Name == t.Key {
				continue
			}
			checked = true
			if !holds(after, p.Field.Name, v) {
				return false
			}
		}
		if checked {
			return true
		}
	}
	if before == nil {
		return true
	}
	for _, f := range after.RecordType().Fields {
		if before.String(f.Name) != after.String(f.Name) {
			return true
		}
	}
	return false
}

// holds reports whether a field read back holds the value sent. Text, what
// most updates send, is compared without boxing the field's value.
func holds(after *engine.Record, field string, sent any) bool {
	if s, ok := sent.(string); ok {
		return after.Has(field) && after.String(field) == s
	}
	return fmt.Sprint(after.Get(field)) == fmt.Sprint(sent)
}

// exploreFirst lists the goal's records before doing anything: an agent
// that looks around.
func (a *agent) exploreFirst() {
	d := &a.c.explore
	if len(d.tools) == 0 {
		return
	}
	scores := a.scoresFor(d, nil)
	li := d.sample(a.dice.choice.float(), nil)
	a.query, a.queryField = "", nil
	if res, ok, _ := a.callWithPolicy(StepLook, li, nil, scores); ok {
		a.seen = res.Records
	}
}

// giveUp stops the episode.
func (a *agent) giveUp(reason string) {
	if a.stop != "" {
		return
	}
	a.stop = reason
	if a.trace != nil {
		a.trace.Steps = append(a.trace.Steps, Step{Kind: StepGiveUp, Result: reason, At: a.s.Elapsed()})
	}
}

// note records a decision that is not a call (tracing only).
func (a *agent) note(what string) {
	if a.trace != nil {
		a.trace.Steps = append(a.trace.Steps, Step{Kind: StepLook, Result: what, At: a.s.Elapsed()})
	}
}

// scoresFor is the trace's view of a choice (nil unless tracing).
func (a *agent) scoresFor(d *dist, tried []int) []ToolScore {
	if a.trace == nil {
		return nil
	}
	return d.toolScores(a.m, tried)
}
