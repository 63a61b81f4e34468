package personas

import (
	"strconv"
	"time"

	"github.com/herd-sh/herd/engine"
)

// maxVersionRetries bounds re-reading after version conflicts, so that an
// agent racing a busy record still stops before its patience does.
const maxVersionRetries = 3

// callWithPolicy calls a tool and handles failures by the agent's retry
// policy. ok: the call succeeded; confirmed: it timed out, but the agent
// read back and saw that its write had landed, so it did not retry.
func (a *agent) callWithPolicy(kind string, ti int, target *resolved, scores []ToolScore) (res engine.Result, ok, confirmed bool) {
	t := a.m.world.Tools[ti]
	limit := a.tr.Retry.attempts()
	attempts, versionRetries := 0, 0
	for {
		if a.s.Calls() >= a.tr.Patience {
			a.giveUp("patience exhausted")
			return res, false, false
		}
		var args map[string]any
		if t.Kind == engine.KindList {
			args = a.listArgs(t)
		} else {
			args = a.actArgs(ti, t, target)
		}
		res = a.call(kind, t, args, scores)
		scores = nil
		attempts++
		if res.OK() {
			return res, true, false
		}
		code := res.Err.Code
		retryable := limit == 0 || attempts < limit
		switch code {
		case engine.CodeRateLimited:
			if !retryable && !a.safeToRetry(ti, attempts) {
				a.giveUp("rate limited")
				return res, false, false
			}
			if (a.tr.Retry.HonorRetryAfter || a.waitsRetryAfter(ti)) && res.Err.RetryAfter > 0 {
				a.wait(res.Err.RetryAfter)
			}
		case engine.CodeTimeout, engine.CodeUnavailable, engine.CodeInternal:
			// A server error is transient to the caller, like a timeout
			// (how much of the write landed, it cannot tell).
			// A verifying agent does not retry a write blindly after a
			// timeout: it reads back first, and stops if the write landed.
			// Nor does one the tool's text told so ("retrying may charge
			// twice", "check the status before retrying"); with nothing
			// to read back with, it does not retry at all.
			if code == engine.CodeTimeout && t.Writes() && a.stop == "" {
				gi := -1
				switch {
				case a.verify && target != nil && target.rec != nil:
					gi = a.m.getTool[a.m.types[target.rt]]
				case a.guardsTimeout(t, ti, args):
					if gi = a.readBackTool(ti, target); gi < 0 {
						a.explainLast(a.saidBy(a.adviceInFocus(ti), adviceGuard) + " warns a retry may repeat it, and there is nothing to read back with: not retrying")
						a.giveUp("timed out; a retry may repeat the write")
						return res, false, false
					}
					a.explainLast("reads back before retrying: " + a.saidBy(a.adviceInFocus(ti), adviceGuard) + " says a retry may repeat it")
				}
				if gi >= 0 {
					if a.landed(gi, t, target, args) {
						return res, true, true
					}
					if a.stop != "" {
						return res, false, false
					}
				}
			}
			if retryable && a.toldNotToRetry(ti, code) {
				a.giveUp(code)
				return res, false, false
			}
			if !retryable && !a.safeToRetry(ti, attempts) {
				a.giveUp(code)
				return res, false, false
			}
		case engine.CodeInvalidArgument:
			if !retryable {
				return res, false, false // maybe the wrong tool: the caller tries another
			}
		case engine.CodeNotFound:
			if kind == StepAct || kind == StepRetry {
				a.giveUp(code)
			}
			return res, false, false
		default:
			// A business error. One raised because the record changed
			// since the agent read it (it passed the version it read) is
			// resolved by reading again and retrying with the new version.
			if target != nil && a.passedVersion(t, args) && versionRetries < maxVersionRetries && a.stop == "" {
				versionRetries++
				attempts--
				if !a.look(target) {
					return res, false, false
				}
				kind = StepRetry
				continue
			}
			// The message, or the tool's text, may say what to do
			// instead ("cancel it instead", "restore it first").
			if (kind == StepAct || kind == StepRetry) && a.stop == "" && a.redirectAfter(ti, res.Err) {
				return res, false, false
			}
			if a.tr.Retry.Mode != RetryUntilSuccess || !retryable || a.toldNotToRetry(ti, code) {
				a.giveUp(code)
				return res, false, false
			}
		}
		kind = StepRetry
	}
}

// passedVersion reports whether args carried an expected version.
func (a *agent) passedVersion(t *engine.Tool, args map[string]any) bool {
	for _, p := range t.Params {
		if versionFieldOf(t, p) != nil {
			if _, ok := args[p.Name]; ok {
				return true
			}
		}
	}
	return false
}

// landed reads back with tool gi after a timed-out write to see whether
// it happened. Without an earlier read to compare with, a record that
// holds what was sent (or, for a write that sends no fields, is there)
// counts as landed: the agent errs towards not doing it twice.
func (a *agent) landed(gi int, t *engine.Tool, target *resolved, sent map[string]any) bool {
	if gi < 0 {
		return false
	}
	before := target.rec
	res, ok, _ := a.callWithPolicy(StepVerify, gi, target, nil)
	if !ok {
		return res.Err != nil && res.Err.Code == engine.CodeNotFound && t.Kind == engine.KindDelete
	}
	target.rec = res.Record
	return a.changed(t, before, res.Record, sent)
}

// call makes one call and keeps the books: the first write tool called,
// faults met, refused arguments, and commits of the current action (a
// second commit is a duplicated side effect).
func (a *agent) call(kind string, t *engine.Tool, args map[string]any, scores []ToolScore) engine.Result {
	hostile := ""
	if a.tr.Hostility > 0 && a.dice.args.float() < a.tr.Hostility {
		hostile = a.mutate(t, args)
		a.out.Hostile++
	}
	at := a.s.Elapsed()
	res := a.s.Call(t.Name, args)
	a.lastArgs = args
	if a.remote {
		a.remoteCalls = append(a.remoteCalls, remoteCall{action: int32(a.action), hostile: hostile})
	}
	writes := t.Writes()
	if writes && a.out.Called == "" {
		a.out.Called = t.Name
	}
	if res.Fault != "" {
		a.out.Faults = append(a.out.Faults, FaultEvent{Tool: t.Name, Kind: res.Fault})
	}
	if res.Err != nil && res.Err.Code == engine.CodeInvalidArgument {
		a.out.InvalidArgs++
	}
	if writes && res.Committed && !res.Replayed {
		a.commits++
		if a.commits > 1 {
			a.out.Duplicated++
		}
	}
	if a.trace != nil {
		a.trace.Steps = append(a.trace.Steps, Step{Kind: kind, Tool: t.Name, Args: args, Scores: scores,
			Result: describeResult(&res, hostile), Read: a.pendingRead, At: at})
		a.pendingRead = ""
	}
	return res
}

// wait honours a retry-after on the virtual clock.
func (a *agent) wait(d time.Duration) {
	at := a.s.Elapsed()
	a.s.Sleep(d)
	if a.trace != nil {
		a.trace.Steps = append(a.trace.Steps, Step{Kind: StepWait, Result: "waited " + d.String(), At: at})
	}
}

// describeResult is a step's result line.
func describeResult(res *engine.Result, hostile string) string {
	var s string
	switch {
	case res.Fault != "":
		s = "fault: " + res.Fault
		if res.Err != nil && res.Err.RetryAfter > 0 {
			s += " (retry after " + res.Err.RetryAfter.String() + ")"
		}
	case res.Err != nil:
		s = "error: " + res.Err.Code + " — " + res.Err.Message
	case res.Records != nil:
		s = "ok: " + strconv.Itoa(len(res.Records)) + " results"
	case res.Replayed:
		s = "ok (replayed: nothing changed)"
	default:
		s = "ok"
	}
	if hostile != "" {
		s += " [sent " + hostile + "]"
	}
	return s
}
