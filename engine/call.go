package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// ToolError is a failed call as the caller sees it: a business error, a
// refused argument or an injected fault.
type ToolError struct {
	Code       string        `json:"code"`
	Message    string        `json:"message"`
	RetryAfter time.Duration `json:"-"`
}

func (e *ToolError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("%s: %s (retry after %s)", e.Code, e.Message, e.RetryAfter)
	}
	return e.Code + ": " + e.Message
}

// Error codes the engine itself returns (a world adds its own).
const (
	CodeInvalidArgument = "invalid_argument"
	CodeNotFound        = "not_found"
	CodeUnknownTool     = "unknown_tool"
	CodeRuleError       = "rule_error"
	CodeRuleCost        = "rule_cost_exceeded"
	CodeTimeout         = "timeout"
	CodeRateLimited     = "rate_limited"
	CodeUnavailable     = "unavailable"
)

// Result is what one call returned.
type Result struct {
	Tool      string
	Err       *ToolError // nil on success
	Fault     string     // the injected fault kind, "" when none
	Committed bool       // the call's changes landed (true for timeout_after_commit)
	Replayed  bool       // an idempotency key matched an earlier call: nothing changed
	Latency   time.Duration
	Record    *Record   // get, create, update, custom: the record the call produced or touched
	Records   []*Record // list
	Deleted   string    // delete: the id removed

	// drifted is the schema_drift the result shows (nil: none); the
	// records it really carries are kept beside what the caller sees.
	drifted     *FaultError
	origRecord  *Record
	origRecords []*Record
	refusal     bool // the call matches a refusal pattern of the goal
}

// OK reports whether the call succeeded.
func (r *Result) OK() bool { return r.Err == nil }

// Value is the JSON-ready result an MCP client sees on success.
func (r *Result) Value() any {
	switch {
	case r.Records != nil:
		items := make([]any, len(r.Records))
		for i, rec := range r.Records {
			if r.drifted != nil {
				items[i] = r.driftedMap(r.origRecords[i])
				continue
			}
			items[i] = rec.Map()
		}
		return map[string]any{"items": items, "count": len(items)}
	case r.Deleted != "":
		return map[string]any{"deleted": r.Deleted}
	case r.Record != nil:
		if r.drifted != nil {
			return r.driftedMap(r.origRecord)
		}
		return r.Record.Map()
	}
	return map[string]any{"ok": true}
}

// Call runs one tool call with args (JSON-shaped: strings, float64 or int
// numbers, bools). args must not be modified afterwards: the journal keeps
// it. A failed call changes nothing.
func (s *Session) Call(tool string, args map[string]any) Result {
	w := s.base.world
	t := w.toolByName[tool]
	idx := s.calls
	s.calls++
	start := s.elapsed
	if t == nil {
		res := Result{Tool: tool, Err: &ToolError{Code: CodeUnknownTool, Message: fmt.Sprintf("no tool named %q", tool)}}
		s.record(idx, start, args, &res)
		return res
	}
	res := s.call(t, idx, args)
	if res.refusal && res.Err == nil {
		s.refusals++
		if res.Committed {
			s.refusalCommits++
		}
	}
	s.elapsed += res.Latency
	if s.watched != nil && !s.watchedRead && res.Err == nil {
		s.watchedRead = res.returns(s.watched)
	}
	s.record(idx, start, args, &res)
	s.afterCall()
	return res
}

func (s *Session) call(t *Tool, idx uint64, args map[string]any) Result {
	res := Result{Tool: t.Name}
	faults := s.profile.For(t)
	if faults != nil {
		res.Latency = faults.drawLatency(s.base.seed, s.key, idx)
	}

	// A tool still rate-limited answers 429 again without rolling dice: the
	// caller ignored retry-after, which is how retry storms look.
	if until, limited := s.retryUntil[t.index]; limited && s.elapsed < until {
		s.ignoredRA++
		res.Err = &ToolError{Code: CodeRateLimited, Message: "rate limited: slow down", RetryAfter: until - s.elapsed}
		res.Fault = CodeRateLimited
		return res
	}

	av, terr := t.validate(args)
	if len(s.patterns) > 0 {
		res.refusal = s.matchPatterns(t, av)
	}
	if terr != nil {
		res.Err = terr
		return res
	}

	idemKey, keyed := t.idempotencyKey(av)
	if keyed {
		if prev, ok := s.idem[idemKey]; ok {
			// The stored answer again, committing nothing: a success, or
			// the error of a write that failed part-way (as a server that
			// saves a key's first result, errors included, answers).
			prev.Latency = res.Latency
			prev.Replayed = true
			prev.Fault = ""
			prev.Committed = false
			return prev
		}
	}

	var fault *FaultError
	if faults != nil {
		fault = faults.roll(s.base.seed, s.key, idx)
	}
	if fault != nil {
		res.Fault = fault.Kind
		switch fault.Kind {
		case CodeTimeout:
			res.timedOut(faults)
			return res
		case FaultTimeoutAfterCommit, FaultSilentNoop, FaultPartialWrite, FaultSchemaDrift:
			// Executed below: the call runs, and the fault decides what of
			// it lands and what the caller sees.
		case FaultStaleRead:
			return s.staleRead(t, av, fault, res)
		case CodeRateLimited:
			ra := fault.RetryAfter
			s.own(sharedRetry)
			if s.retryUntil == nil {
				s.retryUntil = map[int]time.Duration{}
			}
			s.retryUntil[t.index] = s.elapsed + res.Latency + ra
			res.Err = &ToolError{Code: CodeRateLimited, Message: "rate limited: too many requests", RetryAfter: ra}
			return res
		default: // unavailable and business errors: nothing happens
			msg := fault.Message
			if msg == "" {
				msg = fault.Kind
			}
			res.Err = &ToolError{Code: fault.Kind, Message: msg}
			return res
		}
	}

	tx := txn{s: s}
	out, terr := s.execute(t, av, &tx)
	if terr != nil {
		res.Err = terr
		if fault != nil && fault.Kind == FaultTimeoutAfterCommit {
			// The work failed on its own; the caller still only sees a timeout.
			res.timedOut(faults)
		}
		return res
	}
	if fault != nil {
		switch fault.Kind {
		case FaultSilentNoop:
			// The answer a real write would give; nothing is kept, not
			// even the idempotency key (the whole request was dropped).
			res.Record, res.Records, res.Deleted = out.record, out.records, out.deleted
			return res
		case FaultPartialWrite:
			// The first record written lands; the rest never does.
			if tx.n > 1 {
				tx.n = 1
				tx.commit()
				res.Committed = true
			}
			msg := fault.Message
			if msg == "" {
				msg = "internal error, please try again"
			}
			res.Err = &ToolError{Code: CodeInternal, Message: msg}
			if keyed && res.Committed {
				s.rememberKey(idemKey, res)
			}
			return res
		}
	}
	tx.commit()
	res.Record, res.Records, res.Deleted = out.record, out.records, out.deleted
	res.Committed = t.Writes()
	if keyed {
		s.rememberKey(idemKey, res)
	}
	if fault != nil && fault.Kind == FaultTimeoutAfterCommit {
		res.timedOut(faults)
		res.Record, res.Records, res.Deleted = nil, nil, ""
	}
	if !t.Writes() {
		s.noteReads(&res, false)
	}
	if fault != nil && fault.Kind == FaultSchemaDrift {
		res.drift(fault)
	}
	return res
}

// staleRead answers a get or list from the session as it was the fault's
// lag ago. Nothing written since is visible: a record created since is not
// found, a record changed since shows its older state.
func (s *Session) staleRead(t *Tool, av *argValues, fault *FaultError, res Result) Result {
	v := s.staleView(fault.Lag)
	tx := txn{s: v}
	out, terr := v.execute(t, av, &tx)
	if terr != nil {
		res.Err = terr
		return res
	}
	res.Record, res.Records = out.record, out.records
	s.noteReads(&res, true)
	return res
}

// rememberKey keeps a keyed call's answer for its retries.
func (s *Session) rememberKey(key string, res Result) {
	s.own(sharedIdem)
	if s.idem == nil {
		s.idem = map[string]Result{}
	}
	s.idem[key] = res
}

// returns reports whether the result shows rec to its caller: as the
// record of a get or a write, or among a list's items.
func (r *Result) returns(rec *Record) bool {
	same := func(x *Record) bool { return x != nil && x.typ == rec.typ && x.id == rec.id }
	if same(r.Record) {
		return true
	}
	for _, x := range r.Records {
		if same(x) {
			return true
		}
	}
	return false
}

// timedOut makes res the timeout its caller sees under faults.
func (res *Result) timedOut(faults *ToolFaults) {
	res.Err = &ToolError{Code: CodeTimeout, Message: fmt.Sprintf("%s timed out after %s", res.Tool, faults.timeout)}
	res.Latency = faults.timeout
}

// idempotencyKey is the key a call's result is kept under, built once per
// call: the tool's name and the idempotency argument (ok false when the
// tool takes none or the call gave none).
func (t *Tool) idempotencyKey(av *argValues) (key string, ok bool) {
	if t.Idempotency == "" {
		return "", false
	}
	k, ok := av.vals[t.byName[t.Idempotency].index].(types.String)
	if !ok {
		return "", false
	}
	return t.Name + "\x00" + string(k), true
}

type callOutput struct {
	record  *Record
	records []*Record
	deleted string
}

// execute runs the tool's kind, preconditions and effects inside tx.
func (s *Session) execute(t *Tool, av *argValues, tx *txn) (callOutput, *ToolError) {
	var out callOutput
	// The session's scratch activation: calls on a session do not overlap,
	// and nothing keeps it after the call.
	act := &s.act
	*act = activation{args: av, clock: s.Now(), hasClock: true, records: &s.recView}

	var target *Record
	if t.Key != "" && t.Record != nil {
		idv := av.vals[t.byName[t.Key].index]
		id := string(idv.(types.String))
		target = s.Get(t.Record, id)
		if target == nil {
			return out, &ToolError{Code: CodeNotFound, Message: fmt.Sprintf("no %s with %s %q", t.Record.Name, t.Key, id)}
		}
		act.r = target
	}

	if t.Kind == KindList {
		return s.listRecords(t, av)
	}

	for _, pc := range t.when {
		ok, err := pc.expr.evalBool(act)
		if err != nil {
			return out, ruleError(err)
		}
		if !ok {
			return out, &ToolError{Code: pc.code, Message: pc.render(act)}
		}
	}

	switch t.Kind {
	case KindGet:
		out.record = target
		return out, nil
	case KindCreate:
		rec := s.newRecordWithDefaults(t.Record)
		for _, p := range t.Params {
			if p.Field != nil && p.Field.Type != FieldID && av.vals[p.index] != nil {
				rec.vals[p.Field.Index] = av.vals[p.index]
			}
		}
		act.r = rec
		tx.put(rec)
		target = rec
		out.record = rec
	case KindUpdate:
		rec := target.clone()
		for _, p := range t.Params {
			if p.Field != nil && p.Name != t.Key && p.Field.Type != FieldID && av.vals[p.index] != nil {
				rec.vals[p.Field.Index] = av.vals[p.index]
			}
		}
		act.r = rec
		tx.put(rec)
		target = rec
		out.record = rec
	case KindDelete:
		tx.remove(t.Record, target.id)
		out.deleted = target.id
	case KindCustom:
		out.record = target
	}

	for _, ef := range t.effects {
		rec, err := ef.apply(s, tx, act)
		if err != nil {
			return out, err
		}
		if rec != nil && out.record == nil {
			out.record = rec
		}
	}
	if target != nil && t.Kind != KindDelete {
		if cur := tx.get(target.typ, target.id); cur != nil {
			out.record = cur
		} else if t.Kind == KindCustom {
			out.deleted = target.id
			out.record = nil
		}
	}
	if err := tx.checkWrites(); err != nil {
		return out, err
	}
	return out, nil
}

func ruleError(err error) *ToolError {
	if errors.Is(err, ErrCostExceeded) {
		return &ToolError{Code: CodeRuleCost, Message: err.Error()}
	}
	return &ToolError{Code: CodeRuleError, Message: err.Error()}
}

// listRecords applies equality filters, include flags, search and limit.
func (s *Session) listRecords(t *Tool, av *argValues) (callOutput, *ToolError) {
	limit := t.limit
	if t.limitParam != nil {
		if v := av.vals[t.limitParam.index]; v != nil {
			limit = int(v.(types.Int))
		}
	}
	// A limit param declared without a min still cannot ask for fewer
	// than one record: the call is refused, as a real API refuses it.
	if limit < 1 {
		return callOutput{}, invalidArg("param %s: must be at least 1, got %d", t.limitParam.Name, limit)
	}
	var query string
	if t.search != nil {
		if v := av.vals[t.search.param.index]; v != nil {
			query = strings.ToLower(string(v.(types.String)))
		}
	}
	out := make([]*Record, 0, min(limit, 8))
	var hits bitset
	if query != "" {
		hits = s.base.searchHits(t, query)
	}
	s.eachIndexed(t.Record, func(bi int, r *Record) bool {
		if bi >= 0 && query != "" && !hits.has(bi) {
			return true // the seeded record does not match: skip the filters
		}
		for _, p := range t.Params {
			if p.Field == nil || p == t.limitParam {
				continue
			}
			v := av.vals[p.index]
			if v == nil {
				continue // not filtered on
			}
			if have := r.vals[p.Field.Index]; have == nil || have.Equal(v) != types.True {
				return true
			}
		}
		for _, inc := range t.include {
			show := av.vals[inc.param.index]
			if (show == nil || show == types.False) && r.vals[inc.field.Index] == types.True {
				return true
			}
		}
		if query != "" && bi < 0 && !strings.Contains(t.search.text(r), query) {
			return true
		}
		out = append(out, r)
		return len(out) < limit
	})
	return callOutput{records: out}, nil
}

// text is the lower-cased text a search matches against: the search
// fields joined by NULs, so that a query never matches across two fields.
func (sr *searchRule) text(r *Record) string {
	var b strings.Builder
	for i, f := range sr.fields {
		if i > 0 {
			b.WriteByte(0)
		}
		if v, ok := r.vals[f.Index].(types.String); ok {
			b.WriteString(strings.ToLower(string(v)))
		}
	}
	return b.String()
}

// validate checks args against the tool's params and converts them to CEL
// values, applying defaults.
//
// The error is the same whatever order the map iterates in (the same call
// always answers the same, in the journal and in a trace): the lowest
// unknown name, else the first bad param in the tool's order.
func (t *Tool) validate(args map[string]any) (*argValues, *ToolError) {
	av := newArgValues(t)
	unknown, found := "", false
	for name := range args {
		if t.byName[name] == nil && (!found || name < unknown) {
			unknown, found = name, true
		}
	}
	if found {
		return nil, invalidArg("unknown argument %q (%s takes: %s)", unknown, t.Name, strings.Join(t.paramNames(), ", "))
	}
	for _, p := range t.Params {
		raw, ok := args[p.Name]
		if !ok || raw == nil {
			continue
		}
		v, err := p.convert(raw)
		if err != nil {
			return nil, invalidArg("argument %q: %v", p.Name, err)
		}
		av.vals[p.index] = v
	}
	for _, p := range t.Params {
		if av.vals[p.index] != nil {
			continue
		}
		if p.defaultVal != nil {
			av.vals[p.index] = p.defaultVal
			continue
		}
		if p.Required {
			return nil, invalidArg("missing required argument %q", p.Name)
		}
	}
	return av, nil
}

// argValuesInline holds a few params' values in the same allocation as
// the argValues: most tools have fewer than eight params.
type argValuesInline struct {
	argValues
	buf [8]ref.Val
}

func newArgValues(t *Tool) *argValues {
	if n := len(t.Params); n <= len(argValuesInline{}.buf) {
		in := &argValuesInline{argValues: argValues{tool: t}}
		in.vals = in.buf[:n]
		return &in.argValues
	}
	return &argValues{tool: t, vals: make([]ref.Val, len(t.Params))}
}

func invalidArg(format string, a ...any) *ToolError {
	return &ToolError{Code: CodeInvalidArgument, Message: fmt.Sprintf(format, a...)}
}

func (t *Tool) paramNames() []string {
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	sort.Strings(names)
	return names
}

// maxStoredString bounds any string argument and any string a record holds:
// a world's records are small, and an agent sending megabytes is an attack
// or a bug. The static cost estimate of rules (sizeBounds) relies on it.
const maxStoredString = 10_000

// convert checks one argument against the param and returns its CEL value.
func (p *Param) convert(raw any) (ref.Val, error) {
	switch p.Type {
	case ParamStr, ParamEnum:
		s, ok := raw.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %s", jsonKind(raw))
		}
		if len(s) > maxStoredString {
			return nil, fmt.Errorf("too long: %d bytes (at most %d)", len(s), maxStoredString)
		}
		if p.Type == ParamEnum && !slices.Contains(p.Values, s) {
			return nil, fmt.Errorf("%q is not one of %s", s, strings.Join(p.Values, ", "))
		}
		if p.Type == ParamStr {
			// Characters, not bytes: JSON Schema's minLength/maxLength
			// count code points, and InputSchema promises the same rule.
			n := float64(utf8.RuneCountInString(s))
			if p.Min != nil && n < *p.Min {
				return nil, fmt.Errorf("shorter than %g characters", *p.Min)
			}
			if p.Max != nil && n > *p.Max {
				return nil, fmt.Errorf("longer than %g characters", *p.Max)
			}
		}
		return types.String(s), nil
	case ParamBool:
		b, ok := raw.(bool)
		if !ok {
			return nil, fmt.Errorf("want true or false, got %s", jsonKind(raw))
		}
		return types.Bool(b), nil
	case ParamInt:
		var n int64
		switch x := raw.(type) {
		case int:
			n = int64(x)
		case int64:
			n = x
		case float64:
			if x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
				return nil, fmt.Errorf("want a whole number, got %v", x)
			}
			n = int64(x)
		case json.Number:
			if i, err := x.Int64(); err == nil {
				n = i
				break
			}
			// "1e3" is a whole number too; Int64 only parses digits.
			f, err := x.Float64()
			if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return nil, fmt.Errorf("want a whole number, got %s", x)
			}
			n = int64(f)
		default:
			return nil, fmt.Errorf("want a whole number, got %s", jsonKind(raw))
		}
		if err := p.checkRange(float64(n)); err != nil {
			return nil, err
		}
		return types.Int(n), nil
	case ParamFloat:
		var f float64
		switch x := raw.(type) {
		case int:
			f = float64(x)
		case int64:
			f = float64(x)
		case float64:
			f = x
		case json.Number:
			v, err := x.Float64()
			if err != nil {
				return nil, fmt.Errorf("want a number, got %s", x)
			}
			f = v
		default:
			return nil, fmt.Errorf("want a number, got %s", jsonKind(raw))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("want a finite number")
		}
		if err := p.checkRange(f); err != nil {
			return nil, err
		}
		return types.Double(f), nil
	}
	return nil, fmt.Errorf("unsupported parameter type %s", p.Type)
}

func (p *Param) checkRange(f float64) error {
	if p.Min != nil && f < *p.Min {
		return fmt.Errorf("%v is below the minimum %v", f, *p.Min)
	}
	if p.Max != nil && f > *p.Max {
		return fmt.Errorf("%v is above the maximum %v", f, *p.Max)
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, int, int64, json.Number:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// celValue converts a Go value from a world file to a CEL value.
func celValue(v any) ref.Val {
	switch x := v.(type) {
	case string:
		return types.String(x)
	case int64:
		return types.Int(x)
	case int:
		return types.Int(x)
	case float64:
		return types.Double(x)
	case bool:
		return types.Bool(x)
	case time.Time:
		return types.Timestamp{Time: x}
	}
	return nil
}

// record adds a call to the journal and counts its error.
func (s *Session) record(idx uint64, start time.Duration, args map[string]any, res *Result) {
	if res.Err != nil {
		s.own(sharedErrCounts)
		if s.errCounts == nil {
			s.errCounts = map[string]int{}
		}
		s.errCounts[res.Err.Code]++
	}
	if rec := res.trueRecord(); res.showsState() && rec != nil {
		if w := &s.watch; w.rec != nil && rec.typ == w.rec.typ && rec.id == w.rec.id {
			w.last = rec
		}
	}
	s.appendJournal(JournalEntry{Seq: int(idx), Tool: res.Tool, Args: args, At: start, Result: *res})
}

// afterCall lets a goal's concurrent actor write, when its turn has come.
func (s *Session) afterCall() {
	c := &s.concurrent
	if c.spec == nil || c.done || int(s.calls) < c.spec.afterCalls {
		return
	}
	c.done = true
	cur := s.Get(c.target.typ, c.target.id)
	if cur == nil {
		return
	}
	act := &s.act
	*act = activation{r: cur, clock: s.Now(), hasClock: true, records: &s.recView}
	rec := cur.clone()
	for _, a := range c.spec.set {
		v, err := a.expr.eval(act)
		if err != nil || checkFieldValue(rec, a.field, v) != nil {
			return // the other actor's write is refused like any other
		}
		rec.vals[a.field.Index] = v
	}
	s.noteWrite(recKey{rec.typ.index, rec.id})
	s.put(rec)
	c.changedByOther = true
}
