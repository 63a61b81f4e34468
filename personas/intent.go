package personas

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
)

// A goal's intent is read as one or more actions: "Return the lamp I
// ordered and refund me" asks for a return, then a refund. Each action is
// an action word (its verb, which gates everything else) and context words
// (every other content word of the intent); constraints (keep, once…) hold
// for all of them.

// intentWord is one context word of a goal's intent with its weight.
type intentWord struct {
	stem   string
	weight float64
	// kept: the goal says to keep this ("but keep their account and
	// grades"): a tool that destroys what it names does the opposite of
	// what the user asked for it, however well the word matches.
	kept bool
	// keptOnly: the goal names it only as a thing to keep ("keep the
	// signed forms on file"), nowhere else; it is no part of the goal's
	// situation.
	keptOnly bool
}

// intent is one action an agent matches tools against.
type intent struct {
	verb     string       // the action asked for (a key: "delet", "call off")
	senses   []verbSense  // other actions the goal's wording says it asks for, each at its weight
	words    []intentWord // context words, the verb excluded
	total    float64      // the context words' weight
	reads    bool         // the verb only asks to look something up
	preserve bool         // keep, preserve, history, without, not…: loss cues matter
	repeat   bool         // once, only…: repeat cues matter
	later    bool         // "end it then", "at the end of the period": a tool that acts at once acts too early
	// lasting: the goal asks for the action to last ("get rid of it for
	// good", "revoke it permanently"): that a tool's action lasts is no
	// warning to it.
	lasting   bool
	whileOnly bool // "for now", "so it works again": a tool that warns its action lasts or loses does it for good
	// otherObject, per tool (nil: none), says the tool acts on another
	// record type than the goal's, one the goal does not name: it does
	// the action to the wrong thing.
	otherObject []bool
	// erasesKept, per tool (nil: none), says the goal keeps its target
	// ("keep it on file") and the tool deletes records of its type.
	erasesKept []bool
	// manner are the stems of the goal's -ly adverbs ("privately",
	// "permanently"): how it wants the action done.
	manner []string
	// otherTypes are the stems of the names of the world's record types
	// other than the goal's target (all of them for a goal with no
	// target, whose records do not exist yet): what "an existing booking"
	// in a redirect's purpose names when the purpose is not about this
	// goal.
	otherTypes []string
	// forbids are the actions the goal says must not happen ("make sure
	// nobody books new lessons with her", "don't delete it"), the goal's
	// own verb and senses aside: a tool whose name does one of them does
	// what the user ruled out.
	forbids []string
}

var preserveWords = stemSet("keep", "preserve", "history", "without", "not", "retain", "intact", "later", "again", "previous",
	"alone", "unchanged", "untouched", "recoverable", "reversible", "safe", "undo", "recovery", "recover")

// getBack says the goal wants to be able to undo: "so we can get it back".
var getBack = regexp.MustCompile(`(?i)\b(?:get|bring|have|need|want)\s+(?:it|them|this|that)\s+back\b`)

// giveAccess is access or a permission given: a grant.
var giveAccess = regexp.MustCompile(`(?i)\bgive\s+((?:[\pL'’-]+\s+){0,3}?)((?:(?:read|write|admin|edit|view|full)[\s-]+)?(?:access|permissions?|rights))\b`)

// getSomeone is "get X a table", "get me a new card", "get one new phone
// line": to obtain a thing
// (for someone), which is to create it, not to look it up; "get me a list
// of …" and its kin stay reads (infoNouns).
var getSomeone = regexp.MustCompile(`(?i)\bget\s+(?:(?:me|us|him|her|them|\x{E000})\s+)?((?:an?|one|another)\s+(?:new\s+)?(?:\x{E000}\s+)?(\pL+))`)

// infoNouns are what "get a …" reads rather than makes.
var infoNouns = setOf("list", "copy", "summary", "report", "count", "overview", "look", "view", "sense", "picture", "breakdown", "record", "log")

// giveMore is "give it more …".
var giveMore = regexp.MustCompile(`(?i)\bgive\s+((?:it|them|him|her|the\s+[\pL-]+)\s+)more\s+(\pL+)`)

var timeWords = setOf("time", "days", "weeks", "months", "hours", "minutes", "years")

// shouldBe says what a value should be: "it should be {{phone}}", "the
// address is wrong". With no other action, it asks for an update.
var shouldBe = regexp.MustCompile(`(?i)\b(?:should|must|needs?\s+to|has\s+to)\s+(?:be|read|say)\s+(?:\x{E000}|changed|updated|set|corrected)|\bis\s+(?:wrong|incorrect|out\s+of\s+date|outdated)\b`)

// paidBack is money given back: a refund, "give them back what they paid".
var paidBack = regexp.MustCompile(`(?i)\bgive\s+((?:[\pL'’]+\s+){0,2})back\s+(?:what\s+(?:they|he|she|you|we)\s+(?:paid|spent)|(?:the|their|his|her|your)\s+(?:money|payment|fee|fare|charge)s?)`)

// moneyBack is someone getting money back: "she should get that money back
// on her card" asks for a refund.
var moneyBack = regexp.MustCompile(`(?i)^(.*?)\b(?:should|must|needs?\s+to|has\s+to|to)\s+get\s+(?:that|the|their|his|her|your|our|this)\s+(?:money|payment|fee|fare|charge|refund)s?\s+back\b`)

// embeddedRequest is a statement's report of a request: what follows it
// is asked for ("the employee asked us to take it back").
var embeddedRequest = regexp.MustCompile(`(?i)\b(?:asked|asks|want|wants|wanted|needs|needed|would like|(?:'|’)d like|told|begged|requested)\s+(?:us|me|you|them|him|her)?\s*to\s+`)

// negatedBefore ends in a negation, or in an "or" inside one: "she
// doesn't want to pay twice", "she shouldn't be booked in or asked to
// come" report no request.
var negatedBefore = regexp.MustCompile(`(?i)(?:\b(?:not|never|no\s+longer)|n[’']t)\s*$|(?:\b(?:not|never)|n[’']t)\s[^,;:.]*?\bor\s*$|^\s*(?:but\s+|so\s+)?(?:nobody|no\s+one|no-one)\b`)

// modalStatement is a clause that opens with a modal: its subject is an
// earlier clause's ("we are freezing releases and will turn it back on in
// January"), and it says what will or may happen, not what to do now.
// "Could you …" and "Can you …" are requests, which politeFrame strips
// first.
var modalStatement = regexp.MustCompile(`^(?i)\s*(?:will|would|shall|may|might|could|can|should|must|won't|wouldn't)\s+\pL`)

// keepClause asks to keep what the action leaves: "keep it, we may need
// it again", "but keep the bucket itself". Like leaveAlone, a constraint
// (keep data), not an action of its own.
var keepClause = regexp.MustCompile(`^(?i)\s*(?:but\s+|and\s+)?(?:please\s+)?(?:keep|keeping|retain|retaining|preserve|preserving|(?:hang|hold)\s+on\s*to)\s+(?:it|them|this|that|these|those|its|their|his|her|the|everything|all|both|a|an|some|any|one|track)\b`)

// laterInstead is a verb whose object is a later one of the same thing,
// "instead": "run next year's race on it instead of this one", "take the
// following term's course instead". The verb is the thing done; the
// request is to move it later.
var laterInstead = regexp.MustCompile(`(?i)(^\s*(?:and\s+|but\s+)?(?:please\s+)?(?:(?:she|he|they|we|i)(?:'d|\s+would|\s+wants?\s+to|\s+needs?\s+to)\s+(?:like\s+to\s+)?)?)\pL+\s+(?:(?:it|them|him|her)\s+)?(?:(?:on|in|onto|into|at|for)\s+)?((?:next|the\s+next|the\s+following|a\s+later|the\s+later)\s+[^,;]{1,40}?)\s+instead\b(?:\s+of\s+(?:this|the|today's|this\s+year's)\b[^,;]*)?`)

// carryOnWith is a clause that says somebody goes on with what they have
// ("when she's back she wants to carry on with the same membership", "she
// wants to stay on our recall list"): what to keep, no action.
var carryOnWith = regexp.MustCompile(`(?i)\b(?:carry|carries|go|goes)\s+on\s+with\s+(?:the\s+same|(?:her|his|their|its|our|your)\s+(?:same|own|old|existing|current)?)\b|\b(?:continue|continues|stay|stays)\s+(?:on\s+)?with\s+the\s+same\b|(?:^\s*|\b(?:wants?|would\s+like|needs?|hopes?)\s+to\s+)(?:stay|remain)\s+(?:on|in)\s+(?:our|the|her|his|their|its|your)\b`)

// baseForm reports whether a clause's first word can be an imperative
// verb: the imperative is the verb's base form, so a first word in -s
// ("settings", "pods", "runs") or -ing ("closing") is a noun, a third
// person or a gerund — except words whose base form ends so ("press",
// "focus", "bring").
func baseForm(clause string) bool {
	ws := splitWords(clause)
	if len(ws) == 0 {
		return true
	}
	w := strings.ToLower(ws[0])
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ing") && !baseIng[w]:
		return false
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return false
	case len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") && !baseEd[w]:
		// "… has frozen and stopped sending data": a past tense goes on
		// with the statement's subject.
		return false
	}
	return true
}

// baseEd are verbs whose base form ends in -ed (besides -eed: need, proceed).
var baseEd = setOf("embed", "shred", "unshred")

// baseIng are verbs whose base form ends in -ing.
var baseIng = setOf("bring", "sing", "ring", "sting", "swing", "string", "wring", "fling", "cling", "sling", "ping", "ding")

// andThen is a clause break that joins two clauses of one subject.
var andThen = regexp.MustCompile(`(?i)\b(?:and|then)\b`)

// ruledOut opens the alternative a goal rules out: ", not a …", "rather
// than …", "instead of …", "as opposed to …".
var ruledOut = regexp.MustCompile(`(?i),\s*(?:but\s+|and\s+)?not\s+(?:a|an|the|any|some)\b|\b(?:rather\s+than|instead\s+of|as\s+opposed\s+to)\b`)

// magnitudeTo is a particle followed by the value to reach: "down to
// {{knows.n}} pods", "up to 500", "down to zero".
var magnitudeTo = regexp.MustCompile(`(?i)\b(?:down|up)\s+to\s+(?:(?:a|an|the)\s+(?:\x{E000}|\{\{)|\x{E000}|\{\{|\d|zero\b|one\b|two\b|three\b|half\b|a\s+(?:single|couple|few)\b)`)

// prohibition is a clause that says nobody may do a thing: like "make sure
// nobody …", it asks to block that ("nobody may work on that site until
// our inspector has been out").
var prohibition = regexp.MustCompile(`^(?i)\s*(?:but\s+|so\s+)?(?:nobody|no\s+one|no-one|nothing|no\s+\pL+)\s+(?:may|can|must|should|is\s+to|are\s+to|gets?\s+to)\s+\pL`)

// personBarred is a person who must not do a thing, anywhere in a clause:
// "until the doctor clears her she mustn't fly anything" asks to keep her
// from it. What must not happen to her ("she mustn't be charged twice",
// "she mustn't get two passes") is a constraint, and "she can't review
// this one" a reason.
var personBarred = regexp.MustCompile(`(?i)\b(?:she|he|they)\s+(?:mustn[’']t|must\s+not|shouldn[’']t|should\s+not|is\s+not\s+to|isn[’']t\s+to)\s+(\pL+)`)

// ensureFrame opens a request for a state of affairs: "make sure …",
// "ensure that …", "see to it that …".
var ensureFrame = regexp.MustCompile(`^(?i)\s*(?:make\s+sure|make\s+certain|ensure|see\s+to\s+it)\s+(?:that\s+)?`)

// negatedClause says something is not to happen: "no new pods get
// scheduled", "nobody can sign in", "it is not billed again".
var negatedClause = regexp.MustCompile(`(?i)^(?:no|nobody|nothing|none|no\s+one|neither)\b|\b(?:not|never|no\s+longer|cannot|can't|won't|isn't|aren't|doesn't|don't)\b`)

// leaveAlone is a clause that asks to leave something as it is: a
// constraint on the action, not one of its own ("stick it to the top, and
// leave its wording alone").
var leaveAlone = regexp.MustCompile(`^(?i)\s*(?:but\s+|and\s+)?(?:please\s+)?(?:leave|let|keep)\b.{0,60}?\b(?:alone|as is|as it is|as they are|unchanged|untouched|intact)\b`)

// leaveAsItStands is a clause that asks to leave a thing where or as it is,
// which is to keep it: "but leave the gift showing in their history", "leave
// the account open", "leave them on file". Not "leave a note" (an action,
// with no thing already there) nor "leave it to me".
var leaveAsItStands = regexp.MustCompile(`^(?i)\s*(?:but\s+|and\s+)?(?:please\s+)?(?:leave|leaving)\s+((?:it|them|this|that|these|those|the|their|its|his|her|our|your)\b.{0,50}?\b(?:showing|shown|visible|listed|in\s+place|where\s+(?:it|they)\s+(?:is|are)|on\s+(?:file|record|the\s+books)|open|active|running|standing|live|up|in\s+(?:the|their|its|his|her|our|your)\s+\pL+)(?:\s+(?:in|on|at|under)\s+(?:the|their|its|his|her|our|your)\s+\pL+)?)`)

var repeatWords = stemSet("once", "only", "single", "exactly", "twice")

// constraintWords say how, not what: they weigh cues, they are not words
// to find in a tool's text ("again" in "we may need it again later" is not
// the "again" of "calling again creates two").
var constraintWords = stemSet("once", "only", "single", "exactly", "twice", "not", "never", "no", "without", "again",
	"later", "ever", "any", "more", "longer")

// readVerbs ask for information, not for a change.
var readVerbs = stemSet("find", "get", "list", "search", "look", "lookup", "show", "fetch", "read", "retrieve",
	"view", "check", "count", "see", "query", "inspect", "browse", "tell", "what", "which", "look up", "locate")

// lightVerbs carry no action of their own ("give me my money back").
var lightVerbs = stemSet("give", "take", "make", "do", "go", "let", "want", "need", "like", "help", "ask", "try",
	"request", "wish", "would", "ahead", "kindly")

// idiom is words a reader understands as one action, matched on stems.
type idiom struct {
	words []string
	as    string
	// also: what the idiom asks for in other contexts, as a sense of the
	// action ("take it back" returns an order, or withdraws a request).
	also []string
}

var idioms = []idiom{
	{stems("take back"), stem("return"), []string{key("withdraw")}},
	{stems("send back"), stem("return"), nil},
	{stems("bring back"), stem("return"), []string{key("restore")}}, // a deleted thing is brought back
	{stems("money back"), stem("refund"), nil},
	{stems("look up"), stem("find"), nil},
	{stems("get rid"), stem("delete"), nil},
	{stems("throw away"), stem("delete"), nil},
	{stems("more time"), stem("extend"), nil},                      // "give them more time"
	{stems("give back"), stem("return"), []string{stem("refund")}}, // "give them the money back"
	{stems("get back"), stem("restore"), []string{stem("return")}}, // "deleted by mistake: can you get it back?"
	{stems("open back up"), stem("reopen"), nil},
	// "Go back to the deploy before it": a rollback.
	{stems("go back"), key("roll back"), []string{stem("revert"), stem("restore")}},
	{stems("open back"), stem("reopen"), nil},
}

// clauseBreak separates the clauses of an intent: sentence ends, colons,
// dashes, and "and"/"then" between actions.
var clauseBreak = regexp.MustCompile(`(?i)[.!?;:—–]+|\s-\s|,?\s+(?:and then|and|then)\s+|,\s+(?:but|so)\s+|,\s+(?:(?:can|could|would|will)\s+you|please)\b`)

// commaStatement is a comma before a subject and its modal: "…, but don't
// lose it, HR will fix it and put it back up". The statement is a clause
// of its own (only the comma is a break).
var commaStatement = regexp.MustCompile(`(?i),\s+(?:[\pL'’-]+\s+){1,2}(?:will|would|should|can|could|may|might|must)\s`)

// commaKeeping is a comma before a participle that keeps: "put her in the
// other class instead, keeping her grades and attendance so far". What
// follows is a keep clause of its own (only the comma is a break).
var commaKeeping = regexp.MustCompile(`(?i),\s+(?:but\s+)?(?:keeping|retaining|preserving)\s`)

// parseIntent reads an intent (placeholders removed) into its actions, at
// least one. isAction tells action words: the tools' action words, the
// lexicons' words, read verbs, words general English uses mostly as verbs.
// An action starts a clause (after light verbs, or as a phrase: "call
// off", "take down"); when no clause starts with one, the first action word
// anywhere is the verb, else the first word: "The customer on charge … was
// overcharged: refund $…" asks to refund.
func parseIntent(text string, isAction func(string) bool, r *relater) []intent {
	return parseIntentWith(text, isAction, r.isActionWord, r)
}

// politeFrame is what may stand before a request's verb: "Could you please
// …", "I'd like you to …", "Go ahead and …".
var politeFrame = regexp.MustCompile(`^(?i)\s*(?:(?:hi|hello|hey)[,!]?\s+)?(?:(?:could|can|would|will)\s+you\s+(?:please\s+)?|please\s+|kindly\s+|i(?:'d|’d| would)\s+like\s+(?:you\s+)?to\s+|(?:i|we)\s+(?:want|need)\s+(?:you\s+)?to\s+|help\s+me\s+|go\s+ahead\s+and\s+|let's\s+|time\s+to\s+)+`)

// parseIntentWith is parseIntent; strong tells the words that are actions
// in an API's sense (the lexicons'), which a goal that names its action
// nowhere in a verb's place is read by before general-English verbs ("The
// meeting with Ann must be cancelled": cancel, not meet).
func parseIntentWith(text string, isAction, strong func(string) bool, r *relater) []intent {
	var words []string
	// done is what the speaker says was already done ("so we had to call
	// the lesson off"): the situation, never the request.
	done := map[string]bool{}
	asked := map[string]bool{} // the words of clauses that ask something, not of statements
	var verbs []string
	unknown := "" // the first imperative clause's first word, when no action word starts any
	seen := map[string]bool{}
	// wordingSenses are the other actions the goal's wording gives an
	// action (action → senses): an idiom's other sense, a reported
	// request's verb under the instruction that answers it, the plain sense
	// of a magnitude's phrasal verb.
	wordingSenses := map[string][]string{}
	// reads rewrites raw with a frame, as the action verb with more senses
	// the frame's words give it, when the frame is there.
	reads := func(raw string, frame *regexp.Regexp, repl, verb string, senses ...string) string {
		out := frame.ReplaceAllString(raw, repl)
		if out != raw {
			k := key(verb)
			for _, s := range senses {
				wordingSenses[k] = append(wordingSenses[k], key(s))
			}
		}
		return out
	}
	addWord := func(w string) {
		if !seen[w] && !lightVerbs[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	text = text[len(politeFrame.FindString(text)):]
	text = onceWhen.ReplaceAllString(text, "when$1")
	text = fromNowOn.ReplaceAllString(text, "$1")
	// A colon after a request explains it: "Tag the release: mark commit
	// c_1 as v2.4" asks for one action, said twice; "Reply …: tell them we
	// are on it" says what the reply says. The clause right after such a
	// colon adds words, not an action.
	type clause struct {
		raw      string
		explains bool
		// joined: the clause follows the one before after "and" or
		// "then", so it shares that clause's subject ("we will fix the
		// code and send it later").
		joined bool
	}
	var cls []clause
	for pi, part := range strings.Split(text, ":") {
		start, ci := 0, 0
		joined := false
		breaks := clauseBreak.FindAllStringIndex(part, -1)
		for _, loc := range commaStatement.FindAllStringIndex(part, -1) {
			breaks = append(breaks, []int{loc[0], loc[0] + 1})
		}
		for _, loc := range commaKeeping.FindAllStringIndex(part, -1) {
			breaks = append(breaks, []int{loc[0], loc[0] + 1})
		}
		slices.SortFunc(breaks, func(a, b []int) int { return a[0] - b[0] })
		for _, loc := range append(breaks, []int{len(part), len(part)}) {
			if loc[0] < start {
				continue // inside a break already taken
			}
			cls = append(cls, clause{raw: part[start:loc[0]], explains: pi > 0 && ci == 0, joined: joined})
			joined = andThen.MatchString(part[loc[0]:loc[1]])
			start = loc[1]
			ci++
		}
	}
	statement := false            // the clause before was a statement
	var embeddedVerbs []string    // the actions that statements reported as requests
	allNouns := map[string]bool{} // words after a determiner: nouns, the last choice for a verb
	inPurpose := false            // the clause before ended in a purpose ("so they can …")
	afterKeep := false            // the clause before asked to keep something ("but keep it registered")
	prevEmbedded := false         // the clause before reported a request
	for _, cl := range cls {
		raw := cl.raw[len(politeFrame.FindString(cl.raw)):]
		// "she'd like to see her pictures and pick the ones she likes":
		// a clause joined to a reported request goes on reporting it.
		embedded := cl.joined && prevEmbedded
		if moved := insteadMove(raw); moved != "" {
			raw = moved
			k := key("move")
			wordingSenses[k] = append(wordingSenses[k], key("change"))
		}
		// "Run next year's race on it instead of this one": the same
		// thing, later; what is asked is to put it off.
		raw = laterInstead.ReplaceAllString(raw, "${1}postpone it to $2")
		// "the employee asked us to take it back", "… and asked us to
		// stop taking their money": a statement that carries the request,
		// its subject said before "and" or not at all.
		if loc := embeddedRequest.FindStringIndex(raw); loc != nil && (!imperative(raw) || strings.TrimSpace(raw[:loc[0]]) == "") && !negatedBefore.MatchString(raw[:loc[0]]) {
			raw, embedded = raw[loc[1]:], true
		}
		prevEmbedded = embedded
		// "Make sure no new pods get scheduled onto it" asks for what the
		// clause after the frame says; said in the negative, it asks to
		// block that.
		// "Nobody may work on that site until …" asks to block, when no
		// action came before it; after one ("send it over: nothing may
		// leave the port before …") it is a constraint on that action.
		prevent := len(verbs) == 0 && (prohibition.MatchString(raw) || barred(raw))
		if len(verbs) == 0 {
			// "The family must not get any more letters about jabs": what
			// must no longer reach someone, said of them, asks to stop it.
			raw = noMoreSent.ReplaceAllString(raw, "stop $1")
		}
		if loc := ensureFrame.FindStringIndex(raw); loc != nil {
			raw = raw[loc[1]:]
			prevent = negatedClause.MatchString(raw)
			if !prevent {
				raw = endsUpOn.ReplaceAllString(raw, "send $1 to")
			}
		}
		if m := likeInstead.FindStringSubmatchIndex(raw); m != nil && len(verbs) == 0 {
			// "… and would like twelve bottles instead of six", "she needs
			// {{from}} to {{to}} off instead": a change, whatever the
			// statement around it; a wish reported, as "she'd like to …"
			// is. ("She needs to fly on Monday instead" is insteadChange's.)
			if wish := raw[m[2]:m[3]]; !strings.HasPrefix(lower(wish), "to ") {
				raw = "change to " + wish + " instead" + raw[m[1]:]
				embedded = true
			}
		}
		// "…, not a fresh run of the whole pipeline", "rather than a new
		// one": the alternative the goal rules out describes the tool not
		// to use, so its words are none to look for.
		if loc := ruledOut.FindStringIndex(raw); loc != nil {
			raw = raw[:loc[0]] + " not" // the constraint stays: something is not to be done
		}
		lead := ""
		if loc := subordinateLead.FindStringIndex(raw); loc != nil {
			lead, raw = raw[:loc[1]], raw[loc[1]:]
		}
		raw = paidBack.ReplaceAllString(raw, "refund $1")
		raw = moneyBack.ReplaceAllString(raw, "refund $1")
		raw = obtains(raw, getSomeone)
		raw = obtains(raw, getSomeoneThe)
		// Put on an account or a list: added there, which a ledger calls
		// posting.
		raw = reads(raw, putOn, "add $1$2", "add", "post")
		// "Give it more CPU": more of a thing is an increase.
		raw = giveMore.ReplaceAllStringFunc(raw, func(m string) string {
			if sm := giveMore.FindStringSubmatch(m); !timeWords[lower(sm[2])] {
				return "increase " + sm[1] + "more " + sm[2]
			}
			return m // "give them more time" extends (an idiom)
		})
		// "Give it read access": giving access grants it (what access
		// stays a word of the goal's).
		raw = giveAccess.ReplaceAllString(raw, "grant $1$2")
		// "Stop anyone from paying with it": to block it; "make them its
		// driver": to set its driver; "keep their delivery back": to
		// hold it; "send everyone who visits … there": to redirect.
		raw = stopSeeing.ReplaceAllString(raw, "hide it from $1")
		raw = stopFrom.ReplaceAllString(raw, "block $1")
		raw = putOnPause.ReplaceAllString(raw, "$2 $1")
		raw = letGoTo.ReplaceAllString(raw, "set $1to")
		raw = getThing.ReplaceAllStringFunc(raw, getThingAs)
		// "Get {{carer}} to do the visit instead": to have someone do a
		// thing is to assign it to them.
		raw = reads(raw, getPersonTo, "assign $1 to", "assign", "reassign")
		raw = keepLonger.ReplaceAllString(raw, "extend $1")
		raw = letHaveUntil.ReplaceAllString(raw, "extend it for $1 ")
		raw = putOnRecord.ReplaceAllString(raw, "record $1")
		raw = haveStop.ReplaceAllString(raw, "stop $1")
		// "Put those two names right": correct them.
		raw = putRight.ReplaceAllString(raw, "correct $1")
		raw = dropNote.ReplaceAllString(raw, "send $1 a ")
		// "Have the round go out tomorrow instead": the same thing, on
		// another day; a later one puts it off.
		raw = reads(raw, haveGoInstead, "move $1 to $2$3", "move", "change", "postpone", "reschedule")
		// "Have the same translator correct them", after the
		// having-done frames above have read theirs: what she is to do is
		// the request; who does it is context.
		if m := haveDo.FindStringSubmatchIndex(raw); m != nil && isAction(stem(lower(raw[m[4]:m[5]]))) {
			raw = raw[m[4]:] + " by " + raw[m[2]:m[4]]
		}
		if len(verbs) == 0 {
			// "Nothing more should happen with it until they have
			// answered": to hold it.
			raw = nothingHappens.ReplaceAllString(raw, "hold it until")
		}
		if len(verbs) == len(embeddedVerbs) {
			// "Until the family have settled it, the cremation must not go
			// ahead": to stop it. After a reported wish ("his sisters want
			// to talk it through first") it is what to do about it.
			raw = mustNotGoAhead.ReplaceAllString(raw, "stop $1")
		}
		raw = belongsIn.ReplaceAllString(raw, "move $1 to")
		raw = letSee.ReplaceAllString(raw, "share with $1 ")
		raw = sendToLook.ReplaceAllString(raw, "share with $1 ")
		raw = getIn.ReplaceAllString(raw, "book $1 for")
		if len(verbs) == 0 {
			// "Keep the container sitting at the port until then": to hold
			// it. After an action ("don't pay it yet …: keep it waiting in
			// the queue") it says that action again.
			raw = keepWaiting.ReplaceAllString(raw, "hold $1")
		}
		raw = shouldCost.ReplaceAllString(raw, "set the price of $1 to")
		raw = reads(raw, getOut, "release $1", "release", "publish")
		raw = makeRole.ReplaceAllString(raw, "set $2 to $1")
		raw = keepBack.ReplaceAllString(raw, "hold $1")
		if keepAway.MatchString(raw) {
			// "Keep it away from testing": to hold it apart, which is
			// to isolate it or set it apart.
			raw = keepAway.ReplaceAllString(raw, "hold $1")
			k := key("hold")
			wordingSenses[k] = append(wordingSenses[k], key("isolate"), key("set apart"), key("separate"))
		}
		raw = sendVisitors.ReplaceAllString(raw, "redirect $1")
		// "Let the rotation know": a causative frame around its object.
		raw = letKnow.ReplaceAllString(raw, "notify $1")
		// "Put it there", "put the file into the archive": to put a
		// thing somewhere is to move it.
		// "Put it in Ann's name": a transfer.
		raw = putInName.ReplaceAllString(raw, "transfer $1 to")
		raw = putPlace.ReplaceAllStringFunc(raw, func(m string) string {
			sm := putPlace.FindStringSubmatch(m)
			if sm[1] != "" {
				return "move " + sm[1] + " " + sm[2] // "put it there": move it there
			}
			if ws := splitWords(sm[3]); valueNouns[lower(ws[len(ws)-1])] {
				return "set " + sm[3] + " on" // "put the right number on that reading": set it
			}
			return "move " + sm[3] + " to" // "put it in cold storage": move it to cold storage
		})
		// "Get it to the doctor who asked for the test": to send it.
		raw = getItTo.ReplaceAllString(raw, "send $1 to")
		// "Send it to her by email": to email it.
		raw = sendByEmail.ReplaceAllString(raw, "email $1")
		// "… so it stops paging the next person": what the action is
		// for, in words; the action is before it.
		if cl.joined && inPurpose {
			// "… so they can attach them and submit it again": the
			// purpose goes on; its verbs are the other party's.
			for _, w := range stems(raw) {
				addWord(w)
			}
			continue
		}
		inPurpose = false
		if loc := purposeTail.FindStringIndex(raw); loc != nil && loc[0] > 0 {
			lead, raw = lead+" "+raw[loc[0]:], raw[:loc[0]]
			inPurpose = true
		}
		ws := rewriteIdioms(stems(raw), wordingSenses)
		for _, w := range stems(lead) {
			addWord(w) // "before sending the campaign": context, not the request
		}
		contingent := lead != "" && conditionalLead.MatchString(lead) && len(verbs) > 0
		aug, _ := r.augment(ws)
		for _, w := range ws {
			addWord(w)
		}
		for _, w := range aug[len(ws):] {
			if isAction(w) {
				addWord(w)
			}
		}
		// A word after a determiner is a noun in a statement as in a
		// request ("she stays one of our donors with her record"): no
		// verb for the fallback below.
		for n := range nounsAfterDeterminers(raw) {
			allNouns[n] = true
		}
		// What the speaker reports having done, and what somebody did
		// ("{{name}} came in to give blood"), is the situation.
		narrated := !embedded && narrates(raw)
		if alreadyDone.MatchString(raw) || narrated {
			ws := rewriteIdioms(stems(raw), nil)
			aug, _ := r.augment(ws) // with the phrases in it, split ones too ("call the lesson off")
			for _, w := range aug {
				done[w] = true
			}
		}
		if (notYet.MatchString(raw) || dontVerb.MatchString(raw) && forAWhile.MatchString(raw)) && len(verbs) == len(embeddedVerbs) {
			// "Don't send it out yet", "don't offer her one while she's
			// away": to hold it. After a reported
			// request ("they asked us to wait"), the hold is what to do.
			k := key("hold")
			if len(embeddedVerbs) > 0 {
				for _, v := range embeddedVerbs {
					wordingSenses[k] = append(wordingSenses[k], v)
				}
				verbs, embeddedVerbs = nil, nil
			}
			if !slices.Contains(verbs, k) {
				verbs = append(verbs, k)
			}
			statement = false
			continue
		}
		if contingent {
			statement = false
			continue // "if the call times out, check first": how, not what
		}
		if prevent {
			if b := key("block"); !slices.Contains(verbs, b) {
				verbs = append(verbs, b)
			}
			continue
		}
		if cl.joined && statement && !embedded {
			continue // "… and send it later" after "we will fix the code"
		}
		if !baseForm(raw) {
			statement = true
			continue // "settings" after "its name and": a noun, no imperative
		}
		if cl.joined && afterKeep && len(ws) <= 2 && len(nounsAfterDeterminers(raw)) == 0 {
			// "keep it registered and set up": the words joined to a keep
			// clause say more of the state to keep, no action.
			continue
		}
		afterKeep = false
		if leaveAlone.MatchString(raw) || keepClause.MatchString(raw) || leaveAsItStands.MatchString(raw) || carryOnWith.MatchString(raw) {
			// "leave its wording alone", "keep it", "leave the gift showing
			// in their history": what must not change, no action.
			statement = false
			afterKeep = true
			continue
		}
		if !imperative(raw) || modalStatement.MatchString(raw) || narrated || !embedded && nounStatement(raw, strong) {
			statement = true
			continue // a statement
		}
		statement = false
		for _, w := range ws {
			asked[w] = true
		}
		// Reported requests ("they asked us to stop sending them emails")
		// give way to the instruction after the colon ("remove them from
		// the mailing list"): it says what to do about the request, whose
		// verb stays a sense of the instruction's.
		reported := len(verbs) > 0 && len(verbs) == len(embeddedVerbs)
		// "Put Ann on the guest list: issue them one ticket": when the
		// request's verb is a light verb's phrase and the explanation's is
		// an action an API names, the explanation says what to do; the
		// request's verb stays a sense of it.
		explainsWeak := false
		if cl.explains && len(verbs) > 0 && !reported {
			if !lightPhrase(verbs[len(verbs)-1]) {
				continue // a request said again after its colon
			}
			explainsWeak = true
		}
		before := len(verbs)
		// "Make it less noisy by changing its threshold": the request
		// names an end, and "by" the action that reaches it.
		if m := byMeans.FindStringSubmatch(raw); m != nil {
			if k := stem(lower(m[1])); isAction(k) && !lightVerbs[k] {
				if !slices.Contains(verbs, k) {
					verbs = append(verbs, k)
				}
				continue
			}
		}
		nouns := nounsAfterDeterminers(raw)
		for n := range nouns {
			allNouns[n] = true
		}
		for i, w := range ws {
			if _, first := r.augment(ws[i:]); len(first) > 0 {
				// "take down" is an action; "go ahead" is a light verb's
				// phrase unless an API lexicon knows it. The longest
				// phrase that is an action wins: "hang on to", else
				// "hang on".
				k := ""
				for _, f := range first {
					if isAction(f) && (!lightVerbs[w] || strong(f)) {
						k = f
						break
					}
				}
				if k != "" {
					if !slices.Contains(verbs, k) {
						verbs = append(verbs, k)
					}
					break
				}
			}
			if lightVerbs[w] {
				// "Take one manual snapshot of it": the light verb's
				// noun is the action, past its adjectives.
				for j := i + 1; j < len(ws) && j <= i+3; j++ {
					if strong(ws[j]) && !lightVerbs[ws[j]] && !nouns[ws[j]] && j > i+1 && !isAction(ws[i+1]) && !nouns[ws[i+1]] {
						if !slices.Contains(verbs, ws[j]) {
							verbs = append(verbs, ws[j])
						}
						break
					}
				}
				if len(verbs) > before {
					break
				}
				// "Take it out of use": the light verb and its particle
				// are the action, not the particle alone ("out").
				if _, first := r.augment(ws[i:]); len(first) > 0 {
					if k := particlePhrase(first, isAction); k != "" {
						if !slices.Contains(verbs, k) {
							verbs = append(verbs, k)
						}
						break
					}
				}
				if i == 0 && unknown == "" {
					if h := lightObjectHead(raw); h != "" && !isAction(ws[min(i+1, len(ws)-1)]) {
						unknown = h // "take one manual snapshot": snapshot
					}
				}
				continue
			}
			if intentSupportVerbs[w] && i+1 < len(ws) && strong(ws[i+1]) && !lightVerbs[ws[i+1]] {
				// "put a hold on": the noun is the action, as a noun
				// (not "hold on").
				if !slices.Contains(verbs, ws[i+1]) {
					verbs = append(verbs, ws[i+1])
				}
				break
			}
			if i > 0 && nouns[w] && lightVerbs[ws[i-1]] {
				// "give the traveller their money back": the light verb's
				// object, not a verb; the action is an idiom the object
				// is part of, if any ("let their subscription run" lets).
				if k := slices.IndexFunc(ws[i+1:], isIdiomAction); k >= 0 && !slices.Contains(verbs, ws[i+1+k]) {
					verbs = append(verbs, ws[i+1+k])
					break
				}
				break
			}
			if (isAction(w) || i == 0 && opensWithVerbAndObject(raw)) && !slices.Contains(verbs, w) {
				verbs = append(verbs, w)
			} else if !isAction(w) && unknown == "" && !negations[w] {
				unknown = w // not "don't": a negation names no action
			}
			break
		}
		switch {
		case len(verbs) == before:
		case explainsWeak:
			if k := verbs[before]; strong(k) {
				old := verbs[before-1]
				verbs = append(verbs[:before-1], k)
				wordingSenses[k] = append(wordingSenses[k], old)
			} else {
				verbs = verbs[:before] // the request said again, in no clearer words
			}
		case embedded:
			embeddedVerbs = append(embeddedVerbs, verbs[before:]...)
		case reported && !cl.joined:
			k := verbs[before]
			for _, v := range embeddedVerbs {
				wordingSenses[k] = append(wordingSenses[k], v)
			}
			verbs, embeddedVerbs = verbs[before:], nil
		}
	}
	if len(words) == 0 {
		return []intent{{}}
	}
	if len(verbs) == 0 && shouldBe.MatchString(text) {
		verbs = []string{key("update")} // "it should be {{phone}}"
	}
	if len(verbs) == 0 && unknown != "" {
		// "Frobnicate the widget": the goal names an action no tool or
		// dictionary knows; a noun elsewhere in it is no verb.
		verbs = []string{unknown}
	}
	// A word the goal negates is not what it asks ("she isn't leaving
	// us, so keep her on the roll", "it mustn't be charged").
	denied := negatedWords(text)
	// A word of a clause that asks something comes before one of a
	// statement ("the translation delivered on job 7 is good"): a
	// statement's participle describes, it does not ask.
	inRequest := func(w string) bool { return asked[w] && strong(w) }
	for _, pass := range []func(string) bool{inRequest, strong, isAction} {
		for _, w := range words {
			if len(verbs) == 0 && pass(w) && !constraintWords[w] && !readVerbs[w] && !allNouns[w] && !deniedPhrase(denied, w) && !done[w] {
				verbs = []string{w}
			}
		}
	}
	if len(verbs) == 0 {
		for _, w := range words {
			if isAction(w) && !constraintWords[w] && !done[w] && !deniedPhrase(denied, w) {
				verbs = []string{w}
				break
			}
		}
	}
	if len(verbs) == 0 {
		// No action word is left: the first word that is neither done nor
		// denied, as the verb of a goal no dictionary knows.
		i := slices.IndexFunc(words, func(w string) bool { return !done[w] && !deniedPhrase(denied, w) })
		verbs = []string{words[max(i, 0)]}
	}
	// "Take it down to 0 pods", "bring the limit up to 500": a phrasal verb
	// whose particle is followed by the value to reach changes a magnitude.
	// It is read as decrease or increase, its plain sense (take down:
	// remove) kept as a weaker one.
	if magnitudeTo.MatchString(text) {
		for i, v := range verbs {
			to := ""
			switch {
			case strings.HasSuffix(v, " "+key("down")):
				to = key("decrease")
			case strings.HasSuffix(v, " "+key("up")):
				to = key("increase")
			}
			if to != "" && !slices.Contains(verbs, to) {
				verbs[i] = to
				wordingSenses[to] = append(wordingSenses[to], v)
			}
		}
	}
	kept, keptOnly := keptWords(text)
	lasting := saysLasting(text)
	out := make([]intent, len(verbs))
	for i, v := range verbs {
		out[i] = newIntent(words, v)
		out[i].dropNegated(denied)
		out[i].markKept(kept, keptOnly)
		out[i].lasting = lasting
		for _, s := range wordingSenses[v] {
			out[i].addSense(s, wordingSenseWeight)
		}
	}
	return out
}

// particleSenses are the actions a phrasal verb's particle names by
// itself: whatever "bump up", "jack up" or "ramp up" mean exactly, they
// raise something; "take offline", "switch off" disable; "roll back",
// "set back" restore.
var particleSenses = map[string][]string{
	key("up"):      {key("raise"), key("increase")},
	key("down"):    {key("lower"), key("reduce")},
	key("off"):     {key("disable"), key("stop")},
	key("offline"): {key("disable")},
	key("online"):  {key("enable")},
	key("back"):    {key("restore"), key("undo")},
}

// plainPhrasal are phrasal verbs whose particle says no direction: to set
// up a meeting is to arrange it, not to raise it.
var plainPhrasal = stemSet("set up", "sign up", "log in", "log out", "sign in", "sign out", "look up", "pick up",
	"back up", "clean up", "hang up", "show up", "make up", "set off", "log off", "kick off", "spin up", "fire up", "start up",
	"boot up", "power up", "bring up")

// verbSense is an action a goal asks for besides its verb, matched where
// a tool names its action at weight (of a full verb match).
type verbSense struct {
	key    string
	weight float64
	// exact: matched only as itself or a full synonym, not through a
	// weaker relation (see findVerb).
	exact bool
}

// addSense adds an action the goal's wording implies, keeping the higher
// weight when it is there already. It returns the sense, valid until the
// next one is added (nil for the verb itself, which is no sense).
func (in *intent) addSense(k string, w float64) *verbSense {
	if k == in.verb {
		return nil
	}
	for i := range in.senses {
		if in.senses[i].key == k {
			in.senses[i].weight = math.Max(in.senses[i].weight, w)
			return &in.senses[i]
		}
	}
	in.senses = append(in.senses, verbSense{key: k, weight: w})
	return &in.senses[len(in.senses)-1]
}

// newIntent weighs words for one action verb.
func newIntent(words []string, verb string) intent {
	in := intent{verb: verb, reads: readVerbs[verb], words: make([]intentWord, 0, len(words))}
	if i := strings.LastIndexByte(verb, ' '); i > 0 {
		for _, k := range particleSenses[verb[i+1:]] {
			if plainPhrasal[verb] {
				break // "set up" a meeting raises nothing
			}
			in.addSense(k, particleWeight)
		}
	}
	for _, w := range words {
		in.preserve = in.preserve || preserveWords[w]
		in.repeat = in.repeat || repeatWords[w]
		if w == verb || containsWord(verb, w) {
			continue
		}
		wt := 1.0
		if constraintWords[w] {
			wt = 0
		}
		in.words = append(in.words, intentWord{stem: w, weight: wt})
		in.total += wt
	}
	return in
}

// mannerAdverbs are the stems of a text's -ly adverbs, in order, once
// each: how a goal wants its action done.
func mannerAdverbs(text string) []string {
	var out []string
	for _, w := range splitWords(text) {
		lw := lower(w)
		if len(lw) > 4 && strings.HasSuffix(lw, "ly") && !stopWords[lw] {
			if k := stem(lw); k != "" && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// negatedWord is the word a negation denies: "it is not fixed yet", "do
// not close it", "they no longer want it", "she mustn't end up booked in
// twice" (what she must not end up is booked).
var negatedWord = regexp.MustCompile(`(?i)(?:\b(?:not|never|no\s+longer)|n[’']t)\s+(?:(?:be|been|being|yet|ever|get|got|getting|have|has|had|want|wants|need|needs|to|end\s+up|ending\s+up)\s+)*(\pL+)`)

// forbidden is what a goal says must not happen, to the clause's end:
// "their order details must not go in the public thread", "nobody is sent
// to the shelf for that copy", "so nobody puts it back on the shelf".
var forbidden = regexp.MustCompile(`(?i)\b(?:(?:must|should|may|can)\s+(?:not|never)|(?:nobody|no\s+one|nothing)\s+(?:is|are|gets?|must|should|will|may)(?:\s+be)?|(?:nobody|no\s+one)\s+(?:\pL+s)\b)\s+([^.;:!?,]+)`)

// negatedWords are the stems of the words the goal's negations deny: the
// word a negation denies, and all of what it forbids.
func negatedWords(text string) map[string]bool {
	var out map[string]bool
	add := func(w string) {
		if w = lower(w); !stopWords[w] {
			if out == nil {
				out = map[string]bool{}
			}
			out[stem(w)] = true
		}
	}
	for _, m := range negatedWord.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	// "it mustn't count as one of her lessons or be charged": a verb
	// joined by "or" to a negated one is negated too.
	for _, m := range negatedOr.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	for _, m := range forbidden.FindAllStringSubmatch(text, -1) {
		for _, w := range splitWords(m[1]) {
			add(w)
		}
	}
	return out
}

// particlePhrase is the first of a light verb's phrases that is an action
// and ends in a particle ("take out", "put off"), or "".
func particlePhrase(first []string, isAction func(string) bool) string {
	for _, f := range first {
		if i := strings.LastIndexByte(f, ' '); i > 0 && (particles[f[i+1:]] || f[i+1:] == key("out")) && isAction(f) {
			return f
		}
	}
	return ""
}

// saysLasting reports whether a goal asks for its action to last: it says
// what a tool's loss warning counts as lasting ("for good", "permanently",
// "it can never be undone"), not negated ("not permanently").
func saysLasting(text string) bool {
	var counts [cueKinds]float64
	countCues(stems(text), -1, 1, cueContext{removes: true}, &counts)
	return counts[cueLasting] > 0
}

// keptObject is what a goal says to keep, to the clause's end: "but keep
// their account and grades", "keep the contact record so that …".
var keptObject = regexp.MustCompile(`(?i)\b(?:keep|keeping|retain|retaining|preserve|preserving|(?:hang|hold|hanging|holding)\s+on\s*to)\s+([^.;:!?,]+?)(?:\s+(?:so|because|since|as|until|while|for|in case|when|if)\b|[.;:!?,]|$)`)

// keepItOnFile is a goal that says to keep its target itself: "but keep it
// on file for the investigation", "keep them in the system", "keep the
// record".
var keepItOnFile = regexp.MustCompile(`(?i)\b(?:keep|retain|preserve)\s+(?:(?:it|them|him|her|(?:the|their|its|this|that|his|her|our)\s+\pL+(?:\s+(?:file|record|history))?)\s+(?:on\s+(?:file|record|(?:their|the|its|our|his|her)\s+record)|in\s+(?:the|our)\s+(?:system|records?|files?|database)|for\s+(?:the\s+|our\s+)?(?:records?|audit|auditors|investigation))|a\s+record\s+of\s+(?:it|them)\b)`)

// keptWords are the stems of the nouns a goal says to keep ("keep their
// account and grades": account, grade), not its pronouns ("keep it") or
// the words of a state ("keep it registered"); only are those of them the
// goal says nowhere but in what it keeps ("withdraw claim c_1 …, but keep
// the claim file" names the claim outside its keep too).
func keptWords(text string) (kept, only map[string]bool) {
	objects := keptObject.FindAllStringSubmatch(text, -1)
	for _, clause := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(",;:.!?", r) }) {
		if m := leaveAsItStands.FindStringSubmatch(clause); m != nil {
			objects = append(objects, m) // "leave the gift showing in their history"
		}
	}
	rest := text // the text without what it keeps
	for _, m := range objects {
		ws := splitWords(m[1])
		if len(ws) == 0 || keptNoThing[lower(ws[0])] {
			continue // "keep it registered": a state, not a thing
		}
		rest = strings.Replace(rest, m[0], " ", 1)
		for _, w := range ws {
			if lw := lower(w); !stopWords[lw] && !keptNoThing[lw] {
				if kept == nil {
					kept = map[string]bool{}
				}
				kept[stem(lw)] = true
			}
		}
	}
	if kept == nil {
		return nil, nil
	}
	only = maps.Clone(kept)
	for _, w := range stems(rest) {
		delete(only, w)
	}
	return kept, only
}

// keptNoThing are words after "keep" that name no thing to keep: pronouns
// (the thing is the target, or said elsewhere), "keep track", and the
// words of a state ("keep it running", "keep it open").
var keptNoThing = setOf("it", "them", "this", "that", "these", "those", "everything", "all", "both", "one", "track", "going", "on", "up", "in", "out", "running", "open", "active")

// markKept marks the context words the goal says to keep.
func (in *intent) markKept(kept, keptOnly map[string]bool) {
	for i := range in.words {
		in.words[i].keptOnly = keptOnly[in.words[i].stem]
		if kept[in.words[i].stem] {
			// A goal that names a thing to keep ("hang on to their
			// profile") keeps data, whatever words it said it with.
			in.words[i].kept, in.preserve = true, true
		}
	}
}

// dropNegated gives no weight to the context words the goal denies: a
// tool whose text says "closed as fixed" is no closer to "it is not fixed
// yet" for sharing "fixed".
func (in *intent) dropNegated(negated map[string]bool) {
	for i := range in.words {
		if w := &in.words[i]; negated[w.stem] && w.weight > 0 {
			in.total -= w.weight
			w.weight = 0
		}
	}
}

// knownPlaceholder is a value the goal names ("to {{knows.slot}}").
var knownPlaceholder = regexp.MustCompile(`\{\{\s*knows\.([A-Za-z0-9_]+)\s*\}\}`)

// placeholderNoise are words of a knows key that say nothing about the
// value's kind: a person reading "to Thu 15:00" sees a time, not that it
// was given.
var placeholderNoise = stemSet("id", "given", "new", "value", "target", "old", "the")

// knownValueWords are the words of the knows keys an intent writes into
// its sentence ("Move it to {{knows.slot}}" → slot). A person reading the
// filled-in sentence sees a time, an email address, a priority, and knows
// the tool must take one; a reader of the template sees nothing there.
// Ids and names say nothing of the kind.
func knownValueWords(intent string) []string {
	var out []string
	for _, mt := range knownPlaceholder.FindAllStringSubmatch(intent, -1) {
		for _, w := range stems(nameWords(mt[1])) {
			if !placeholderNoise[w] && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// addContext adds words the goal's sentence implies as context, at the
// weight of a word it says.
func (in *intent) addContext(words []string) {
	for _, w := range words {
		if w == in.verb || containsWord(in.verb, w) || constraintWords[w] || slices.ContainsFunc(in.words, func(iw intentWord) bool { return iw.stem == w }) {
			continue
		}
		in.words = append(in.words, intentWord{stem: w, weight: 1})
		in.total++
	}
}

// containsWord reports whether phrase key k has w as one of its words.
func containsWord(k, w string) bool {
	if len(k) <= len(w) {
		return false
	}
	for i := 0; i+len(w) <= len(k); i++ {
		if k[i:i+len(w)] == w && (i == 0 || k[i-1] == ' ') && (i+len(w) == len(k) || k[i+len(w)] == ' ') {
			return true
		}
	}
	return false
}

// imperative reports whether a clause starts with a word in a verb's place
// ("Charge a customer's card", "Moves money"), not with an article or
// pronoun ("A charge is captured once").
func imperative(clause string) bool {
	if opensWithSubject(clause) || subjectAndVerb(clause) || opensWithPreposition(clause) {
		return false
	}
	return actionWord(clause) != "" || startsWithContent(clause)
}

// nounStatement reports whether a clause is a statement about a noun that
// opens it: "Version {{id}} of one of our API keys was pasted into a
// public log". Its first word is no action, and a form of "be" or "have"
// follows before any object of an imperative could.
func nounStatement(clause string, strong func(string) bool) bool {
	ws := splitWords(clause)
	if len(ws) < 3 || lightVerbs[stem(lower(ws[0]))] {
		return false // "Let their item run until they are back"
	}
	// A record named by a noun and its id, then "is": "Leave request
	// {{id}} is for the wrong week" is about the request, whatever verb
	// its first word could be.
	for i := 1; i <= 2 && i+1 < len(ws); i++ {
		if strings.ContainsRune(ws[i], valueMark) {
			switch lower(ws[i+1]) {
			case "is", "was", "has", "are", "were", "have":
				return true
			}
			break
		}
	}
	// An action word with a preposition after it is a noun: "Version
	// {{id}} of one of our keys", "Order {{id}} for Ann".
	if strong(stem(lower(ws[0]))) && !nounPrepositions[lower(ws[1])] {
		return false
	}
	for _, w := range ws[1:] {
		switch lower(w) {
		case "was", "were", "is", "are", "has", "have", "had":
			return true
		}
	}
	return false
}

var nounPrepositions = setOf("of", "for", "from", "in", "at", "with")

// lightPhrase reports whether an action key is a light verb or a verb of
// placing, alone or with its particle ("put on", "get", "take out"): words
// that say little of what is done. ("Issue" and "file" say it: they are
// no light verbs, though a noun after them may name the action.)
func lightPhrase(k string) bool {
	first, _, _ := strings.Cut(k, " ")
	return lightVerbs[first] || placingVerbs[first]
}

var placingVerbs = stemSet("put", "place", "get", "set")

// opensWithPreposition reports whether a clause opens with a preposition:
// "…, without them having to apply all over" says how, and its words are
// no request ("without" is no verb).
func opensWithPreposition(clause string) bool {
	for _, f := range splitWords(clause) {
		return clausePrepositions[lower(f)]
	}
	return false
}

var clausePrepositions = setOf("without", "with", "except", "including", "excluding", "besides", "despite", "via",
	"within", "across", "against", "among", "toward", "towards", "upon", "onto", "into", "of", "from", "for", "at",
	"in", "on", "by", "as", "like", "unlike", "than", "during", "throughout",
	// "Until the doctor clears her …", "unless she calls": a condition
	// or a time, no request.
	"until", "till", "unless")

// subjectAndVerb reports whether a clause opens with a noun phrase and a
// finite verb ("Checkout payments are failing", "HR will fix it"): a
// statement. An imperative's object comes after a determiner or pronoun
// ("check the service is up") and is no subject.
func subjectAndVerb(clause string) bool {
	ws := splitWords(clause)
	if len(ws) < 2 || determiners[lower(ws[1])] || particleObjects[lower(ws[1])] {
		return false
	}
	for i := 1; i < len(ws) && i <= 3; i++ {
		if subjectVerbs[lower(ws[i])] {
			return true
		}
		if stopWords[lower(ws[i])] {
			return false // "Tag v2 of the …": a preposition, no subject
		}
	}
	return false
}

// subjectVerbs follow a sentence's subject.
var subjectVerbs = setOf("is", "are", "was", "were", "has", "have", "had", "will", "would", "shall", "can", "could",
	"should", "must", "may", "might", "won't", "can't", "isn't", "aren't", "wasn't", "doesn't", "don't", "keeps", "kept",
	"seems", "seem", "went", "got", "gets")

// opensWithSubject reports whether a clause opens with a subject and its
// auxiliary written as one word ("we'll fix the typo", "it's been stuck"):
// a statement, whatever verb follows.
func opensWithSubject(clause string) bool {
	for _, f := range splitWords(clause) {
		f = lower(f)
		i := strings.IndexAny(f, "'’")
		return i > 0 && stopWords[f[:i]]
	}
	return false
}

func startsWithContent(clause string) bool {
	for _, f := range splitWords(clause) {
		return !stopWords[lower(f)]
	}
	return false
}

// subordinateLead is a subordinate clause or a prepositional phrase that
// opens a sentence and ends at its comma: "Before sending the campaign to
// the whole list, send a test copy to me", "For the Q3 launch, create a
// flag", "Instead, archive it". It says when, why or how; the request is
// the main clause after the comma, so its words are context and its verbs
// are none.
//
// A conditional lead ("if the call times out, check before trying again")
// makes its main clause a contingency: advice on how to do the request,
// not another request.
var subordinateLead = regexp.MustCompile(`^(?i)\s*(?:before|after|when|whenever|while|until|till|unless|if|since|because|although|though|as\s+soon\s+as|now\s+that|in\s+case|once\s+(?:the|it|they|we|you|this|that|all|a|an|our|your|their|its)\b|(?:without|with|for|as|on|at|by|from|during|despite|except|instead|given)\b)[^,;:]{0,100},\s*`)

var conditionalLead = regexp.MustCompile(`^(?i)\s*(?:if|unless|in\s+case|whenever|should)\b`)

var (
	stopFrom     = regexp.MustCompile(`(?i)\b(?:stop|prevent|keep)\s+((?:anyone|everyone|anybody|people|others|users|them|him|her|\x{E000})\s+)from\s+(?:getting|going|coming|using|logging|signing|entering|paying|booking|ordering|accessing)\b`)
	makeRole     = regexp.MustCompile(`(?i)\bmake\s+(them|him|her|\x{E000})\s+(?:its|the|their)\s+(driver|owner|admin|manager|lead|assignee|maintainer|contact)\b`)
	keepBack     = regexp.MustCompile(`(?i)\bkeep\s+((?:it|them|(?:the|their|his|her|its|this|that)\s+[\pL-]+)\s+)back\b`)
	keepAway     = regexp.MustCompile(`(?i)\bkeep\s+((?:it|them|(?:the|their|his|her|its|this|that)\s+[\pL-]+)\s+)(?:(?:away|apart)\s+from\b|out\s+of\b|aside\b)`)
	sendVisitors = regexp.MustCompile(`(?i)\bsend\s+((?:everyone|everybody|visitors|traffic|users|people|all\s+traffic)\b)`)
	// stopSeeing is keeping others from seeing a thing, which hides it:
	// "stop the public being able to see it", "keep students from
	// opening it".
	stopSeeing = regexp.MustCompile(`(?i)\b(?:stop|prevent|keep)\s+((?:the\s+public|the\s+world|anyone|everyone|anybody|people|others|users|the\s+[\pL-]+)\s+)(?:from\s+)?(?:being\s+able\s+to\s+)?(?:see(?:ing)?|view(?:ing)?|read(?:ing)?|open(?:ing)?|access(?:ing)?|listen(?:ing)?\s+to|find(?:ing)?|download(?:ing)?)\b`)
	// putOnPause is "put it on pause / on hold / on ice": to pause, hold
	// or freeze it, not to move it somewhere.
	putOnPause = regexp.MustCompile(`(?i)\bput\s+((?:it|them|this|that|(?:the|this|that|its|their|our|his|her)\s+[\pL-]+)\s+)on\s+(pause|hold|ice)\b`)
	// letGoTo is a value let reach another: "let its budget go to {{amount}}
	// a day" sets it.
	letGoTo = regexp.MustCompile(`(?i)\blet\s+((?:it|them|(?:the|its|their|this|that)\s+(?:(?:[\pL-]+|\x{E000})\s+){0,2}?(?:[\pL-]+|\x{E000}))\s+)(?:go|rise|climb|drop|fall)\s+(?:up\s+|down\s+)?to\b`)
	// endsUpOn is what a "make sure" asks to be somewhere: "make sure
	// everyone already subscribed ends up on the new feed" sends them
	// there (and people sent somewhere are redirected: sendVisitors).
	endsUpOn = regexp.MustCompile(`(?i)^(.*?)\b(?:ends?|gets?)\s+(?:up\s+)?(?:on|in|at|onto|into)\b`)
)

// insteadChange is a thing that should be, happen or take place
// otherwise than it is: "booking X should be for collecting the car on
// {{date}} instead", "it has to take place on {{date}} instead", "they'd
// like it to run in episode {{episode}} instead", "she can come at
// {{slot}} instead" (what she can do is what she asks). The clause asks to move
// it (and so to change it); the thing is its subject.
// Its groups: the subject, the verb, where or when it goes (without the
// preposition, which would make a phrasal verb of "move": "move on"), and
// the rest.
var insteadChange = regexp.MustCompile(`(?i)^(.*?)\b(?:should|must|can|could|has\s+to|have\s+to|needs?\s+to|ought\s+to|is\s+to|are\s+to|to)\s+(?:now\s+)?(be\s+held|take\s+place|go\s+ahead|\pL+)\s+(?:for|on|in|at|from|into|to)\s+(.*?)\binstead\b(.*)$`)

// insteadQuestion is insteadChange asked as a question: "so could the
// lesson be at {{starts_at}} instead?" asks to move it there.
var insteadQuestion = regexp.MustCompile(`(?i)\b(?:could|can|would|might)\s+((?:the|this|that|it|its|his|her|their|our)\b[^?,;:]*?)\s+(?:be|be\s+held|take\s+place|happen|run|start)\s+(?:for|on|in|at|from|into|to)\s+([^?,;:]*?)\binstead\b`)

// insteadMove rewrites a clause that asks for a thing to be otherwise, said
// or asked, as moving it there: "it has to take place on {{date}}
// instead", "could the lesson be at {{time}} instead?". "" when it is no
// such clause.
func insteadMove(raw string) string {
	if m := insteadChange.FindStringSubmatch(raw); m != nil && (insteadVerbs[strings.Join(strings.Fields(lower(m[2])), " ")] || strings.ContainsRune(m[3], valueMark)) {
		return "move " + m[1] + " to " + m[3] + m[4]
	}
	if m := insteadQuestion.FindStringSubmatch(raw); m != nil {
		return "move " + m[1] + " to " + m[2] + " instead"
	}
	return ""
}

// insteadVerbs are the verbs insteadChange takes with any complement; any
// other verb ("she needs to fly on {{date}} instead") moves the thing only
// when its complement holds a value the goal gives.
var insteadVerbs = setOf("be", "be held", "take place", "happen", "run", "go ahead", "start")

// getOut is getting or putting a thing out to its audience: "get it out
// to listeners today", "put the new edition out": to release it.
var getOut = regexp.MustCompile(`(?i)\b(?:get|put)\s+(it|them|this|that|(?:the|this|that|its|their|his|her|our)\s+(?:new\s+)?\pL+)\s+out\b`)

// belongsIn is a thing that belongs elsewhere from now on: "it belongs in
// the finance vault from today" moves it there.
var belongsIn = regexp.MustCompile(`(?i)^(?:.*?\b)?(it|they|this|that|these|those)\s+(?:now\s+)?belongs?\s+(?:in|to|under|with)\b`)

// letSee is letting someone see or use a thing: to share it with them.
var letSee = regexp.MustCompile(`(?i)\blet\s+(her|him|them|\x{E000})\s+(?:see|view|read|access|open|use)\b`)

// sendToLook is sending someone a thing to look through: "send her
// something to look through" lets her see it, which is to share it.
var sendToLook = regexp.MustCompile(`(?i)\bsend\s+(her|him|them|\x{E000})\s+(?:something|a\s+link|a\s+copy|(?:the|some|her|his|their)\s+\pL+)\s+to\s+(?:look|see|view|browse|read|check|go)\b`)

// getIn is getting someone in for a visit: "get {{name}} in for a check-up
// on {{date}}", "get the new patient {{name}} in to see Dr Lee" book it.
var getIn = regexp.MustCompile(`(?i)\bget\s+((?:him|her|them|(?:the\s+(?:new\s+)?[\pL-]+\s+)?\x{E000})(?:\s*\(\s*\x{E000}\s*\))?)\s+in\s+(?:for|to\s+see|to)\b`)

// noMoreSent is a clause saying someone must no longer receive a thing:
// "the family must not get any more letters", "she shouldn't be sent any
// more reminders". Its capture is what is to stop.
var noMoreSent = regexp.MustCompile(`(?i)^\s*(?:but\s+|so\s+)?(?:[\pL\x{E000}'’-]+\s+){1,3}?(?:must|should|may|can)(?:\s*not|n[’']t|\s+no\s+longer)\s+(?:get|receive|be\s+sent|be\s+given)\s+(?:any\s*more|any\s+further|more|further)\s+(.+)$`)

// obtains rewrites a get-for-someone frame (getSomeone, getSomeoneThe:
// the thing got, then its head noun) as making the thing, unless the thing
// is information ("get me a list of …" reads).
func obtains(raw string, frame *regexp.Regexp) string {
	return frame.ReplaceAllStringFunc(raw, func(m string) string {
		if sm := frame.FindStringSubmatch(m); !infoNouns[lower(sm[2])] {
			return "create " + sm[1]
		}
		return m
	})
}

// getSomeoneThe is getting a person the thing they are owed: "get her the
// permit" issues it to her. ("Get me the report" stays a read: infoNouns.)
var getSomeoneThe = regexp.MustCompile(`(?i)\bget\s+(?:me|us|him|her|them|\x{E000})\s+((?:the|their|his|her|its|our)\s+(\pL+))`)

// putOn is "put them on" with nothing after but a time: to add them
// ("the miles never showed up on her account: put them on now").
var putOn = regexp.MustCompile(`(?i)\bput\s+(it|them|these|those)\s+on(\s+(?:now|today|again|straight\s+away|right\s+away|please))?\s*(?:[,.;!]|$)`)

// keepWaiting is keeping a thing waiting where it is: "keep the container
// sitting at the port until then" holds it.
var keepWaiting = regexp.MustCompile(`(?i)\bkeep\s+((?:it|them|(?:the|their|its|this|that)\s+[\pL-]+)\s+)(?:sitting|waiting|parked|held|standing|on\s+hold)\b`)

// getThing is "get" with a thing and where it goes or what is done to it:
// "get it onto the court's docket" adds it there, "get it off the shop"
// takes it off, "get it reserved for her" (a past participle) reserves it.
// The thing may be a person ("get {{name}}, our registrar, booked"), or a
// number of things ("get {{copies}} prints of it made"); the participle
// may be irregular ("made", "set up").
var getThing = regexp.MustCompile(`(?i)\bget\s+(it|them|him|her|this|that|(?:the|this|that|its|their|his|her|our)\s+\pL+|\x{E000}(?:\s*\(\s*\x{E000}\s*\))?(?:\s*,\s*(?:[\pL'’-]+\s+){0,3}[\pL'’-]+\s*,)?|\x{E000}\s+\pL+(?:\s+of\s+(?:it|them))?)\s+(onto\s|on\s+to\s|off\b(?:\s+to\b)?|set\s+up\b|signed\s+up\b|made\b|done\b|\pL+ed\b)`)

// getPersonTo is getting someone to do a thing: "get {{carer}} to do
// visit {{id}} instead".
var getPersonTo = regexp.MustCompile(`(?i)\bget\s+(him|her|them|\x{E000})\s+to\s+(?:do|cover|take|handle|run|work|attend|drive|lead|teach|see)\b`)

// keepLonger is keeping a thing for more time than agreed: "keep the
// object on loan {{id}} for three more months" extends the loan.
var keepLonger = regexp.MustCompile(`(?i)\bkeep\s+((?:it|them|(?:the|this|that|its|their|her|his|our)\s+[\pL-]+)(?:\s+on\s+[\pL-]+(?:\s+\x{E000})?)?\s+)(?:for\s+(?:[\pL\d\x{E000}-]+\s+){0,2}(?:more|extra|further)\b|(?:a\s+(?:bit|little)\s+)?longer\b)`)

// putOnRecord is "put it on record that …", "put the miss on record": to
// record it.
var putOnRecord = regexp.MustCompile(`(?i)\bput\s+((?:it|this|that|(?:the|this|that|its|their|her|his|our)\s+[\pL-]+)\s+)?on\s+(?:the\s+)?record\b`)

// letHaveUntil is letting someone have a thing longer: "let her have until
// {{date}} for the review", "let them have two more weeks".
var letHaveUntil = regexp.MustCompile(`(?i)\blet\s+(her|him|them|\x{E000})\s+have\s+(?:until|till|another|more|an?\s+extra|(?:[\pL\d]+\s+)?(?:more|extra)\s+(?:days?|weeks?|months?))\b`)

// haveGoInstead is having a thing or someone happen, go or come at another
// time: "have the round go out tomorrow instead", "have the inspector come
// on {{date}} instead". Its groups: the thing, then the time — after its
// preposition, which would make a phrasal verb of "move" ("move on"), or a
// word that is the time itself.
var haveGoInstead = regexp.MustCompile(`(?i)\b(?:have|get|let)\s+((?:(?:the|their|our|your|this|that|its|a)\s+)?(?:same\s+)?[\pL-]+|it|them)\s+(?:go\s+out|go|run|happen|take\s+place|set\s+off|start|leave|depart|come\s+round|come\s+around|come\s+up|come|visit|call|arrive)\s+(?:(?:on|at|in)\s+([^,.;:]*?)|(tomorrow|later|next\s+\pL+))\s+instead\b`)

// sendByEmail is sending a thing by email: emailing it.
var sendByEmail = regexp.MustCompile(`(?i)\bsend\s+(.+?)\s+by\s+e-?mail\b`)

// haveStop is having someone stop work on a thing: "have the lab stop
// working on it until she has made up her mind" stops it.
var haveStop = regexp.MustCompile(`(?i)\bhave\s+(?:the|their|our|your|a)?\s*[\pL-]+\s+stop\s+(?:working\s+on|work\s+on|\pL+ing)\s+(it|them|(?:the|this|that|their|her|his|its)\s+[\pL-]+)`)

// putRight is putting or setting a thing right or straight: correcting it.
// "Right" must end the phrase: in "put the right number on it" it is the
// number's adjective, and the request is to set a value.
var putRight = regexp.MustCompile(`(?i)\b(?:put|set|putting|setting)\s+((?:[\pL'’-]+\s+){1,5}?)(?:right|straight)\b(?:\s*(?:$|[,.;:!?—–])|\s+(?:so|on|in|for|before|by|and|but|again|now|today|please)\b)`)

// haveDo is having somebody do a thing, "have the same translator correct
// them": group 1 is who, group 2 the verb.
var haveDo = regexp.MustCompile(`^(?i)\s*(?:please\s+)?have\s+((?:the\s+same|the|her|his|their|our|your|a|an|that|this)\s+(?:[\pL-]+\s+){0,2}?[\pL-]+\s+)(\pL+)\b`)

// dropNote is "drop her a note": to send her one.
var dropNote = regexp.MustCompile(`(?i)\bdrop\s+(her|him|them|\x{E000}|us|me)\s+(?:a|an)\s+`)

// nothingHappens says nothing may be done with a thing until something:
// "nothing more should happen with it until they have answered".
var nothingHappens = regexp.MustCompile(`(?i)\bnothing(?:\s+(?:more|else|further))?\s+(?:should|must|may|can|is\s+to)\s+(?:happen|be\s+done|go\s+ahead)\s+(?:with|to|on)\s+(?:it|them|this|that)\s+until\b`)

// mustNotGoAhead is a thing that must not go ahead or take place: "the
// cremation on case {{id}} must not go ahead", "the match shouldn't be
// played". It asks to stop it.
var mustNotGoAhead = regexp.MustCompile(`(?i)^\s*(?:but\s+|so\s+|and\s+)?((?:the|this|that|its|their|his|her|our)\s+[^,;:]*?)\s+(?:must|should|may|can|is\s+to|are\s+to)\s*(?:not\s+|n[’']t\s+)(?:go\s+ahead|proceed|take\s+place|happen|go\s+on|be\s+(?:carried\s+out|held|played|run))\b`)

// likeInstead is a wish for one thing instead of another, no verb said:
// "she would like twelve bottles in each box instead of six" changes it.
var likeInstead = regexp.MustCompile(`(?i)(?:\bwould\s+like|['’]d\s+like|\bneeds|\bwants)\s+(.+?)\s+instead(?:\s+of)?\b`)

// barred reports whether a clause bars a person from doing a thing.
func barred(raw string) bool {
	m := personBarred.FindStringSubmatch(raw)
	if m == nil {
		return false
	}
	switch lower(m[1]) {
	case "be", "get", "have", "end", "lose", "pay", "receive", "see":
		return false
	}
	return true
}

// getThingAs rewrites a getThing match as the action it asks for.
func getThingAs(m string) string {
	sm := getThing.FindStringSubmatch(m)
	switch tail := lower(strings.Join(strings.Fields(sm[2]), " ")); tail {
	case "onto", "on to":
		return "add " + sm[1] + " to "
	case "off":
		return "take " + sm[1] + " off"
	case "off to":
		return "send " + sm[1] + " to" // "get the work off to the lab"
	case "made", "done":
		return "make " + sm[1]
	default:
		return key(tail) + " " + sm[1]
	}
}

// shouldCost is what a thing should sell or cost for: its price, set.
var shouldCost = regexp.MustCompile(`(?i)^(.*?)\b(?:should|must|has\s+to|needs?\s+to|is\s+to)\s+(?:sell|cost|be\s+priced|be\s+sold|retail|go)\s+(?:for|at)\b`)

// fromNowOn is a time adverb whose "on" is no verb's particle: "let it go
// to {{amount}} a day from now on" is not "go on".
var fromNowOn = regexp.MustCompile(`(?i)\b(from\s+(?:now|then|today|tomorrow|that\s+day|here|\x{E000}))\s+on\b`)

// onceWhen is "once" as a conjunction, "once legal says yes", "once it's
// fixed": when something happens, not only once.
var onceWhen = regexp.MustCompile(`(?i)\bonce(\s+(?:(?:it|they|he|she|we|you)\b|(?:the|our|their|its|his|her)\s+\pL+|\pL+\s+(?:says|said|agrees|agreed|approves|approved|confirms|confirmed|signs|signed|is|are|has|have|was|were)\b))`)

// letKnow is "let … know", which notifies: "let the rotation know".
var letKnow = regexp.MustCompile(`(?i)\blet\s+((?:[\pL'’-]+\s+){0,3}?)know\b`)

// putInName is "put it in {{name}}'s name".
var putInName = regexp.MustCompile(`(?i)\bput\s+(it|them|this|that|the\s+[\pL-]+)\s+in\s+(?:[^\s,;:]+\s+){1,3}?name\b`)

// putPlace is "put" with an object and a place.
// ("Put it in cold storage" moves it to cold storage: not "move in".)
// valueNouns are the values a record holds: to put one on a record is to
// set it there, not to move the record.
var valueNouns = setOf("number", "value", "name", "label", "date", "day", "time", "price", "amount", "figure", "reading", "tag",
	"title", "address", "email", "phone", "code", "rate", "total", "score", "status")

// getItTo is "get it to someone": a delivery, no look-up.
var getItTo = regexp.MustCompile(`(?i)\bget\s+(it|them|this|that|an?\s+copy(?:\s+of\s+(?:it|them|the\s+\pL+))?|(?:the|this|that|its|their|his|her|our)\s+(?:\pL+\s+){0,2}\pL+)\s+(?:over\s+|across\s+|back\s+)?to\s+`)

var putPlace = regexp.MustCompile(`(?i)\bput\s+(it|them|him|her|this|that|these|those|(?:the|this|that|its|their|our|your|my|his|her)\s+[\pL-]+(?:\s+[\pL-]+)?)\s+(there|here|under|below|beneath|above|beside|next\s+to)\b|\bput\s+(it|them|him|her|this|that|these|those|(?:the|this|that|its|their|our|your|my|his|her)\s+[\pL-]+(?:\s+[\pL-]+)?)\s+(?:into|inside|onto|in|on)\b`)

// lightObjectHead is the head noun of the object after a clause's opening
// light verb: "Take one manual snapshot of database …" → snapshot. "" when
// the clause opens otherwise.
func lightObjectHead(clause string) string {
	ws := splitWords(clause)
	if len(ws) < 2 || !lightVerbs[stem(lower(ws[0]))] {
		return ""
	}
	head := ""
	for _, w := range ws[1:] {
		lw := lower(w)
		if lightAdverbs[lw] && head == "" {
			continue // "give just them a nudge": the noun is past the adverb
		}
		if stopWords[lw] {
			if head != "" {
				break
			}
			continue // "one", "a", "the" before the noun
		}
		head = stem(lw)
	}
	return head
}

// lightAdverbs qualify a light verb before its object: "give just them a
// nudge", "take a quick look", "give it one more go".
var lightAdverbs = setOf("just", "only", "simply", "also", "still", "kindly", "gently", "quickly", "quick", "little",
	"small", "friendly", "polite", "gentle", "final", "last", "another", "more")

// notYet is an instruction not to do a thing yet: a hold.
// dontVerb is a clause that opens with a negated imperative: "don't
// offer her one".
var dontVerb = regexp.MustCompile(`^(?i)\s*(?:but\s+)?(?:please\s+)?(?:do\s+not|don't|don’t|dont)\s+\pL+\b`)

var notYet = regexp.MustCompile(`^(?i)\s*(?:but\s+)?(?:please\s+)?(?:do\s+not|don't|don’t|dont)\s+\pL+\b.*\b(?:yet|until)\b`)

// purposeTail is a clause's purpose: "so that it stops paging", "so
// nobody can sign in".
var purposeTail = regexp.MustCompile(`(?i)\bso\s+(?:that\s+)?(?:it|they|he|she|we|you|i|the|this|that|nobody|no\s+one|nothing|people|everyone|its|their|our)\b`)

// byMeans is the means of a request: "by changing its threshold".
var byMeans = regexp.MustCompile(`(?i)\bby\s+(\pL+ing)\b`)

// intentSupportVerbs, before an action noun, lend it their clause: "put a
// hold on seat 4" holds, "issue a refund" refunds, "process the return"
// returns. Before anything else they are the action themselves ("put it
// back").
var intentSupportVerbs = stemSet("put", "place", "issue", "process", "perform", "file", "carry", "initiate", "trigger")

// nounsAfterDeterminers are the stems of the words that follow a
// determiner in a clause: nouns or their modifiers ("give the billing
// service read access", "their money back"), not the clause's verb.
func nounsAfterDeterminers(clause string) map[string]bool {
	var out map[string]bool
	ws := splitWords(clause)
	for i := 1; i < len(ws); i++ {
		if determiners[lower(ws[i-1])] && !stopWords[lower(ws[i])] {
			if out == nil {
				out = map[string]bool{}
			}
			out[stem(lower(ws[i]))] = true
		}
	}
	return out
}

// isIdiomAction reports whether w is what an idiom means ("money back":
// refund).
func isIdiomAction(w string) bool {
	return slices.ContainsFunc(idioms, func(id idiom) bool { return id.as == w })
}

// rewriteIdioms replaces idioms by the action they mean, adding the other
// senses they have to senses (action → senses).
func rewriteIdioms(ws []string, senses map[string][]string) []string {
	for _, id := range idioms {
		for i := 0; i+len(id.words) <= len(ws); i++ {
			if particleAt(ws, i, id.words) > 0 {
				// "take that notice back": the particle after the object.
				// The reader hears the phrasal verb (general English
				// knows it as one) and, as its senses, what the idiom
				// means.
				if senses != nil {
					k := strings.Join(id.words, " ")
					senses[k] = append(append(senses[k], id.as), id.also...)
				}
				break
			}
			if !slices.Equal(ws[i:i+len(id.words)], id.words) {
				continue
			}
			ws = append(append(append([]string(nil), ws[:i]...), id.as), ws[i+len(id.words):]...)
			if senses != nil {
				// The phrase itself stays a sense: "send it back" to
				// its submitter returns it, and an API may call that
				// a rejection.
				senses[id.as] = append(senses[id.as], id.also...)
				senses[id.as] = append(senses[id.as], strings.Join(id.words, " "))
			}
			break
		}
	}
	return ws
}

// particleAt is where the particle of the two-word phrasal verb words
// stands when an object separates it from its verb at ws[i] ("take
// {notice} back"), 0 when it does not.
func particleAt(ws []string, i int, words []string) int {
	if ws[i] != words[0] || !separated(ws, i, words) {
		return 0
	}
	for j := i + 2; j < len(ws); j++ {
		if ws[j] == words[1] {
			return j
		}
	}
	return 0
}

// stoppingVerbs end or block something; said for a while, a reader takes
// them for their reversible kind.
var stoppingVerbs = stemSet("stop", "halt", "cease", "end", "block", "close", "shut", "shut down", "turn off", "switch off",
	"take down", "take offline", "take off", "take out", "freeze", "hold", "suspend", "disable", "deactivate", "remove", "hide")

// temporaryVerbs are the reversible ways of stopping something: a pause
// is a stop for a while.
var temporaryVerbs = stemSet("pause", "suspend", "disable", "hold", "deactivate")

// forAWhile says a stop is meant to last only a while: "for now", "for
// two months", "temporarily", "turn it back on", "pick it up again", "come
// back", "until they're back", "for the next three months", "put it back
// into service", "it should just work again". Not "until" alone ("let it run until the period ends, then end it" ends
// it for good) and not "later".
var forAWhile = regexp.MustCompile(`(?i)\b(?:for\s+(?:now|a\s+while|the\s+time\s+being|(?:a|an|one|two|three|four|six|several|a\s+few|some)\s+(?:days?|weeks?|months?|hours?)|the\s+next\s+(?:\S+\s+)?(?:days?|weeks?|months?|hours?))|temporar(?:y|ily)|back\s+on\b|(?:pick|start)\s+(?:\w+\s+)?up\s+again|(?:work|works|run|runs|function|operate|count)\s+again|(?:come|comes|coming)\s+back|while\s+(?:she|he|they|it|we|you)(?:(?:'|’)(?:s|re)|\s+(?:is|are))\s+(?:away|out|off|gone|abroad|on\s+leave|recovering|travell?ing|in\s+hospital)\b|(?:be|are|is|(?:they|we|you|he|she|it)(?:'|’)(?:re|s))\s+back\b|resume\b|over\s+the\s+(?:weekend|holidays?|break|night)|overnight|(?:need|want)\s+(?:it|them)\s+back|back\s+(?:in|into|on)(?:\s+to)?\s+(?:service|use|operation|production|rotation|sale|the\s+(?:road|air|market|shelves?)))`)

// saysForAWhile: a clause of the goal says the stop is for a while. A
// clause that states how things have been ("the build has been stuck for
// an hour", "it was down for two days") says how long a state lasted, not
// how long the stop is to.
func saysForAWhile(text string) bool {
	for _, c := range clauseBreak.Split(text, -1) {
		if forAWhile.MatchString(c) && !pastState.MatchString(c) || stopUntil(c) {
			return true
		}
	}
	return false
}

// stopUntil: a clause that stops something until a thing happens ("stop
// them borrowing anything until they pay", "hide the course until we have
// fixed it") stops it for a while. "Let it run until the end of the period"
// stops nothing, and "until the end" is when a stop for good begins.
func stopUntil(clause string) bool {
	loc := untilWord.FindStringIndex(clause)
	if loc == nil || periodEnd.MatchString(clause[loc[1]:]) {
		return false
	}
	ws := stems(clause[:loc[0]])
	for i, w := range ws {
		if stoppingVerbs[w] || i+1 < len(ws) && stoppingVerbs[w+" "+ws[i+1]] {
			return true
		}
	}
	return false
}

var (
	untilWord = regexp.MustCompile(`(?i)\b(?:until|till)\b`)
	// periodEnd: "until the end of the period", "until its expiry".
	periodEnd = regexp.MustCompile(`^(?i)\s+(?:the\s+|its\s+|their\s+)?(?:end|close|expiry|expiration|renewal)\b`)
)

// pastState is a clause that says how something has been.
var pastState = regexp.MustCompile(`(?i)\b(?:has|have|had)\s+(?:\w+\s+)?been\b|\b(?:was|were)\s+(?:\w+\s+)?(?:down|stuck|broken|offline|out|running|up|idle|failing)\b|\bago\b`)

// temporaryWeight is how surely a stop said for a while is a pause: as
// surely as a domain lexicon's family member (hide ≈ suspend).
const temporaryWeight = 0.7

// readForAWhile adds the reversible stops as senses of a stopping verb
// when the goal says the stop is for a while: "stop charging them for now
// … so they can pick it up again" asks for a pause, though neither
// WordNet's senses of stop nor the goal's words say pause.
//
// A stop for a while also asks to keep what is stopped: it must still be
// there to start again, so the loss warnings weigh as for a goal that says
// keep.
func (in *intent) readForAWhile(text string) {
	if !stoppingVerbs[in.verb] || !saysForAWhile(text) {
		return
	}
	in.preserve, in.whileOnly = true, true
	for _, k := range slices.Sorted(maps.Keys(temporaryVerbs)) {
		if s := in.addSense(k, temporaryWeight); s != nil {
			s.exact = true
		}
	}
}

// readRemoveButKeep adds hiding as a sense of a removing verb when the
// goal names a thing to keep: "clear them out of the active pipeline, but
// hang on to their profile" takes them out of sight and keeps them, which
// is what archiving does, whatever the words.
func (in *intent) readRemoveButKeep(r *relater) {
	if !in.hasKept() || !r.inFamily(in.verb, "delete", 0.6) && !removingPhrases[in.verb] {
		return
	}
	for _, h := range hideHeads {
		in.addSense(key(h), keptEndWeight)
	}
}

// readRecordThat adds marking as a sense of a recording verb whose object
// is a fact: "log that they've got it", "note that it was paid" ask to
// mark the record so, not to create one.
func (in *intent) readRecordThat(text string) {
	m := recordThat.FindStringSubmatch(text)
	if m == nil || key(m[1]) != in.verb {
		return
	}
	for _, k := range []string{"mark", "record", "note"} {
		in.addSense(key(k), wordingSenseWeight)
	}
}

// recordThat is a recording verb with a that-clause for its object.
var recordThat = regexp.MustCompile(`(?i)\b(log|note|record|register|report|flag|mark)\s+(?:down\s+)?that\b`)

// removingPhrases take a thing out of where it is: with something kept,
// a hiding.
var removingPhrases = stemSet("take out", "take off", "clear out", "get out", "pull out", "drop off")

// hasKept: the goal names a thing to keep.
func (in *intent) hasKept() bool {
	return slices.ContainsFunc(in.words, func(w intentWord) bool { return w.kept })
}

// newValueWeight is how surely a goal that gives a record's field a new
// value asks for an update: likely, as a particle's sense is.
const newValueWeight = particleWeight

// wordingSenseWeight is the weight of a sense the wording gives an action
// besides the one it reads first: an idiom's other sense ("take it back" as
// withdrawing, where it reads first as returning), a reported request's
// verb, a magnitude verb's plain sense.
const wordingSenseWeight = 0.7

// readNewValue adds update as a sense of an intent when the agent was
// given a new value for a field of the goal's target record (a knows key
// new_email, new_plan): whatever its verb ("downgrade", "switch over"), a
// goal that hands the reader a record's new field value asks for that
// field to change in place.
func (in *intent) readNewValue(keys []string, fields func(string) bool) {
	if in.reads {
		return
	}
	for _, k := range keys {
		if rest, ok := strings.CutPrefix(k, "new_"); ok && fields(rest) {
			for _, h := range updateHeads {
				in.addSense(key(h), newValueWeight)
			}
			return
		}
	}
}

// opensWithVerbAndObject reports whether a clause starts with a word
// followed by an object ("end it then", "end the trial"): whatever general
// English mostly uses that word for, there it is in a verb's place.
func opensWithVerbAndObject(clause string) bool {
	f := strings.Fields(strings.ToLower(clause))
	if len(f) < 2 || stopWords[f[0]] || leadWords[f[0]] {
		return false // "After that they'd like it to go on": no verb and object
	}
	return intentObjects[strings.Trim(f[1], ",.;:!?")]
}

// leadWords open a subordinate clause or a prepositional phrase, never an
// imperative: "after that", "since then", "during this".
var leadWords = setOf("after", "before", "until", "till", "since", "when", "whenever", "while", "during", "despite",
	"except", "without", "with", "for", "from", "by", "at", "on", "as", "like", "unlike", "then", "so", "because",
	"although", "though", "unless", "once", "given", "besides", "beyond", "throughout", "within")

var intentObjects = setOf("it", "them", "this", "that", "these", "those", "the", "its", "their", "his", "her", "my", "our", "your")

// whenLater says a goal's action is to take effect later, not at once:
// "… until the end of the period they paid for, and end it then", "close
// it at the end of the month", "when the trial runs out".
var whenLater = regexp.MustCompile(`(?i)\b(?:\w+\s+(?:it|them)\s+then\b|at\s+the\s+end\s+of|until\s+the\s+end|when\s+[^,;:]*\b(?:ends?|is\s+over|runs?\s+out|expires?))`)

// readWhen marks an intent whose action is to take effect later.
func (in *intent) readWhen(text string) { in.later = whenLater.MatchString(text) }

// alreadyDone is a clause in which the speaker reports what was done
// already: "so we had to call the lesson off", "we cancelled it this
// morning", "I already refunded her". It tells the situation; when a goal
// asks for nothing in the imperative ("it mustn't count as one of her
// lessons"), its verb is still not the request.
var alreadyDone = regexp.MustCompile(`^(?i)\s*(?:(?:so|and|but|then|which)\s+)?(?:we|i)\s+(?:(?:had\s+to|already|just)\s+\pL+|\pL+ed\b)`)

// narratedEvent is a clause that tells what somebody did, in the past:
// "{{name}} came in to give blood this morning", "the nurse sent her
// home", "she rang to say …". Like what the speaker reports having done,
// it is the situation the request answers, never the request. Its group
// is the word after the subject, a past tense when narrates says so.
var narratedEvent = regexp.MustCompile(`^(?i)\s*(?:(?:so|and|but|then|which)\s+)?(?:she|he|they|it|(?:the|a|an|our|their|his|her)\s+\pL+|\x{E000}(?:\s*\(\s*\x{E000}\s*\))?)\s+(?:(?:has|have|had)\s+)?(\pL+)\b`)

// deniedPhrase reports whether a word, or a phrase's verb, is negated:
// "asked to come before June" under a negation denies "come before".
func deniedPhrase(denied map[string]bool, w string) bool {
	first, _, _ := strings.Cut(w, " ")
	return denied[w] || denied[first]
}

// narrates reports whether a clause tells what somebody did and nothing
// more: "the damage came to {{amount}}, fix the claim" goes on past its
// comma to the request, and what was changed to a value ("she has changed
// her email address to {{email}}") is the value the record is to take.
func narrates(clause string) bool {
	m := narratedEvent.FindStringSubmatch(clause)
	return m != nil && pastTense(lower(m[1])) && !strings.ContainsAny(clause, ",;") && !toValue.MatchString(clause)
}

// pastTense reports whether a lower-case word is a verb's past: -ed, or an
// irregular form the general layer knows (came, rang), not a form of be,
// have or do, which tell a state ("her iron was too low").
func pastTense(w string) bool {
	if strings.HasSuffix(w, "ed") {
		return true
	}
	return pastLemmas[w] || defaultGeneral.irregularVerb(w) && !auxiliaryStems[defaultGeneral.stem(w)]
}

var auxiliaryStems = stemSet("be", "have", "do")

// pastLemmas are past tenses that are lemmas of their own, which the
// general layer does not fold ("to fell a tree"): after a subject they
// are the past ("she fell off her bike").
var pastLemmas = setOf("fell", "lay", "rose", "bore", "wound", "ground")

var toValue = regexp.MustCompile(`(?i)\bto\s+(?:(?:a|an|the|her|his|their|its)\s+)?\x{E000}`)

// negatedOr is a verb joined by "or" to a negated one, in the same clause.
// "She shouldn't be booked in or asked to come" negates what she would
// be asked to do.
var negatedOr = regexp.MustCompile(`(?i)(?:\b(?:not|never)|n[’']t)\s[^,;:.]*?\bor\s+(?:be\s+|get\s+)?(?:(?:asked|told|invited)\s+to\s+)?(\pL+)`)

// forbiddenActions is what goal text says must not happen, as action keys
// of the lexicons: a verb negated ("don't delete it", "it mustn't be
// charged") or one nobody may do ("make sure nobody books …"). The
// intent's own verb and its senses are left out: "charge her once, she
// mustn't be charged twice" still asks to charge.
func forbiddenActions(text string, in *intent, r *relater) []string {
	var out []string
	add := func(k string) {
		if !r.isActionWord(k) || k == in.verb || slices.Contains(out, k) {
			return
		}
		for _, s := range in.senses {
			if s.key == k {
				return
			}
		}
		out = append(out, k)
	}
	for _, m := range nobodyDoes.FindAllStringSubmatch(text, -1) {
		add(stem(lower(m[1])))
	}
	for _, k := range slices.Sorted(maps.Keys(negatedWords(text))) {
		add(k)
	}
	return out
}

// nobodyDoes is an action nobody may do: "nobody books", "no one can
// open it", "no-one should delete".
var nobodyDoes = regexp.MustCompile(`(?i)\b(?:nobody|no\s+one|no-one)\s+(?:(?:may|can|must|should|will|gets?\s+to)\s+)?(\pL+)`)
