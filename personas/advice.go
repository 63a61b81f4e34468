package personas

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/herd-sh/herd/engine"
)

// After the first choice an agent keeps reading. What a tool's text says
// about retrying, idempotency keys, reading back and preconditions is read
// once, when the model is built, per tool and per attention level (what a
// reader at that level sees: nothing but the name, the first sentence, or
// everything with parameter docs and annotations). An episode only looks
// the advice up and draws, from the agent's own advice dice, whether the
// agent heeds it: in proportion to attention × caution (see heeds), the persona's own
// retry policy staying the prior. Error messages are read when they come,
// and can send the next choice to the tool they name or describe.

// adviceKind is one thing a text can tell an agent to do after choosing.
type adviceKind uint8

const (
	// adviceKey: pass an idempotency key (the "Idempotency-Key" of
	// payment APIs), reused on retries.
	adviceKey adviceKind = iota
	// adviceGuard: do not retry a timed-out write blindly — it may have
	// landed ("retrying may charge twice", "not idempotent", "check the
	// status before retrying"). The agent reads back first, and when it
	// cannot, it does not retry.
	adviceGuard
	// adviceSafe: retrying is safe ("safe to retry", idempotentHint): an
	// agent whose policy never retries retries a transient failure once.
	adviceSafe
	// adviceWait: wait out a rate limit's retry-after.
	adviceWait
	// adviceVersion: pass the expected version (optimistic locking), read
	// just before.
	adviceVersion
	// adviceFirst: another tool must be used first; after a business
	// error the agent uses it, then tries again.
	adviceFirst
	// adviceNoRetry: do not retry after these errors at all.
	adviceNoRetry
	adviceKinds
	// adviceReread is no advice: the heard entry that records whether a
	// skimmer read the rest of a tool's text after a failure.
	adviceReread = adviceKinds
)

// advice is what one tool's texts, as one attention level sees them, say
// about using that tool after it was chosen. The zero value says nothing.
type advice struct {
	has      uint16 // bit per adviceKind
	keyParam string // adviceKey: the parameter that takes the key
	readBack bool   // adviceGuard: the text says to read back (not only that a retry repeats)
	readWith int    // adviceGuard: the read tool the text names, -1 for the record's own get tool
	first    int    // adviceFirst: the tool to use first
	noRetry  []string
	// from: per kind, the tool whose text said it (for the trace).
	from [adviceKinds]int
}

func (ad *advice) says(k adviceKind) bool { return ad.has&(1<<k) != 0 }

func (ad *advice) set(k adviceKind, from int) {
	if !ad.says(k) {
		ad.has |= 1 << k
		ad.from[k] = from
	}
}

// noRetryAfter reports whether the advice says not to retry after an error
// with this code ("timeout" stands for every transient failure).
func (ad *advice) noRetryAfter(code string) bool {
	if !ad.says(adviceNoRetry) {
		return false
	}
	if code == engine.CodeUnavailable {
		code = engine.CodeTimeout
	}
	return slices.Contains(ad.noRetry, code) || slices.Contains(ad.noRetry, "*") && code != engine.CodeRateLimited
}

// adviceTable is a model's advice: per tool, per attention level, and the
// error messages read so far.
type adviceTable struct {
	tools     [][adviceViews]advice
	toolIndex map[string]int // tool name → index, to find tools named in messages
	// messages caches what a message tells a reader at one level: the
	// world's messages come from a few templates, so the cache stays the
	// size of the world's error codes and records.
	mu       sync.RWMutex
	messages map[messageKey]messageReading
}

// at returns the advice one level sees about tool ti (nil table: none).
func (t *adviceTable) at(ti int, lv attentionLevel) *advice {
	if t == nil || ti < 0 || ti >= len(t.tools) {
		return &noAdvice
	}
	return &t.tools[ti][lv]
}

var noAdvice = advice{readWith: -1, first: -1}

// readOn is the advice a skimmer finds when it reads on past the first
// sentence of the tool it chose (adviceInFocus): the rest of the
// description, but not the parameter docs or annotations, which only a
// reader of everything reads. A terse "Renew a domain." whose key
// parameter's doc says what a key does is not, to a skimmer, a text that
// told it to pass one.
const (
	readOn      = seeEverything + 1
	adviceViews = readOn + 1
)

// Word classes, each a set of stems, so that whatever the stemmer makes of
// "retrying" or "timed out", the text and the sets agree.
var (
	advRetry    = stemsOf("retry", "retries", "retrying", "retried", "resend", "resubmit", "redo", "reattempt")
	advAgainVb  = stemsOf("call", "calling", "try", "send", "submit", "run", "repeat", "issue", "make", "request", "do")
	advAgain    = stemsOf("again")
	advTime     = stemsOf("time", "times", "timed")
	advOut      = stemsOf("out")
	advTimeout  = stemsOf("timeout", "timeouts", "unavailable", "unreachable", "unanswered", "disconnect", "disconnected")
	advNoReply  = stemsOf("response", "answer", "reply", "connection", "network")
	advNegation = stemsOf("not", "never", "no", "avoid", "without", "unless", "nor")
	advTwice    = stemsOf("twice", "double", "duplicate", "duplicates", "duplicated", "second", "another", "doubled", "repeated")
	advEach     = stemsOf("each", "every")
	advCallWord = stemsOf("call", "calls", "request", "requests", "attempt", "invocation", "retry", "time", "times")
	advSafe     = stemsOf("safe", "safely", "harmless", "harmlessly", "idempotent")
	advIdem     = stemsOf("idempotent", "idempotently")
	advKeyWord  = stemsOf("idempotency", "dedup", "deduplication", "deduplicate")
	advKey      = stemsOf("key", "token", "id")
	advSameKey  = stemsOf("same", "reuse", "unique", "identical")
	advPass     = stemsOf("pass", "send", "include", "set", "supply", "provide", "use", "add", "attach", "give", "reuse", "specify",
		// "Supports the Idempotency-Key header (request_token)": a key the
		// tool takes is one to pass.
		"support", "supports", "accept", "accepts", "take", "takes", "honor", "honors", "honour", "honours")
	advCheck   = stemsOf("check", "verify", "confirm", "look", "read", "fetch", "get", "inspect", "see", "query", "poll", "list", "retrieve", "find")
	advBefore  = stemsOf("before", "first", "prior")
	advFirst   = stemsOf("first", "beforehand")
	advVersion = stemsOf("version", "etag", "revision", "generation")
	advRequire = stemsOf("require", "requires", "required", "need", "needs", "expect", "expects", "expected", "match", "mismatch")
	advWait    = stemsOf("wait", "honor", "honour", "respect", "obey", "sleep", "pause", "backoff", "delay")
	advRate    = stemsOf("rate", "throttled", "throttle", "throttling")
	advWhether = stemsOf("whether")
	advNew     = stemsOf("new")
	advBackOff = stems("back off")
)

// retryAfterHeader is a mention of the retry-after value ("Retry-After",
// "retry_after", "the retry after delay"), which is no retry. "A retry
// after a timeout" is a retry.
var retryAfterHeader = regexp.MustCompile(`(?i)\bretry[-_]after\b(?:\s+(?:header|delay|value|period|interval|duration|time|seconds|field))?|\bretry after (?:header|delay|value|period|interval|duration|seconds|field)\b`)

// stemsOf is the set of the stems of words (each word may stem to nothing
// when it is a stop word; those are left out).
func stemsOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		for _, s := range stems(w) {
			m[s] = true
		}
	}
	return m
}

// readAdvice reads every tool's text under the model's variant (or the
// replacement descriptions) into advice per tool and level.
func readAdvice(m *Model, descriptions map[string]string) *adviceTable {
	w := m.world
	toolIndex := make(map[string]int, len(w.Tools))
	for i, t := range w.Tools {
		toolIndex[t.Name] = i
	}
	tab := &adviceTable{tools: make([][adviceViews]advice, len(w.Tools)), toolIndex: toolIndex}
	for i := range tab.tools {
		for lv := range tab.tools[i] {
			tab.tools[i][lv] = noAdvice
		}
	}
	r := adviceReader{m: m, toolIndex: toolIndex, tab: tab, paramWords: map[*engine.Param][]string{}}
	for ti, t := range w.Tools {
		for _, p := range t.Params {
			r.paramWords[p] = stems(strings.ReplaceAll(p.Name, "_", " "))
			if versionFieldOf(t, p) != nil {
				r.versionParams = append(r.versionParams, toolParam{ti, p})
			}
		}
	}
	for i, t := range w.Tools {
		text := t.Description(m.variant)
		if d, ok := descriptions[t.Name]; ok {
			text = d
		}
		// A sentence a skimmer sees is read once for both levels that
		// see it. What a skimmer sees is what its view of the tool read
		// (the first informative sentences, to a word budget): advice in
		// "Run instances. NOTE: THIS LAUNCHES A NEW INSTANCE EVERY TIME IT
		// IS CALLED." reaches it as the words do.
		lead, first := m.views[i][seeLead].seen, m.views[i][seeFirst].seen
		all := sentences(text)
		for _, s := range all {
			r.sentence(i, textLevels(slices.Contains(lead, s), slices.Contains(first, s), true), s, nil)
		}
		for _, s := range first {
			if !slices.Contains(all, s) {
				r.sentence(i, textLevels(slices.Contains(lead, s), true, false), s, nil)
			}
		}
		for _, p := range t.Params {
			if p.Description != "" {
				r.sentence(i, everything, p.Description, p)
			}
		}
		if t.Annotations.Idempotent && t.Writes() {
			tab.tools[i][seeEverything].set(adviceSafe, i)
		}
	}
	return tab
}

// everything is the advice view a parameter's doc is read into: only a
// reader of everything reads it.
var everything = []attentionLevel{seeEverything}

// textLevels is the advice views a sentence of a tool's description is
// read into: by the readers whose view of the tool took it in (the first
// sentence's, the first lines', everything's, as the view saw it), and
// always by a skimmer that reads on past its first look (readOn).
func textLevels(inLead, inFirst, inAll bool) []attentionLevel {
	lvs := make([]attentionLevel, 0, 4)
	if inLead {
		lvs = append(lvs, seeLead)
	}
	if inFirst {
		lvs = append(lvs, seeFirst)
	}
	if inAll {
		lvs = append(lvs, seeEverything)
	}
	return append(lvs, readOn)
}

type adviceReader struct {
	m         *Model
	toolIndex map[string]int
	tab       *adviceTable
	// paramWords: every parameter's name as stems ("expected_version" →
	// expect, version), computed once.
	paramWords map[*engine.Param][]string
	// versionParams are the version parameters of every tool, found once:
	// each sentence is checked against them, not against every param of
	// every tool.
	versionParams []toolParam
}

// toolParam is a parameter and the index of its tool.
type toolParam struct {
	tool  int
	param *engine.Param
}

// sentence reads one sentence of tool self's text (or of its parameter p's
// doc) at one level.
func (r *adviceReader) sentence(self int, lvs []attentionLevel, raw string, p *engine.Param) {
	w := r.m.world
	t := w.Tools[self]
	header := retryAfterHeader.MatchString(raw)
	toks := tokenize(retryAfterHeader.ReplaceAllString(raw, " retryafterheader "), r.toolIndex)
	var ws []string
	var mentions, checkAt []int
	if p != nil {
		// A parameter's doc is about that parameter: its name is part of
		// what it says ("idempotency_key: a key unique to this refund").
		ws = append(ws, r.paramWords[p]...)
	}
	for _, tk := range toks {
		if tk.tool < 0 {
			if advCheck[tk.word] {
				checkAt = append(checkAt, len(ws))
			}
			ws = append(ws, tk.word)
			continue
		}
		if tk.tool != self {
			mentions = append(mentions, tk.tool)
			if !w.Tools[tk.tool].Writes() {
				checkAt = append(checkAt, len(ws)) // "call get_refund before retrying"
			}
		}
		ws = append(ws, mentionWord)
	}
	retryAt := retryPositions(ws)
	retry := len(retryAt) > 0
	negRetry := false
	for _, i := range retryAt {
		if negatedAt(ws, i) {
			negRetry = true
		}
	}
	timeout := len(timeoutPositions(ws)) > 0
	// "again" is a consequence only after "each call" ("each call refunds
	// again"); elsewhere it is the retry itself ("before calling again").
	twice := repeatSaid(ws) || eachCall(ws) && (anyOf(ws, advAgain) || anyOf(ws, advNew))
	keyParam := r.keyParamOf(t, ws, p)
	hasKey := keyParam != ""
	idem, idemNegated := false, false
	for i, x := range ws {
		if advIdem[x] {
			idem = true
			idemNegated = idemNegated || negatedAt(ws, i)
		}
	}
	// What the sentence says, read once, holds at every level that sees it.
	for _, lv := range lvs {
		ad := &r.tab.tools[self][lv]

		if hasKey && (anyOf(ws, advPass) || anyOf(ws, advSameKey) || retry || twice) {
			ad.set(adviceKey, self)
			ad.keyParam = keyParam
		}
		writes := t.Writes()
		if writes && (idemNegated || retry && twice && !safeSaid(ws) || eachCall(ws) && twice || hasKey && twice) {
			ad.set(adviceGuard, self)
		}
		if writes && negRetry && !hasKey {
			ad.set(adviceNoRetry, self)
			ad.noRetry = appendScope(ad.noRetry, r.codesIn(t, ws, timeout))
		}
		if writes && !hasKey && (idem && !idemNegated || retry && safeSaid(ws) && !negRetry) {
			ad.set(adviceSafe, self)
		}
		// Read back before retrying: a check verb and a timeout, or a check
		// before a retry ("check the status before retrying").
		if checkBeforeRetry(ws, checkAt) {
			readWith := -1
			for _, o := range mentions {
				if ot := w.Tools[o]; !ot.Writes() && ot.Kind == engine.KindGet {
					readWith = o
					break
				}
			}
			if writes {
				r.guard(self, lv, self, readWith)
			} else if t.Record != nil {
				// A read tool that says it is how to check a timed-out write
				// ("use it to check whether a refund that timed out went
				// through") advises the writes of its record it names, or all.
				if readWith < 0 && t.Kind == engine.KindGet {
					readWith = self
				}
				var named, all []int
				for oi, ot := range w.Tools {
					if !ot.Writes() || ot.Record != t.Record {
						continue
					}
					all = append(all, oi)
					for _, nw := range stems(strings.ReplaceAll(ot.Name, "_", " ")) {
						if slices.Contains(ws, nw) {
							named = append(named, oi)
							break
						}
					}
				}
				if len(named) == 0 {
					named = all
				}
				for _, oi := range named {
					r.guard(oi, lv, self, readWith)
				}
			}
		}
		backOff := containsRun(ws, advBackOff)
		if (header || anyOf(ws, advRate)) && (anyOf(ws, advWait) || backOff) {
			ad.set(adviceWait, self)
		}
		r.versions(self, lv, ws, p)
		if writes && p == nil && anyOf(ws, advFirst) {
			if fi := r.firstTool(self, lv, raw); fi >= 0 {
				ad.set(adviceFirst, self)
				ad.first = fi
			}
		}
	}
}

// guard records read-back advice about tool ti, said by tool from.
func (r *adviceReader) guard(ti int, lv attentionLevel, from, readWith int) {
	ad := &r.tab.tools[ti][lv]
	ad.set(adviceGuard, from)
	ad.readBack = true
	if readWith >= 0 && ad.readWith < 0 && r.m.world.Tools[readWith].Record == r.m.world.Tools[ti].Record {
		ad.readWith = readWith
	}
}

// versions records expected-version advice: a sentence that names a
// version parameter of any tool and says to pass or that it is required,
// or a version parameter's own doc.
func (r *adviceReader) versions(self int, lv attentionLevel, ws []string, p *engine.Param) {
	for _, vp := range r.versionParams {
		ti, q := vp.tool, vp.param
		says := containsRun(ws, r.paramWords[q]) && (p == nil && (anyOf(ws, advPass) || anyOf(ws, advRequire)) || p == q)
		if !says && ti == self && p == nil && anyOf(ws, advVersion) && (anyOf(ws, advPass) || anyOf(ws, advRequire)) {
			says = true
		}
		if says {
			r.tab.tools[ti][lv].set(adviceVersion, self)
		}
	}
}

// firstTool is the write tool a precondition of self's text says to use
// first: in a clause with "first" as an adverb ("call cancel_order first",
// "the order must be cancelled first", "First, cancel the order" — not
// "returns the first result"), the write tool it names, else the one whose
// verb its verb matches. -1 when none.
func (r *adviceReader) firstTool(self int, lv attentionLevel, raw string) int {
	for _, c := range clauses(raw) {
		if !firstAdverb(c) {
			continue
		}
		for _, tk := range tokenize(c, r.toolIndex) {
			if tk.tool >= 0 && tk.tool != self && r.m.world.Tools[tk.tool].Writes() {
				return tk.tool
			}
		}
		if v := changeVerb(c, r.m.actions); v != "" {
			if fi := r.m.verbTool(self, lv, raw, v); fi >= 0 {
				return fi
			}
		}
	}
	return -1
}

// firstAdverb: "first" (or "beforehand") in the clause says when, not
// which: it does not follow a determiner ("the first result").
func firstAdverb(clause string) bool {
	raw := strings.FieldsFunc(strings.ToLower(clause), func(r rune) bool { return !unicode.IsLetter(r) })
	for i, w := range raw {
		if w == "beforehand" || w == "first" && (i == 0 || !determiners[raw[i-1]]) {
			return true
		}
	}
	return false
}

var determiners = setOf("the", "a", "an", "its", "their", "your", "his", "her", "our", "this", "that", "my", "whose")

// keyParamOf is the parameter of t a sentence tells to put a key in: the
// tool's declared idempotency parameter, or one whose name says it is one,
// when the sentence is about keys. "" when the sentence is not, or the
// tool has no such parameter.
func (r *adviceReader) keyParamOf(t *engine.Tool, ws []string, p *engine.Param) string {
	isKeyParam := func(q *engine.Param) bool {
		return q.Name == t.Idempotency || anyOf(r.paramWords[q], advKeyWord)
	}
	if p != nil {
		if isKeyParam(p) {
			return p.Name
		}
		return ""
	}
	for _, q := range t.Params {
		if !isKeyParam(q) {
			continue
		}
		if saysKeyWord(ws) || containsRun(ws, r.paramWords[q]) || anyOf(ws, advKey) && anyOf(ws, advSameKey) {
			return q.Name
		}
	}
	return ""
}

// saysKeyWord reports whether a sentence speaks of idempotency keys. The
// stemmer gives "idempotency" and "idempotent" one stem, so that stem
// counts only before a word for a key ("idempotency key", "idempotent
// token"): "Not idempotent: each call refunds again" speaks of no key.
func saysKeyWord(ws []string) bool {
	for i, x := range ws {
		if !advKeyWord[x] {
			continue
		}
		if !advIdem[x] || i+1 < len(ws) && advKey[ws[i+1]] {
			return true
		}
	}
	return false
}

// codesIn are the error codes of t a "do not retry" sentence names, or
// "timeout" when it speaks of timeouts, or "*" for any failure.
func (r *adviceReader) codesIn(t *engine.Tool, ws []string, timeout bool) []string {
	var out []string
	for _, c := range t.ErrorCodes() {
		if containsRun(ws, stems(strings.ReplaceAll(c, "_", " "))) {
			out = append(out, c)
		}
	}
	if len(out) == 0 && timeout {
		out = append(out, engine.CodeTimeout)
	}
	if len(out) == 0 {
		out = append(out, "*")
	}
	return out
}

func appendScope(dst, codes []string) []string {
	for _, c := range codes {
		if !slices.Contains(dst, c) {
			dst = append(dst, c)
		}
	}
	return dst
}

// mentionWord stands, in a sentence's word list, for a mention of a tool.
const mentionWord = "\x00tool"

// repeatSaid: the sentence says something happens twice ("charges twice",
// "a duplicate record"). A repeat word that qualifies a key ("a repeated
// key returns the first order", "the same token twice") is about the key,
// which makes the repeat safe, not about the effect.
func repeatSaid(ws []string) bool {
	for i, w := range ws {
		if advTwice[w] && !(i+1 < len(ws) && (advKey[ws[i+1]] || advKeyWord[ws[i+1]])) {
			return true
		}
	}
	return false
}

func anyOf(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if set[w] {
			return true
		}
	}
	return false
}

func positions(ws []string, set map[string]bool) []int {
	var out []int
	for i, w := range ws {
		if set[w] {
			out = append(out, i)
		}
	}
	return out
}

// negatedAt: one of the two words before i negates it ("do not retry",
// "never call it again").
func negatedAt(ws []string, i int) bool { return precededBy(advNegation, ws, i) }

// retryPositions are where a sentence speaks of retrying: "retry",
// "resend", or "again" after a verb of calling ("call it again").
func retryPositions(ws []string) []int {
	var out []int
	for i, w := range ws {
		switch {
		case advRetry[w]:
			out = append(out, i)
		case advAgain[w]:
			for k := i - 1; k >= 0 && k >= i-3; k-- {
				if advAgainVb[ws[k]] {
					out = append(out, k)
					break
				}
			}
		}
	}
	return out
}

// timeoutPositions are where a sentence speaks of a timeout: "timeout",
// "times out", "timed out", "no response", "unavailable".
func timeoutPositions(ws []string) []int {
	var out []int
	for i, w := range ws {
		switch {
		case advTimeout[w]:
			out = append(out, i)
		case advTime[w] && i+1 < len(ws) && advOut[ws[i+1]]:
			out = append(out, i)
		case advNoReply[w] && i >= 1 && ws[i-1] == "no":
			out = append(out, i)
		}
	}
	return out
}

// eachCall: "each call", "every request" — the sentence says what every
// call does, so a repeat does it again.
func eachCall(ws []string) bool {
	for i := 0; i+1 < len(ws); i++ {
		if advEach[ws[i]] && advCallWord[ws[i+1]] {
			return true
		}
	}
	return false
}

// safeSaid: a word saying a repeat is safe, not negated.
func safeSaid(ws []string) bool {
	for i, w := range ws {
		if advSafe[w] && !negatedAt(ws, i) {
			return true
		}
	}
	return false
}

// checkBeforeRetry reads "after a timeout, look at the order before you
// call again", "if it times out, call get_refund before retrying", "use it
// to check whether a refund that timed out went through" and "check the
// status before retrying" — a check that follows a timeout, or asks
// whether a timed-out call went through, or comes before a retry — and not
// "the ETag you read, and a retry after a timeout fails" (a read that is
// no step to take).
func checkBeforeRetry(ws []string, checkAt []int) bool {
	timeouts := timeoutPositions(ws)
	retries := retryPositions(ws)
	whether := positions(ws, advWhether)
	befores := positions(ws, advBefore)
	for _, j := range checkAt {
		for _, i := range timeouts {
			if i < j {
				return true
			}
		}
		for _, k := range whether {
			for _, l := range timeouts {
				if k > j && l > k {
					return true
				}
			}
		}
		for _, k := range befores {
			for _, l := range retries {
				if k > j && l > k {
					return true
				}
			}
		}
	}
	return false
}

// levelReaders are who reads a precondition's or an error message's verb
// against the tools, one per attention level: the level decides what is
// seen of the tools; the rest is a middling reader's.
var levelReaders = [attentionLevels]Traits{
	{Attention: 0.15, Caution: 0.5, Literalness: 0.5, Noise: 1, Patience: 1, Retry: RetryPolicy{Mode: RetryNone}},
	{Attention: 0.45, Caution: 0.5, Literalness: 0.5, Noise: 1, Patience: 1, Retry: RetryPolicy{Mode: RetryNone}},
	{Attention: 0.5, Caution: 0.5, Literalness: 0.5, Noise: 1, Patience: 1, Retry: RetryPolicy{Mode: RetryNone}},
	{Attention: 0.95, Caution: 0.5, Literalness: 0.5, Noise: 1, Patience: 1, Retry: RetryPolicy{Mode: RetryNone}},
}

// verbTool is the write tool (not self) that best does what verb asks,
// with the rest of text as context ("q1.pdf is in the trash; restore it
// first": restore, about the trash), as the reader model scores it for a
// reader at level lv; -1 when no write tool's words match.
func (m *Model) verbTool(self int, lv attentionLevel, text, verb string) int {
	lv = min(lv, seeEverything) // a skimmer reading on weighs the tools as a reader of everything
	var words []string
	for _, w := range stems(removePlaceholders(text)) {
		if !lightVerbs[w] && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	in := newIntent(words, verb)
	best, bestScore := -1, 0.0
	for i, p := range scoreParts(m, m.views, &in, m.all, levelReaders[lv]) {
		ti := m.all[i]
		if ti == self || !m.world.Tools[ti].Writes() || p.Words <= 0 {
			continue
		}
		// The message names the action and its object ("q1.pdf is in the
		// trash; restore it first"): the tool is the one whose own text
		// does that, not the one another text points to for a purpose of
		// its own ("to undo a write instead, use restore_previous").
		if sc := p.Score - p.Redirect; best < 0 || sc > bestScore {
			best, bestScore = ti, sc
		}
	}
	return best
}

// changeVerb is the first word of a clause that names an action asking
// for a change, "" when none does.
func changeVerb(clause string, actions map[string]bool) string {
	for _, w := range stems(clause) {
		if actions[w] && !readVerbs[w] && !lightVerbs[w] {
			return w
		}
	}
	return ""
}

// clauses splits a sentence or message at clause breaks, commas and
// brackets; a period inside a word ("q1.pdf", "e.g.") breaks nothing.
func clauses(text string) []string {
	return adviceClauseBreak.Split(text, -1)
}

var adviceClauseBreak = regexp.MustCompile(`(?i)[!?;:—–(),]+|\.(?:\s|$)|\s-\s|\s+(?:and then|then)\s+`)

// instructs: the clause is an instruction — it starts with an action verb
// that asks for a change ("restore it first", "cancel it instead", "please
// unlock it") and states nothing ("charge ch_1 has already been captured"
// starts with an action word too, but "has" makes it a statement).
func instructs(clause string, actions map[string]bool) bool {
	raw := strings.Fields(strings.ToLower(clause))
	for i, w := range raw {
		raw[i] = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	for len(raw) > 0 && politeWords[raw[0]] {
		raw = raw[1:]
	}
	// The verb is a plain word: "archive/2025/q1.pdf is…" starts with a
	// path, not with "archive".
	if len(raw) == 0 || stopWords[raw[0]] || strings.IndexFunc(raw[0], func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
		return false
	}
	for _, w := range raw {
		if finiteVerbs[strings.ReplaceAll(w, "’", "'")] {
			return false
		}
	}
	first := stems(raw[0])
	if len(first) != 1 || !actions[first[0]] || readVerbs[first[0]] || lightVerbs[first[0]] {
		return false
	}
	// Many action words are nouns too ("message rejected by the content
	// filter"): an instruction also says how ("instead", "first") or
	// takes an object ("restore it", "cancel the order").
	if len(raw) > 1 && objectWords[raw[1]] {
		return true
	}
	for _, w := range raw {
		if instructionMarkers[w] {
			return true
		}
	}
	return false
}

var objectWords = setOf("it", "them", "this", "that", "these", "those", "the", "a", "an", "its", "their", "your", "one")

var instructionMarkers = setOf("instead", "first", "rather", "please", "beforehand", "now")

// politeWords may come before an instruction's verb.
var politeWords = setOf("please", "then", "so", "instead", "first", "now", "just", "kindly")

// finiteVerbs make a clause a statement, not an instruction.
var finiteVerbs = setOf("is", "are", "was", "were", "has", "have", "had", "been", "being", "does", "did", "isn't",
	"aren't", "wasn't", "weren't", "hasn't", "haven't", "doesn't", "didn't", "cannot", "can't", "won't", "will", "would",
	"could", "may", "might", "belongs", "exists")

// messageKey is one error message as a reader at one level reads it: the
// tool, the code and a hash of the text without its digits — "contact
// c_0012 is locked" and "contact c_0040 is locked" say the same thing. A
// hash, so that a look-up allocates nothing.
type messageKey struct {
	tool int32
	lv   attentionLevel
	code string
	text uint64
}

// messageReading is what an error message tells the agent to do next: use
// tool (-1: nothing it can act on), first (then try the failed tool
// again) or instead.
type messageReading struct {
	tool  int
	first bool
}

// readMessage is what the message of an error from tool ti tells a reader
// at level lv, cached.
func (m *Model) readMessage(ti int, e *engine.ToolError, lv attentionLevel) messageReading {
	tab := m.advice
	if tab == nil || e == nil || e.Message == "" {
		return messageReading{tool: -1}
	}
	key := messageKey{tool: int32(ti), lv: lv, code: e.Code, text: hashWithoutDigits(e.Message)}
	tab.mu.RLock()
	r, ok := tab.messages[key]
	tab.mu.RUnlock()
	if ok {
		return r
	}
	// An error message answers the agent's own call: it is short and the
	// only text in front of it, so a reader of first sentences reads it
	// whole, as a reader of everything does (one that reads names only
	// reads it at all with probability attention: readsMessages). What
	// to do is often after the refusal ("…cannot be deleted; pause it
	// with pause_subscription instead").
	r = m.interpretMessage(ti, e.Message, lv)
	tab.mu.Lock()
	if tab.messages == nil {
		tab.messages = map[messageKey]messageReading{}
	}
	tab.messages[key] = r
	tab.mu.Unlock()
	return r
}

// hashWithoutDigits is FNV-1a over the text's bytes but its ASCII digits.
func hashWithoutDigits(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	return h
}

// interpretMessage reads a message: a write tool it names ("a delivered
// order can be returned with create_return"), else the write tool whose
// verb an instruction in it asks for ("restore it first", "cancel it
// instead"). "first" or "before" makes it a prerequisite.
func (m *Model) interpretMessage(ti int, msg string, lv attentionLevel) messageReading {
	first := anyOf(stems(msg), advBefore)
	for _, tk := range tokenize(msg, m.advice.toolIndex) {
		if tk.tool >= 0 && tk.tool != ti && m.world.Tools[tk.tool].Writes() {
			return messageReading{tool: tk.tool, first: first}
		}
	}
	for _, c := range clauses(msg) {
		if !instructs(c, m.actions) {
			continue
		}
		if x := m.verbTool(ti, lv, msg, changeVerb(c, m.actions)); x >= 0 {
			return messageReading{tool: x, first: first}
		}
	}
	return messageReading{tool: -1}
}

// heard is one decision an agent made about one piece of advice: drawn
// once, kept for the episode, so that an agent that passed a key on the
// first attempt passes it on the retry too.
type heard struct {
	tool int32
	kind adviceKind
	yes  bool
}

// adviceFor is what the agent's attention lets it see of advice about ti.
func (a *agent) adviceFor(ti int) *advice { return a.m.advice.at(ti, a.readLevel()) }

// readLevel is the level the agent read the tool it is calling at: its
// own, or a skimmer's in a slip.
func (a *agent) readLevel() attentionLevel {
	if a.slipping {
		return seeFirst
	}
	return a.c.level
}

// adviceInFocus is what the agent knows of ti's advice once it has chosen
// ti — to fill in its call, or after a call to it failed. A skimmer that
// chose ti by its first sentence has, at that moment, one short text in
// front of it rather than a list to scan: it reads the rest of ti's text
// with probability attention (drawn once per episode and tool, so the
// agent that read on to pass a key has read on after the failure too), and
// advice placed past the first sentence still reaches some skimmers, fewer
// than advice placed first (heeding it is then drawn by its weight alone:
// see heeds). Before this, a key or a version the text asked for past its
// first sentence reached only the readers of everything, who pass them by
// policy anyway: the text changed nothing. A reader of names only reads no
// description, at the call or after a failure.
func (a *agent) adviceInFocus(ti int) *advice {
	seen := a.adviceFor(ti)
	if lv := a.readLevel(); lv != seeLead && lv != seeFirst {
		return seen // a reader of everything saw it all; one of names reads none
	}
	all := a.m.advice.at(ti, readOn)
	if seen.has == all.has || !a.decided(ti, adviceReread, a.tr.Attention) {
		return seen // nothing more to read, or it does not read on
	}
	return all
}

// heeds draws, once per episode and piece of advice, whether the agent
// follows advice it saw, by how readily it follows that kind (heedWeight:
// caution — or, for an instruction on how to call (pass this key, pass the
// version, use that tool first, read back before retrying), max(caution,
// literalness): a literal reader does what the text says to the letter,
// cautious or not; a warning to be careful ("a retry may charge twice")
// weighs by caution alone).
//
// Advice is met when the agent has the one tool it chose in front of it —
// filling in the call, or after the call failed — so the weight alone
// decides; attention has already decided how much of the text it has
// (adviceInFocus). Drawing attention twice had advice placed past the
// first sentence reach a skimmer at attention² × weight, a fifth of them,
// fewer than a reader who looked at the tool it was calling would heed.
func (a *agent) heeds(ti int, k adviceKind, ad *advice) bool {
	return a.decided(ti, k, a.heedWeight(k, ad))
}

// decided draws, once per episode, tool and kind, a decision that holds
// with probability p, and keeps it: an agent that passed a key on the
// first attempt passes it on the retry too.
func (a *agent) decided(ti int, k adviceKind, p float64) bool {
	for i := 0; i < a.nHeard; i++ {
		if h := a.heard[i]; int(h.tool) == ti && h.kind == k {
			return h.yes
		}
	}
	yes := a.dice.advice.float() < p
	// Eight decisions cover an episode (a few tools, a few kinds of
	// advice each, within patience); past them an agent decides afresh.
	if a.nHeard < len(a.heard) {
		a.heard[a.nHeard] = heard{tool: int32(ti), kind: k, yes: yes}
		a.nHeard++
	}
	return yes
}

// advisedKey: the agent, whose policy passes no keys, passes one because
// the text said to.
func (a *agent) advisedKey(ti int) bool {
	if a.tr.Retry.IgnoreKeyAdvice {
		return false
	}
	ad := a.adviceInFocus(ti)
	if !ad.says(adviceKey) || !a.heeds(ti, adviceKey, ad) {
		return false
	}
	a.explain("passes " + ad.keyParam + ": " + a.saidBy(ad, adviceKey) + " says to")
	return true
}

// keyPassed: the call carried an idempotency key.
func (a *agent) keyPassed(t *engine.Tool, ti int, args map[string]any) bool {
	if _, ok := args[t.Idempotency]; ok && t.Idempotency != "" {
		return true
	}
	if kp := a.adviceInFocus(ti).keyParam; kp != "" {
		_, ok := args[kp]
		return ok
	}
	return false
}

// wantsVersion: the agent, which would not have passed an expected
// version, passes one (reading the record first) because the text said to.
func (a *agent) wantsVersion(ti int) bool {
	if a.verify && a.tr.Caution >= cautionThreshold {
		return false // it passes one anyway
	}
	ad := a.adviceInFocus(ti)
	return ad.says(adviceVersion) && a.heeds(ti, adviceVersion, ad)
}

// safeToRetry: a persona that would not retry retries a transient failure
// once, because the text said a retry is safe.
func (a *agent) safeToRetry(ti, attempts int) bool {
	ad := a.adviceInFocus(ti)
	if attempts >= 2 || !ad.says(adviceSafe) || !a.heeds(ti, adviceSafe, ad) {
		return false
	}
	a.explainLast("retries once: " + a.saidBy(ad, adviceSafe) + " says a retry is safe")
	return true
}

// waitsRetryAfter: an agent that ignores retry-after waits it out because
// the text said to.
func (a *agent) waitsRetryAfter(ti int) bool {
	ad := a.adviceInFocus(ti)
	if !ad.says(adviceWait) || !a.heeds(ti, adviceWait, ad) {
		return false
	}
	a.explainLast("waits out the retry-after: " + a.saidBy(ad, adviceWait) + " says to")
	return true
}

// toldNotToRetry: the text says not to retry after this error.
func (a *agent) toldNotToRetry(ti int, code string) bool {
	ad := a.adviceInFocus(ti)
	if !ad.noRetryAfter(code) || !a.heeds(ti, adviceNoRetry, ad) {
		return false
	}
	a.explainLast("does not retry: " + a.saidBy(ad, adviceNoRetry) + " says not to")
	return true
}

// guardsTimeout: after a write timed out, the agent (which would have
// retried blind) reads back first, or does not retry, because the text
// said a retry may repeat the write or to check first. A key passed makes
// a retry safe, so then it does not.
func (a *agent) guardsTimeout(t *engine.Tool, ti int, args map[string]any) bool {
	ad := a.adviceInFocus(ti)
	return ad.says(adviceGuard) && !a.keyPassed(t, ti, args) && a.heeds(ti, adviceGuard, ad)
}

// readBackTool is the tool the agent reads back with after a guarded
// timeout: the one the text named, else the record's get tool; -1 when it
// has none or no record to read.
func (a *agent) readBackTool(ti int, target *resolved) int {
	if target == nil {
		return -1
	}
	if rw := a.adviceInFocus(ti).readWith; rw >= 0 {
		return rw
	}
	return a.m.getTool[a.m.types[target.rt]]
}

// redirectAfter reads a business error from tool ti: when its message
// names or describes the tool to use (read with probability attention), or
// the tool's text names a tool to use first (heeded with probability
// attention × caution), the agent's next choice is that tool — first, then
// ti again, or instead of ti. True when it redirected.
func (a *agent) redirectAfter(ti int, e *engine.ToolError) bool {
	name := a.m.world.Tools
	if r := a.m.readMessage(ti, e, a.c.level); r.tool >= 0 && a.fresh(r.tool) && a.readsMessages() {
		a.redirect = r.tool
		how := "instead"
		if r.first {
			a.resume = ti
			how = "first, then " + name[ti].Name + " again"
		}
		a.explainLast("read the message: it points to " + name[r.tool].Name + "; trying it " + how)
		return true
	}
	ad := a.adviceInFocus(ti)
	if ad.says(adviceFirst) && a.fresh(ad.first) && a.heeds(ti, adviceFirst, ad) {
		a.redirect, a.resume = ad.first, ti
		a.explainLast(a.saidBy(ad, adviceFirst) + " says to use " + name[ad.first].Name + " first; doing that, then " + name[ti].Name + " again")
		return true
	}
	return false
}

// readsMessages reports whether the agent reads an error message it could
// act on. An error message is short and addressed to the caller: a reader
// of first sentences reads its first sentences (readMessage gives it no
// more), a full reader all of it; one that reads tool names only reads it
// with probability attention.
func (a *agent) readsMessages() bool {
	if a.c.level >= seeLead {
		return true
	}
	return a.dice.advice.float() < a.tr.Attention
}

// fresh: the tool was not tried for this action and did no earlier one.
func (a *agent) fresh(ti int) bool {
	return ti >= 0 && !slices.Contains(a.tried.list(), ti) && !slices.Contains(a.done.list(), ti)
}

// takeRedirect is the tool an error sent the agent to, once.
func (a *agent) takeRedirect() (int, bool) {
	if a.redirect < 0 {
		return -1, false
	}
	ti := a.redirect
	a.redirect = -1
	return ti, true
}

func (a *agent) saidBy(ad *advice, k adviceKind) string {
	return a.m.world.Tools[ad.from[k]].Name + "'s description"
}

// explain notes, on the next call's step, why the agent called as it did.
func (a *agent) explain(why string) {
	if a.trace != nil {
		a.pendingRead = joinRead(a.pendingRead, why)
	}
}

// explainLast notes, on the last call's step, what the agent made of its
// result.
func (a *agent) explainLast(why string) {
	if a.trace == nil {
		return
	}
	for i := len(a.trace.Steps) - 1; i >= 0; i-- {
		if st := &a.trace.Steps[i]; st.Tool != "" {
			st.Read = joinRead(st.Read, why)
			return
		}
	}
}

func joinRead(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// heedWeight is how readily the agent follows advice of kind k it read.
func (a *agent) heedWeight(k adviceKind, ad *advice) float64 {
	switch k {
	case adviceKey, adviceVersion, adviceFirst, adviceWait:
		return max(a.tr.Caution, a.tr.Literalness)
	case adviceGuard:
		if ad.readBack {
			return max(a.tr.Caution, a.tr.Literalness) // "list the runs before you retry"
		}
	}
	return a.tr.Caution
}
