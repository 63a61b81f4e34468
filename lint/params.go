package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// paramNeed is what a parameter's description must say beyond existing.
type paramNeed int

const (
	needNothing    paramNeed = iota
	needMoneyUnit            // amount, price, total: cents or whole units?
	needTimeUnit             // timeout, delay, ttl: seconds or milliseconds?
	needIDFormat             // id: what one looks like, or where to get it
	needDateFormat           // date, created_at: which format
	needEmail                // email: that it is an address
)

var (
	moneyWords   = setOf("amount", "price", "total", "cost", "fee", "balance", "subtotal", "tax", "tip", "discount", "payout", "refund", "charge")
	timeWords    = setOf("timeout", "delay", "duration", "ttl", "interval", "wait", "expiry", "expires", "backoff", "age", "period", "retry")
	timeSuffixes = setOf("ms", "s", "sec", "secs", "seconds", "minutes", "mins", "hours", "days", "millis", "milliseconds")
	dateWords    = setOf("date", "time", "timestamp", "at", "since", "until", "deadline", "due", "birthday", "day", "when")

	moneyUnitCue  = cues("cents", "cent", "minor unit", "minor units", "smallest currency unit", "dollars", "dollar", "usd", "eur", "euros", "gbp", "currency", "pennies", "whole units", "major units")
	timeUnitCue   = cues("seconds", "second", "secs", "sec", "ms", "milliseconds", "millisecond", "minutes", "minute", "mins", "hours", "hour", "days", "day")
	idFormatCue   = cues("e.g.", "eg", "for example", "such as", "uuid", "ulid", "returned by", "format", "prefix", "starts with", "looks like")
	dateFormatCue = cues("rfc 3339", "rfc3339", "iso 8601", "iso8601", "yyyy", "unix", "epoch", "seconds since")
	emailCue      = cues("email", "e-mail", "address")
	idExampleRE   = regexp.MustCompile(`\b[a-z]{1,6}_(?:[0-9a-z]*[0-9][0-9a-z]*|\.\.\.|…)`)
	dateExampleRE = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}`)
)

func needOf(p Param) paramNeed {
	parts := nameParts(p.Name)
	numeric := p.Type == "int" || p.Type == "float" || p.Type == "integer" || p.Type == "number"
	text := p.Type == "str" || p.Type == "string" || p.Type == ""
	has := func(set map[string]bool) bool {
		for _, w := range parts {
			if set[w] || set[singular(w)] {
				return true
			}
		}
		return false
	}
	switch {
	case numeric && has(moneyWords):
		return needMoneyUnit
	case numeric && has(timeWords) && !timeSuffixes[parts[len(parts)-1]]:
		return needTimeUnit
	case text && isIDParam(p):
		return needIDFormat
	case text && has(setOf("email")):
		return needEmail
	case text && has(dateWords):
		return needDateFormat
	}
	return needNothing
}

// satisfied reports whether the description says what the need asks for.
func (ts *toolSet) satisfied(t *Tool, p Param, need paramNeed) bool {
	d := p.Description
	switch need {
	case needMoneyUnit:
		return moneyUnitCue.in(d) || strings.Contains(d, "$")
	case needTimeUnit:
		return timeUnitCue.in(d)
	case needIDFormat:
		if idFormatCue.in(d) || idExampleRE.MatchString(d) || t.IDPrefix != "" && strings.Contains(d, t.IDPrefix) {
			return true
		}
		// Naming the tool that returns the id tells the agent where to get it.
		for _, w := range words(d) {
			if _, ok := ts.byName[w]; ok && w != t.Name {
				return true
			}
		}
		return false
	case needDateFormat:
		return dateFormatCue.in(d) || dateExampleRE.MatchString(d)
	case needEmail:
		return emailCue.in(d) || strings.Contains(d, "@")
	}
	return true
}

// checkParams asks: is every parameter described, with units for amounts
// and durations, and formats for ids, emails and dates?
func checkParams(ts *toolSet, t *Tool) (float64, []Finding) {
	if len(t.Params) == 0 {
		return 100, nil
	}
	var undocumented []Param
	missing := map[paramNeed][]Param{}
	total := 0.0
	for _, p := range t.Params {
		d := strings.TrimSpace(p.Description)
		if d == "" || placeholders[strings.Trim(strings.ToLower(d), ".!: ")] {
			undocumented = append(undocumented, p)
			continue
		}
		need := needOf(p)
		if ts.satisfied(t, p, need) {
			total += 100
			continue
		}
		missing[need] = append(missing[need], p)
		switch need {
		case needMoneyUnit, needTimeUnit:
			total += 50
		case needDateFormat:
			total += 60
		default:
			total += 80
		}
	}
	var fs []Finding
	if len(undocumented) > 0 {
		examples := make([]string, 0, len(undocumented))
		for _, p := range undocumented {
			examples = append(examples, fmt.Sprintf("%s: %s", p.Name, paramExample(ts, t, p)))
		}
		fs = append(fs, ts.finding(t, DimParams, LevelWarning,
			fmt.Sprintf("%s %s no description: agents guess what to pass", paramWord(undocumented), haveHas(undocumented)),
			"Describe each: '"+strings.Join(examples, "'; '")+"'"))
	}
	for _, need := range []paramNeed{needMoneyUnit, needTimeUnit, needDateFormat, needIDFormat, needEmail} {
		ps := missing[need]
		if len(ps) == 0 {
			continue
		}
		level, what := LevelWarning, ""
		switch need {
		case needMoneyUnit:
			what = "does not say the unit (cents or whole units?)"
		case needTimeUnit:
			what = "does not say the unit (seconds or milliseconds?)"
		case needDateFormat:
			what = "does not say the date format"
		case needIDFormat:
			level, what = LevelInfo, "does not say what an id looks like or where to get one"
		case needEmail:
			level, what = LevelInfo, "does not say it is an email address"
		}
		examples := make([]string, 0, len(ps))
		for _, p := range ps {
			examples = append(examples, fmt.Sprintf("%s: %s", p.Name, paramExample(ts, t, p)))
		}
		if len(ps) > 1 {
			what = strings.Replace(what, "does not", "do not", 1)
		}
		fs = append(fs, ts.finding(t, DimParams, level,
			fmt.Sprintf("%s %s", paramWord(ps), what),
			"Write: '"+strings.Join(examples, "'; '")+"'"))
	}
	return total / float64(len(t.Params)), fs
}

// paramExample writes a description for a param from its name and type.
func paramExample(ts *toolSet, t *Tool, p Param) string {
	rec := recordWords(t)
	switch needOf(p) {
	case needMoneyUnit:
		return "Amount in cents, e.g. 1999 for $19.99."
	case needTimeUnit:
		return "How long, in seconds."
	case needDateFormat:
		return "RFC 3339 timestamp, e.g. 2026-01-31T09:00:00Z."
	case needEmail:
		return "Email address, e.g. ada@example.com."
	case needIDFormat:
		ref := rec
		if p.Name != "id" {
			ref = strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(p.Name, "_id"), "Id"), "_", " ")
		}
		ex := upperFirst(ref) + " id"
		if t.IDPrefix != "" && p.Name == "id" {
			ex += ", e.g. " + t.IDPrefix + "0042"
		}
		if f := finder(ts, t, ref); f != "" {
			ex += " (from " + f + ")"
		}
		return ex + "."
	}
	switch {
	case len(p.Values) > 0:
		return "One of " + strings.Join(p.Values, ", ") + "."
	case p.Type == "bool" || p.Type == "boolean":
		return "When true, " + strings.ReplaceAll(p.Name, "_", " ") + "."
	case slices.Contains(t.Fields, p.Name) && t.kind() == "update":
		return fmt.Sprintf("The %s's new %s.", rec, strings.ReplaceAll(p.Name, "_", " "))
	case slices.Contains(t.Fields, p.Name):
		return fmt.Sprintf("The %s's %s.", rec, strings.ReplaceAll(p.Name, "_", " "))
	}
	return fmt.Sprintf("What %s is, its format and an example.", p.Name)
}

// finder is a read tool that lists records of the given type: where an
// agent gets an id it does not know. A search tool is preferred, since
// agents usually know a name.
func finder(ts *toolSet, t *Tool, rec string) string {
	rec = strings.ReplaceAll(rec, " ", "_")
	for _, group := range [][]*Tool{ts.searchers[rec], ts.listers[rec]} {
		for _, u := range group {
			if u != t {
				return u.Name
			}
		}
	}
	return ""
}

func paramWord(ps []Param) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	if len(ps) == 1 {
		return "param " + names[0]
	}
	return "params " + humanList(names, "and")
}

func haveHas(ps []Param) string {
	if len(ps) == 1 {
		return "has"
	}
	return "have"
}
