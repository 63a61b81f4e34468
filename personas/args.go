package personas

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/herd-sh/herd/engine"
)

// Arguments are filled the way a reader fills a form: a parameter takes
// what the agent knows when their names match (knows new_email fills
// email), the key takes the id the agent resolved, an expected-version
// parameter echoes the version the agent read, and an agent that does not
// read parameter docs treats an update as "send the whole record back",
// copying every field from its last read — the habit that loses a
// colleague's newer edit.

// fillsFor decides, once per goal and tool, which knows key fills which
// parameter; full is whether the reader sees parameter descriptions.
func fillsFor(t *engine.Tool, g *engine.Goal, full bool) []fill {
	out := make([]fill, len(t.Params))
	for i, p := range t.Params {
		if p.Name == t.Key || p.Name == t.Idempotency {
			continue
		}
		if f := versionFieldOf(t, p); f != nil {
			out[i].version = f
			continue
		}
		best, bestScore := "", 0
		for _, k := range g.KnowsKeys {
			if k == "id" {
				continue // an id fills the key, nothing else
			}
			if s := knowsMatch(k, p, full); s > bestScore {
				best, bestScore = k, s
			}
		}
		out[i].known = best
		if best == "" && p.Required && t.Kind == engine.KindCreate && g.Target != nil {
			switch {
			case p.Field != nil && p.Field.Type == engine.FieldRef && p.Field.Ref == g.Target:
				out[i].copiedID = true
			case p.Field != nil && t.Record == g.Target:
				out[i].copied = p.Field
			default:
				out[i].copied = g.Target.Field(p.Name)
			}
		}
	}
	return out
}

// knowsMatch scores how well a knows key names a parameter: the same name
// (3), one name's words inside the other's (2: new_email → email,
// party_given → party_size), or, for
// a parameter that is no record field, the key's words in its description
// (1, only when the reader sees descriptions).
func knowsMatch(k string, p *engine.Param, full bool) int {
	if k == p.Name {
		return 3
	}
	// A key's words that say nothing of the value ("given", "new") are
	// left out: party_given names party_size as new_email names email.
	kw := stems(strings.ReplaceAll(k, "_", " "))
	if said := slices.DeleteFunc(slices.Clone(kw), func(w string) bool { return placeholderNoise[w] }); len(said) > 0 {
		kw = said // value_given keeps "value": it names the value parameter
	}
	pw := stems(strings.ReplaceAll(p.Name, "_", " "))
	if len(kw) > 0 && len(pw) > 0 && (subset(pw, kw) || subset(kw, pw)) {
		return 2
	}
	if full && p.Field == nil && len(kw) > 0 && subset(kw, stems(p.Description)) {
		return 1
	}
	return 0
}

// subset reports whether every word of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// versionFieldOf returns the record field an expected-version parameter
// echoes (expected_version → version), nil for any other parameter.
func versionFieldOf(t *engine.Tool, p *engine.Param) *engine.Field {
	if t.Record == nil || p.Field != nil || (p.Type != engine.ParamInt && p.Type != engine.ParamStr) {
		return nil
	}
	for _, w := range strings.Split(p.Name, "_") {
		if w != "version" && w != "etag" && w != "revision" {
			continue
		}
		if f := t.Record.Field(w); f != nil {
			return f
		}
	}
	return nil
}

// queryNames are parameter names a reader takes for free-text search.
var queryNames = setOf("query", "q", "search", "text", "term", "terms", "keyword", "keywords", "filter", "contains", "match")

// limitNames are parameter names a reader takes for a page size.
var limitNames = setOf("limit", "max", "max_results", "page_size", "per_page", "size", "count", "top")

// isQueryParam: a free-text parameter that is no record field.
func isQueryParam(p *engine.Param) bool {
	return p.Type == engine.ParamStr && p.Field == nil && queryNames[p.Name]
}

func isLimitParam(p *engine.Param) bool {
	return p.Type == engine.ParamInt && p.Field == nil && limitNames[p.Name]
}

// listArgs fills a list tool: the query (full or shortened), an equality
// filter on the looked-up field, and — for a reader of parameter docs —
// the largest page.
func (a *agent) listArgs(t *engine.Tool) map[string]any {
	args := make(map[string]any, 2)
	for _, p := range t.Params {
		switch {
		case a.query != "" && (isQueryParam(p) || p == t.SearchParam()):
			q := a.query
			if a.shortQuery {
				q = shortForm(q)
			}
			args[p.Name] = q
		case a.query != "" && a.queryField != nil && p.Field == a.queryField:
			args[p.Name] = a.query
		case isLimitParam(p) && a.c.level == seeEverything && p.Max != nil:
			args[p.Name] = int64(*p.Max)
		}
	}
	return args
}

// shortForm is what a hurried searcher types: the last word ("Smith"
// for "Jon Smith").
func shortForm(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, ' '); i >= 0 && i+1 < len(s) {
		return s[i+1:]
	}
	return s
}

// actArgs fills a tool that is not a list.
func (a *agent) actArgs(ti int, t *engine.Tool, target *resolved) map[string]any {
	args := make(map[string]any, len(t.Params))
	bucket := 0
	if a.c.level == seeEverything {
		bucket = 1
	}
	fills := a.gv.fills[ti][bucket]
	wholeRecord := a.wholeRecord && t.Kind == engine.KindUpdate
	for i, p := range t.Params {
		f := fills[i]
		switch {
		case p.Name == t.Key && t.Key != "":
			if target != nil {
				args[p.Name] = target.id
			}
		case p.Name == t.Idempotency || p.Name == a.adviceInFocus(ti).keyParam:
			if a.tr.Retry.IdempotencyKeys && !a.slipping || a.advisedKey(ti) {
				args[p.Name] = a.idempotencyKey()
			}
		case f.version != nil:
			own := a.verify && a.tr.Caution >= cautionThreshold
			if (own || a.wantsVersion(ti)) && target != nil && target.rec != nil {
				if v := target.rec.Get(f.version.Name); v != nil {
					args[p.Name] = v
					if !own {
						a.explain("passes " + p.Name + ": " + a.saidBy(a.adviceInFocus(ti), adviceVersion) + " says to")
					}
				}
			}
		case f.known != "":
			if v, ok := a.at.Knows[f.known]; ok && knownFits(p, v) {
				args[p.Name] = jsonArg(v)
			}
		case f.copiedID && a.base != nil:
			args[p.Name] = a.base.id
		case f.copied != nil && a.base != nil && a.base.rec != nil:
			if v := a.base.rec.Get(f.copied.Name); v != nil && knownFits(p, jsonArg(v)) {
				args[p.Name] = jsonArg(v)
			}
		case wholeRecord && p.Field != nil && target != nil && target.rec != nil:
			if v := target.rec.Get(p.Field.Name); v != nil {
				if _, isTime := v.(time.Time); !isTime {
					args[p.Name] = v
				}
			}
		}
	}
	return args
}

// jsonArg turns a known value into what a JSON client would send.
func jsonArg(v any) any {
	if t, ok := v.(time.Time); ok {
		return t.UTC().Format(time.RFC3339)
	}
	return v
}

func (a *agent) idempotencyKey() string {
	if a.idemKey == "" || a.idemAction != a.action {
		a.idemKey = fmt.Sprintf("herd-%016x-%d", a.seed, a.action)
		a.idemAction = a.action
	}
	return a.idemKey
}

// Hostile arguments: what an adversarial client sends. Some the engine
// refuses (invalid_argument); boundary values it does not bound slip
// through, which is what a hostile test is for.
const (
	hostileWrongType = "wrong type"
	hostileEmpty     = "empty string"
	hostileHuge      = "huge number"
	hostileNegative  = "negative number"
	hostileExtra     = "unknown argument"
	hostileMissing   = "missing required"
)

var hostileKinds = [...]string{hostileWrongType, hostileEmpty, hostileHuge, hostileNegative, hostileExtra, hostileMissing}

// hostileExtraName is an argument no tool declares.
const hostileExtraName = "x_debug_override"

// mutate spoils args in one way chosen by the agent's dice and says how.
func (a *agent) mutate(t *engine.Tool, args map[string]any) string {
	applies := func(kind string, p *engine.Param) bool {
		switch kind {
		case hostileWrongType:
			return true
		case hostileEmpty:
			return p.Type == engine.ParamStr
		case hostileHuge, hostileNegative:
			return p.Type == engine.ParamInt || p.Type == engine.ParamFloat
		case hostileMissing:
			_, present := args[p.Name]
			return p.Required && present
		}
		return false
	}
	var kinds [len(hostileKinds)]string
	n := 0
	for _, k := range hostileKinds {
		if k == hostileExtra {
			kinds[n] = k
			n++
			continue
		}
		for _, p := range t.Params {
			if applies(k, p) {
				kinds[n] = k
				n++
				break
			}
		}
	}
	kind := kinds[a.dice.args.intn(n)]
	if kind == hostileExtra {
		args[hostileExtraName] = true
		return kind
	}
	count := 0
	for _, p := range t.Params {
		if applies(kind, p) {
			count++
		}
	}
	pick := a.dice.args.intn(count)
	for _, p := range t.Params {
		if !applies(kind, p) {
			continue
		}
		if pick > 0 {
			pick--
			continue
		}
		switch kind {
		case hostileWrongType:
			switch p.Type {
			case engine.ParamStr, engine.ParamEnum:
				args[p.Name] = float64(12345)
			case engine.ParamBool:
				args[p.Name] = "yes"
			default:
				args[p.Name] = "lots"
			}
		case hostileEmpty:
			args[p.Name] = ""
		case hostileHuge:
			args[p.Name] = 1e18
		case hostileNegative:
			var neg any = float64(-1)
			switch v := args[p.Name].(type) {
			case int64:
				if v > 0 {
					neg = -v
				}
			case float64:
				if v > 0 {
					neg = -v
				}
			}
			args[p.Name] = neg
		case hostileMissing:
			delete(args, p.Name)
		}
		break
	}
	return kind
}

// knownFits: a known value can go in the parameter its name matched. One
// that is none of an enum's values is not that parameter's ("instance
// db-0034" is no instance_class): the schema lists what it takes.
func knownFits(p *engine.Param, v any) bool {
	return p.Type != engine.ParamEnum || slices.Contains(p.Values, fmt.Sprint(v))
}
