package personas

import (
	"regexp"
	"slices"
	"strings"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/wordnet"
)

// A view is what an agent at one attention level sees of one tool: the
// words it matches against the goal, where the tool names its action, the
// warning, reassurance and promotional cues it noticed, whether it saw that
// the tool only reads, the redirects ("use X instead") it read, and whether
// the tool's name, annotations and text disagree about what it does.
type view struct {
	name    []string // the keys of the tool's name
	verb    string   // the name's action word
	removes bool     // the name's action removes something (delete_, purge_): its permanence is loss
	// object is what a tool that makes or sends a thing names as that thing
	// (create_tag: tag). A goal whose verb is that noun asks for what the
	// tool does: to tag a commit is to create a tag on it, to label an
	// issue to add a label.
	object  []string
	verbs   []string // keys in a verb's place: the name's verb, each prose sentence's action word
	words   []string // every key read in prose, the name and parameter docs, but negated ones
	aside   []string // keys read in Returns/Raises sections: context, never the action
	negated []string // keys a denial negates ("this is not a refund", "When not to use: …")
	also    []string // actions joined to another ("Return an order and refund it"): done in the same call
	cues    [cueKinds]float64
	promo   float64 // promotional cues ("the best", "always use this"), weighed by credulity
	now     float64 // says it acts at once ("immediately", "ends now"), weighed when the goal says later
	// temporary says the text gives its action a while to last ("for
	// one to six months", "resumes by itself"): a stop it describes is a
	// stop for a while, whatever its verb.
	temporary float64
	readOnly  bool
	redirects []redirect
	disagree  string // how name, annotations and text disagree; "" when they agree
	// situations are the "Use this when …" clauses read: when the text
	// says to use the tool, in its own words (stems), and as written.
	situations []situation
	seen       []string // the sentences read, for explanations
	// opening is the sentence every tool opens with, when it was all a
	// reader of one sentence read of this one (for explanations).
	opening   string
	textWords int // content words read in the description (not the name, not parameter docs)
}

// redirect is a sentence of one tool's text that sends the reader to
// another tool ("to hide a contact, use archive_contact instead") or away
// from one ("use this — not delete_contact", "prefer this over X"). Its
// purpose words say when it applies; the sentence's own words describe the
// other tool and do not count for this one.
type redirect struct {
	other   int  // the tool mentioned
	away    bool // true: score moves from other to this tool; false: from this tool to other
	purpose []string
	// verb is the purpose's action ("change" in "To change the type, use
	// modify_instance"), "" when it names none ("use X instead"). A
	// redirect is about a goal only as far as the goal asks that action:
	// launching a new instance is not changing the type of one, however
	// many words the two share.
	verb string
}

// situation is one "Use this when a claimant withdraws a claim": the
// clause's content words and the sentence as written.
type situation struct {
	words []string
	text  string
	// example: an "as when …" clause, a case the tool is for told as a
	// scene ("as when she knows its director"); it names a state as often
	// as an action, so it needs no action word to match.
	example bool
}

// asWhen is a tool text's example of when it applies: "Recuse a juror
// from one entry, as when she knows its director or worked on the film".
var asWhen = regexp.MustCompile(`(?i)\bas\s+when\s+([^:;.]+)`)

// useWhen is a sentence that says when to use the tool, not what it does:
// "Use this when a card is lost or stolen", "Use it if the latest deploy
// broke the site", "Use this for someone who forgot their password",
// "Clients SHOULD call this when the patient missed the visit".
var useWhen = regexp.MustCompile(`^(?i)(?:(?:clients|callers|agents|users|you)\s+(?:should|must|may|can)\s+)?(?:use|call|choose)\s+(?:this|it)(?:\s+(?:tool|endpoint|one))?\s+(?:when|whenever|if|after|for)\s+(.+)$`)

// Cue kinds: warnings and reassurances about losing data (weighed when the
// goal says keep/preserve/without) and about repeating (weighed when it
// says once/only).
const (
	cuePreserveWarn = iota
	cuePreserveReassure
	cueRepeatWarn
	cueRepeatReassure
	// cueLasting is the part of the loss warnings that only says the
	// action lasts ("for good", "permanently", "cannot be undone"): no
	// warning to a goal that asks for it to last.
	cueLasting
	cueKinds
)

var cueKindNames = [cueKinds]string{"loss warning", "keeps data", "repeat warning", "safe to repeat", "of which lasting"}

type cue struct {
	kind  int
	words []string
	text  string
}

// cueTexts are matched on stems, so "keeps", "kept" and "keep" are one cue.
// A cue right after a negation ("cannot be undone", "not idempotent",
// "is not permanent") counts as its opposite.
var cueTexts = []struct {
	kind  int
	texts []string
}{
	{cuePreserveWarn, []string{"permanently", "permanent", "irreversible", "irreversibly", "destroy", "erase",
		"all versions", "forever", "purge", "wipe", "unrecoverable", "destructive", "no way back", "irrevocable",
		"irrevocably", "hard delete", "no undo", "lost", "for good", "obliterate", "expunge", "no recovery"}},
	{cuePreserveReassure, []string{"keep", "reversible", "restore", "undo", "recoverable", "recover", "retain",
		"preserve", "history kept", "unarchive", "soft delete", "bring back", "intact", "safe",
		// "… the permit stays on file with its history": the record is kept.
		"stays on file", "remains on file", "stays on record", "remains on record", "kept on file"}},
	{cueRepeatWarn, []string{"each call", "every call", "each time", "every time", "again", "twice", "duplicate", "double"}},
	{cueRepeatReassure, []string{"idempotent", "idempotency", "safe retry", "repeat safe", "at most once", "exactly once",
		"safe to retry", "safely retry",
		// "…, or returns the existing one when an item with the same key
		// already exists": a second call makes nothing new.
		"return existing", "already exist"}},
}

var cues = func() []cue {
	var out []cue
	for _, c := range cueTexts {
		for _, t := range c.texts {
			out = append(out, cue{kind: c.kind, words: stems(t), text: t})
		}
	}
	return out
}()

// promoTexts are assertive, promotional claims: they say nothing about what
// a tool does, yet raise how often some readers pick it.
var promoTexts = func() [][]string {
	var out [][]string
	// One claim, one phrase: "most reliable" is not also "reliable".
	for _, t := range []string{"best", "recommended", "recommend", "most reliable",
		"preferred", "official", "fastest", "most accurate", "accurate", "trusted", "ideal", "perfect", "superior",
		"first choice", "optimal", "guaranteed", "highly", "definitive", "authoritative", "canonical",
		"right tool", "better", "powerful", "robust", "state of the art", "industry leading", "top rated",
		"world class", "use this first", "always use", "most effective", "whenever possible", "go to tool", "should always be used"} {
		out = append(out, stems(t))
	}
	return out
}()

var negations = stemSet("not", "never", "no", "without")

// cueNegations flip a cue: "cannot be undone", "instead of charging again",
// "nothing is lost".
var cueNegations = stemSet("not", "never", "no", "without", "instead", "nothing")

// opposite maps a cue kind to the kind it becomes after a negation.
var opposite = [cueKinds]int{cuePreserveReassure, cuePreserveWarn, cueRepeatReassure, cueRepeatWarn, cueLasting}

// countCues adds the cues found in seq to counts, each at weight w. A
// reassurance that is the sentence's action (at index action) is what the
// tool does, not a promise about its consequences: "Restore an archived
// contact" does not reassure a reader who wants to keep data.
func countCues(seq []string, action int, w float64, tc cueContext, counts *[cueKinds]float64) {
	removal := tc.removes || anyRemoval(seq)
	for _, c := range cues {
		for i := 0; i+len(c.words) <= len(seq); i++ {
			if !slices.Equal(seq[i:i+len(c.words)], c.words) {
				continue
			}
			kind := c.kind
			if precededBy(cueNegations, seq, i) { // "cannot be undone"
				kind = opposite[kind]
			}
			if kind == cuePreserveWarn && permanence[c.text] && !removal {
				break // "pin a name on a commit, for good": lasting, nothing lost
			}
			if c.text == "lost" && (markedAs(seq, i) || slices.Contains(tc.name, seq[i])) {
				break // "record a copy as lost", mark_loan_lost: a status the tool records
			}
			if c.text == "lost" && kind == cuePreserveWarn && losesAccess(seq, i) {
				break // "they lose access to it": shut out, nothing of theirs is gone
			}
			if i == action && kind == cuePreserveReassure {
				continue
			}
			counts[kind] += w
			if kind == cuePreserveWarn && (permanence[c.text] || c.kind == cuePreserveReassure && undoable[c.text]) {
				counts[cueLasting] += w // "for good", "cannot be undone"
			}
			break // a cue counts once per text
		}
	}
}

func countPromo(seq []string, w float64) float64 {
	n := 0.0
	for _, p := range promoTexts {
		if containsRun(seq, p) {
			n += w
		}
	}
	return n
}

// redirectVerbs make a sentence that mentions another tool a redirect.
var redirectVerbs = stemSet("use", "call", "prefer", "try", "instead", "see", "consider", "switch", "choose", "pick",
	"go", "opt", "refer", "rather", "want", "run", "invoke")

// verbParticles after a redirect verb make it another verb: pick up, go
// back, try out, switch off.
var verbParticles = stemSet("up", "off", "back", "out", "down", "on", "ahead")

// awayWords right before a mention send the reader away from that tool:
// "not X", "instead of X", "rather than X", "prefer this over X".
var awayWords = stemSet("not", "never", "no", "instead", "rather", "over", "avoid", "unlike")

// redirectWords are not purpose words.
var redirectWords = stemSet("use", "call", "prefer", "try", "instead", "not", "never", "rather", "tool", "see", "consider",
	"switch", "choose", "pick", "go", "opt", "refer", "over", "avoid", "want", "unlike", "no", "run", "invoke")

// emphasis is how much more a cue in capitals weighs.
const emphasis = 1.5

// toolText is a tool's description as read: its segments, with boilerplate
// marked by the model.
type toolText struct {
	segs []segment
}

// skimWords is a skimmer's word budget: it reads on into the next
// informative sentence while it has seen fewer content words than this, so
// a layout that spreads one sentence's facts over short lines shows a
// skimmer as much as one long first sentence does. FirstSentence, which
// names the sentence itself, reads on only past a single word.
const (
	skimWords          = 8
	firstSentenceWords = 2
)

// skimmed returns the indices of the segments a reader of first sentences
// sees: the first informative prose sentence — and the next too while it
// has seen fewer than budget content words ("Delete." / "The item can no
// longer be sold." then "Its history is kept.") — never boilerplate, titles
// or section content.
func (tt *toolText) skimmed(budget int) []int {
	out, _ := tt.skim(budget)
	return out
}

// skim is skimmed, and the shared opening a reader of one sentence stopped
// at ("" when it read past or there is none), for explanations: the one
// sentence it read of the tool said what every tool says.
func (tt *toolText) skim(budget int) (out []int, opening string) {
	// A budget that lets a reader past a single word only is a reader of
	// one sentence (seeLead, FirstSentence).
	oneSentence := budget == firstSentenceWords
	words, read, scenes := 0, 0, 0
	for i := range tt.segs {
		s := &tt.segs[i]
		if s.role == roleTitle && read == 0 && !s.boiler {
			// A title over the text ("✏️ Rename / change topic") is the
			// first thing a skimmer's eye meets; it costs no budget.
			out = append(out, i)
			continue
		}
		if read == 0 && scenes < 2 && s.role == roleBody && !s.boiler && setsTheScene(strings.TrimSpace(s.text)) {
			// "Say a pilot's medical is pending." before "Ground her: …",
			// "Place going to sit empty for a while?", "Use this when a
			// customer leaves the property": the scene a text opens with
			// is read, and the skimmer reads on to what the tool does.
			out = append(out, i)
			scenes++
			continue
		}
		if s.boiler && read == 0 {
			// The sentence every tool opens with is read, and learned to
			// be the same everywhere, at the cost of the budget: a
			// skimmer gives the one after it less room. A reader of one
			// sentence has read its sentence when that opening reads as
			// what the tool does ("Manages members, bookings and
			// building access for the co-working space through the
			// Workspace API."), and goes by the name; reference ("This
			// tool is part of the Acme API.") it reads past. A skimmer
			// reading on to its budget reads past either.
			words += len(stems(s.text))
			if oneSentence && s.doing {
				return out, s.text
			}
			continue
		}
		if !s.informative() {
			continue
		}
		if read > 0 && s.sectioned && !tt.segs[out[len(out)-1]].sectioned {
			break // the summary ended at a section header ("NOTES")
		}
		if read > 0 && s.label {
			// A line with an icon of its own ("⚠️ It is removed from the
			// donor's history") is the next item of an emoji layout: a
			// reader of first lines stops at it, and takes in its cues at
			// a glance only (noticeCues).
			break
		}
		out = append(out, i)
		read++
		if s.summary {
			break // "summary: Relabel a sample": the description: is a section below
		}
		words += len(stems(s.text))
		if words >= budget || read == 2 {
			break
		}
	}
	return out, ""
}

// setsTheScene reports whether a sentence says when the tool is for, not
// what it does: a situation of its own ("For a student who has moved
// away."), a question the tool answers ("Customer off to a new home?"), or
// a "Use this when …" whose clause names no action of the tool's ("Use
// this when a customer leaves the property for good"). A skimmer reads it
// and goes on to the sentence that says what the tool does.
func setsTheScene(text string) bool {
	if situationOnly.MatchString(text) || strings.HasSuffix(text, "?") {
		return true
	}
	m := useWhen.FindStringSubmatch(text)
	return m != nil && !wantsTo.MatchString(m[1])
}

// wantsTo opens a "Use this when" clause that names the action after all:
// "Use this when you want to suspend supply …".
var wantsTo = regexp.MustCompile(`^(?i)(?:you|the user|a user|someone|they)\s+(?:want|wants|need|needs)\s+to\b`)

// salient reports whether a segment catches a skimmer's eye although it is
// not the first sentence: a warning label or emoji, or capitals. A skimmer
// notices its cues, not its words.
func (s *segment) salient() bool {
	return !s.boiler && s.role != roleExample && (s.label || s.caps && s.role == roleWarning)
}

// toolNames is what a reader knows of every tool's name while it reads
// one: which words are tool mentions, and each tool's action word.
type toolNames struct {
	index map[string]int
	names []string // lower-case, as a text writes them
	verbs []string
}

func newToolNames(w *engine.World, r *relater) *toolNames {
	tn := &toolNames{index: make(map[string]int, len(w.Tools)), names: make([]string, len(w.Tools)), verbs: make([]string, len(w.Tools))}
	for i, t := range w.Tools {
		tn.index[t.Name] = i
		tn.names[i] = lower(t.Name)
		name, raw := nameOf(t, r)
		tn.verbs[i] = nameVerb(name, raw, r)
	}
	return tn
}

// nameOf is a tool name's keys and its words as written.
func nameOf(t *engine.Tool, r *relater) ([]string, []string) {
	raw := strings.Fields(nameWords(t.Name))
	name, _ := r.augment(stems(strings.Join(raw, " ")))
	return name, raw
}

// buildViews computes a tool's views, one per attention level, from its text.
func buildViews(t *engine.Tool, self int, tt *toolText, tn *toolNames, r *relater) [attentionLevels]view {
	name, _ := nameOf(t, r)
	verb := tn.verbs[self]
	var out [attentionLevels]view
	skim := tt.skimmed(skimWords)
	lead, opening := tt.skim(firstSentenceWords)
	// What the name says is the same at every level: read once.
	named := view{name: name, verb: verb, removes: verb != "" && (removalStems[verb] || r.inFamily(verb, "delete", 0.6))}
	if verb != "" {
		if makesThing(verb, r) {
			for _, w := range name {
				if w != verb && !stopWords[w] {
					named.object = append(named.object, w)
				}
			}
		}
		named.verbs = append(named.verbs, verb)
		if k, ok := r.compounds[verb]; ok {
			named.verbs = append(named.verbs, k) // rollback_deploy rolls back
		}
		if supportVerbs[verb] {
			if n := supportedNoun(name, r); n != "" {
				named.verbs = append(named.verbs, n) // place_hold holds
			}
		} else if carryVerbs[verb] {
			if n := mentVerb(name, r); n != "" {
				named.verbs = append(named.verbs, n) // send_payment pays
			}
		}
	}
	// A name that destroys ("purge_records") warns; one that restores is an
	// action, not a reassurance.
	countCues(name, -1, 1, named.cueContext(), &named.cues)
	named.cues[cuePreserveReassure], named.cues[cueRepeatReassure] = 0, 0
	for lv := seeName; lv <= seeEverything; lv++ {
		v := named
		v.words = append([]string(nil), name...)
		v.verbs = slices.Clone(named.verbs) // each level appends its text's
		var prev *sentenceRead
		switch lv {
		case seeLead, seeFirst:
			seen := skim
			if lv == seeLead {
				seen, v.opening = lead, opening
			}
			for i := range tt.segs {
				s := &tt.segs[i]
				if slices.Contains(seen, i) {
					prev = v.read(s, tn, self, r, prev)
				} else if s.salient() {
					v.noticeCues(s)
				}
			}
			// A skimmer reads the signature with the summary: the names of
			// the parameters it must fill ("put_object(bucket, key)" is
			// where an upload goes), not their docs.
			for _, p := range t.Params {
				if p.Required {
					v.words = append(v.words, stems(nameWords(p.Name))...)
				}
			}
		case seeEverything:
			for i := range tt.segs {
				if s := &tt.segs[i]; !s.boiler && s.role != roleExample {
					prev = v.read(s, tn, self, r, prev)
				}
			}
			for _, p := range t.Params {
				ws, _ := r.augment(stems(nameWords(p.Name) + " " + callReturns.ReplaceAllString(p.Description, "${1} answers with")))
				v.words = append(v.words, ws...)
				countCues(ws, -1, 1, v.cueContext(), &v.cues)
			}
			a := t.Annotations
			if a.ReadOnly {
				v.readOnly = true
			}
			if a.Destructive {
				v.cues[cuePreserveWarn]++
				if v.cues[cueLasting] > 0 && v.cues[cuePreserveReassure] > 0 {
					// "Revoke a permit for good …; the permit stays on
					// file": what the annotation calls destructive is
					// that the end lasts, as the text says, not a loss.
					v.cues[cueLasting]++
				}
			}
			if a.Idempotent {
				v.cues[cueRepeatReassure]++
			}
		}
		v.words = appendRoots(v.words)
		v.disagree = disagreement(t, &v, lv, r)
		out[lv] = v
	}
	return out
}

// nameVerb is the word of a tool's name that says what it does: the
// first, unless the first is no action word the lexicons know and general
// English uses it mostly otherwise (a record: order, ticket, meeting) —
// then the last, when that is an action (order_cancel, dns_record_update,
// contactsArchive), or else the first later word a lexicon knows as one.
// A later word written as a gerund names the record, not the action
// (seal_filing seals a filing; it files nothing): raw is the name's words
// as written.
func nameVerb(name, raw []string, r *relater) string {
	if len(name) == 0 {
		return ""
	}
	first, firstRaw := name[0], ""
	gerund := map[string]bool{}
	if len(raw) > 0 {
		firstRaw = raw[0]
		for _, w := range raw[1:] {
			if w = lower(w); strings.HasSuffix(w, "ing") {
				gerund[stem(w)] = true
			}
		}
	}
	if len(name) > 1 && extendsVerb(name, 1) {
		// check_in_loan checks a loan in; it does not look at one.
		if len(name) > 2 && extendsVerb(name, 2) && r.isAction(name[2]) {
			return name[2]
		}
		if r.isAction(name[1]) {
			return name[1]
		}
	}
	if r.isActionWord(first) {
		return first
	}
	share := r.general.verbShare(first)
	if share > nounNameShare && !strings.HasSuffix(firstRaw, "ing") {
		return first // capture_charge, issue_store_credit
	}
	words := plainWords(name)
	if last := words[len(words)-1]; len(words) > 1 && r.isAction(last) && !gerund[last] {
		return last
	}
	for _, w := range words[1:] {
		if r.isActionWord(w) && !gerund[w] {
			return w
		}
	}
	return first
}

// nounNameShare: a first name word general English uses as a verb at most
// this often (or not at all) is taken for the record, not the action.
const nounNameShare = 0.5

// noticeCues adds a salient segment's cues, not its words.
func (v *view) noticeCues(s *segment) {
	seq := stems(s.text)
	w := glanceWeight
	if s.caps {
		w = emphasis
	}
	countCues(seq, -1, w, v.cueContext(), &v.cues)
	if s.role == roleWarning || s.label {
		v.cues[cuePreserveWarn] += w * warningLabelCue
	}
}

// glanceWeight is how much of an icon line's cues a skimmer that does not
// read the line takes in at a glance.
const glanceWeight = 0.5

// warningLabelCue is what a warning label or header says by itself ("⚠️",
// "WARNING:"): be careful with this tool, at half a worded warning.
const warningLabelCue = 0.5

// denial is a sentence that says what the tool is not, or not for: "This
// is not a refund", "It does not look at refunds", "Not for deleting",
// "Don't use this to hide contacts". The words it negates count against
// the tool; elsewhere a negation ("so that a retry cannot charge twice")
// only flips cues. A sentence that opens with "Not" denies only in a
// denial's form ("Not for…", "Not a…"): "Not idempotent: pass request_id so
// that a retry does not create a second event" states a property and
// advice, and the create it mentions is the tool's own action.
var denial = regexp.MustCompile(`^(?i)(?:not (?:for|a|an|the|to|used|meant|intended|suitable|designed|how|what|when|where)\b|never\b|(?:this|it)(?: tool| endpoint)? (?:is not|isn't|does not|doesn't|will not|won't|cannot|can't|never|should not|shouldn't|must not)\b|(?:do not|don't|never|avoid) (?:use|call|using|calling)\b|(?:please )?(?:do not|don't) (?:use|call) (?:this|it)\b)`)

// objectState reports whether a sentence that opens like a denial ("it
// cannot …") says what becomes of the object instead: "it cannot be
// approved or paid while held" is the hold's effect, not a tool denying
// that it holds. "It cannot be used to …" still denies, and so does
// "this cannot be undone", whose "this" is the action.
func objectState(s string) bool {
	loc := passiveState.FindStringIndex(s)
	return loc != nil && !strings.HasPrefix(strings.ToLower(s[loc[1]:]), "used")
}

var passiveState = regexp.MustCompile(`^(?i)it\s+(?:cannot|can't|can not|will not|won't|is not|isn't)\s+be\s+`)

// verbFrame is what may stand before a sentence's action word: adverbs
// ("Permanently delete…"), "This tool deletes…", "Use this to delete…",
// "Lets you delete…", "Used to delete…".
var verbFrame = regexp.MustCompile(`^(?i)(?:(?:[a-z]+ly|simply|just|also|now)\s+)*(?:(?:this|the|that)\s+(?:tool|endpoint|function|method|operation|api|action|command|call|route)\s+(?:will\s+|can\s+|lets\s+you\s+|allows\s+you\s+to\s+|is\s+used\s+to\s+|helps\s+(?:you\s+)?(?:to\s+)?)?|(?:use|call)\s+(?:this|it)(?:\s+tool|\s+endpoint)?\s+to\s+|(?:lets|allows|enables)\s+you\s+to\s+|lets\s+you\s+|(?:can\s+be\s+|is\s+)?used\s+to\s+|you\s+can\s+|helps\s+(?:you\s+)?(?:to\s+)?|it\s+|will\s+)?(?:(?:[a-z]+ly)\s+)*`)

// itSubject opens a sentence with "it" as its subject.
var itSubject = regexp.MustCompile(`^(?i)(?:[a-z]+ly\s+)*it\s`)

// alsoVerb finds an action joined to the sentence's own: "Return a
// delivered order and refund it", "…, then notifies the owner".
var alsoVerb = regexp.MustCompile(`(?i)(?:\band|\bthen|\balso|\bplus)\s+(?:it\s+|also\s+|automatically\s+)?([a-z]+)`)

// readOnlyClaim is a sentence saying the tool only reads: "Read-only.",
// "This tool is read-only", "Read only: …" — not "it becomes read-only".
var readOnlyClaim = regexp.MustCompile(`^(?i)(?:(?:this(?: tool| endpoint)?|it) is )?(?:read[- ]only|does not (?:change|modify|write) anything|never (?:changes|modifies|writes)|only reads)\b`)

// otherAction is a sentence that tells the reader to do something else
// instead: "To hide a contact, archive it instead", "If you only want to
// hide it, deactivate it instead".
var otherAction = regexp.MustCompile(`^(?i)(?:to|if you (?:only |just )?(?:want|need) to|for)\b[^.;]*\binstead\b`)

// attributed reports whether a word names one of the mentioned tools'
// actions (the same word, or one the domain holds closely the same).
func attributed(word string, others map[string]bool, r *relater) bool {
	for o := range others {
		if word == o || r.domain.weight(word, o) >= 0.8 || r.world.weight(word, o) > 0 {
			return true
		}
	}
	return false
}

// outputWords start a sentence that describes output, not an action:
// "Returns the contact's id."
var outputWords = setOf("returns", "yields", "outputs", "responds")

// actionWord is the sentence's action word: the first word after a frame,
// when it is not a stop word — "Charge a customer's card", not "A charge
// is captured once". "" for a sentence that names none.
func actionWord(raw string) string {
	rest := raw[len(verbFrame.FindString(raw)):]
	first := strings.FieldsFunc(rest, func(r rune) bool { return !isWordRune(r) })
	if len(first) == 0 {
		return ""
	}
	w := strings.ToLower(first[0])
	if stopWords[w] || outputWords[w] || strings.Contains(w, "_") {
		return ""
	}
	st := stem(w)
	if itSubject.MatchString(raw) && (len(first) < 2 || !determiners[strings.ToLower(first[1])] && !particleObjects[strings.ToLower(first[1])]) {
		// "It deletes the contact" is the tool acting on its object;
		// "Reboot a device. It restarts and is back online" is the
		// object changing: what the action does, not the action.
		return ""
	}
	if (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing")) && st != w && len(first) > 1 {
		// A participle describing a record ("Archived contacts are
		// hidden…") or a gerund as subject ("Closing a ticket is done
		// with…") names no action of this tool.
		return ""
	}
	if strings.HasSuffix(w, "s") && len(first) > 1 && pluralSubjectNext[strings.ToLower(first[1])] {
		// A plural noun as subject ("Runs already in progress go on",
		// "Jobs that passed are not run again") names no action of this
		// tool; a verb in the third person takes an object ("Runs the
		// pipeline", "Stops a run").
		return ""
	}
	return st
}

// pluralSubjectNext are words that follow a plural noun opening a sentence
// and never a verb's object: relatives, auxiliaries, and the adverbs and
// prepositions that qualify a subject.
var pluralSubjectNext = map[string]bool{"already": true, "still": true, "currently": true, "that": true, "which": true,
	"who": true, "whose": true, "are": true, "were": true, "will": true, "can": true, "cannot": true, "may": true,
	"must": true, "should": true, "have": true, "stay": true, "keep": true, "remain": true, "go": true, "in": true,
	"of": true, "on": true, "from": true, "without": true,
	// "Fields you leave out are cleared": a relative clause.
	"you": true, "we": true, "they": true}

func isWordRune(r rune) bool {
	return r == '\'' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127 && isLetterRune(r)
}

// sentenceRead is what one sentence left for the next: a denial's words,
// which a following "call X" redirect inherits as its purpose.
type sentenceRead struct {
	denied []string
}

// read adds one visible segment: a redirect, or words and cues.
func (v *view) read(s *segment, tn *toolNames, self int, r *relater, prev *sentenceRead) *sentenceRead {
	raw := s.text
	v.seen = append(v.seen, raw)
	// "Remove a filing from public view": what is taken out of view is
	// hidden, not removed.
	raw = outOfView.ReplaceAllString(raw, "hide $1from view")
	// "A repeated key returns the first credit": what a call answers with,
	// not a return of anything.
	raw = callReturns.ReplaceAllString(raw, "${1} answers with")
	toks := tokenize(raw, tn.index)
	seq := make([]string, 0, len(toks))
	hasVerb := false
	for i, t := range toks {
		if t.tool < 0 {
			seq = append(seq, t.word)
			// "resume_subscription picks up where it left off" is the
			// phrasal verb pick up, not a request to pick a tool.
			if redirectVerbs[t.word] && !(i+1 < len(toks) && toks[i+1].tool < 0 && verbParticles[toks[i+1].word]) {
				hasVerb = true
			}
		}
	}
	// "Renaming an existing channel? update_channel.": a question answered
	// with a tool sends the reader there.
	if strings.Contains(raw, "? ") {
		hasVerb = true
	}
	// "Renaming moved to update_channel": a feature that moved to another
	// tool sends the reader there.
	if movedTo.MatchString(raw) {
		hasVerb = true
	}
	v.textWords += len(seq)
	w := 1.0
	if s.caps {
		w = emphasis
	}
	trimmed := strings.TrimSpace(raw)
	role := s.role
	if m := situationOnly.FindStringSubmatch(trimmed); m != nil && role == roleBody {
		// "For a student who has moved away or transferred out.": when to
		// use the tool, said as a sentence of its own (a bullet, a line).
		// Its words describe the situation, as a "Use this when …" does,
		// and are context only, as a Returns section's: its verbs are the
		// situation's ("moved away"), not the tool's.
		v.addSituation(m[1]+m[2], trimmed) // one of the two is empty
		role = roleReturns
	}
	switch role {
	case roleReturns, roleRaises:
		aug, _ := r.augment(seq)
		v.aside = append(v.aside, aug...)
		return nil
	case roleParams:
		aug, _ := r.augment(seq)
		v.words = append(v.words, aug...)
		countCues(seq, -1, w, v.cueContext(), &v.cues)
		return nil
	}
	var reds []redirect
	// "Cancel an order that has not shipped with cancel_order": an
	// instruction whose tool is named as its instrument sends the reader
	// to that tool, whatever else the sentence says.
	instructs := s.role != roleAvoid && !denial.MatchString(trimmed) && actionWord(trimmed) != ""
	for i, t := range toks {
		if t.tool < 0 || t.tool == self {
			continue
		}
		away := awayFrom(toks, i)
		if away && i >= 2 && toks[i-2].word == stem("instead") && !insteadOf(raw, tn.names[t.tool]) {
			// "To pause their pay instead, use hold_pay": the comma ends
			// "instead"; it is no "instead of using hold_pay".
			away = false
		}
		if away && ratherThanThis(raw, tn.names[t.tool]) {
			// "Remove a table — rather than this, use block_table": what
			// is ruled out is this tool; the reader is sent to the other.
			away = false
		}
		instrument := instructs && instrumentMention(raw, tn.names[t.tool])
		if !away && !hasVerb && !instrument && s.role != roleAvoid {
			continue // a mention ("reversible with restore_contact"), not a redirect
		}
		reds = append(reds, redirect{other: t.tool, away: away})
	}
	if len(reds) > 0 {
		var purpose []string
		// "If the buyer wants their money back, use refund_ticket": the
		// purpose read as a goal is, its idioms included.
		for _, w := range rewriteIdioms(purposeWords(raw, tn.names[reds[0].other], seq, tn), nil) {
			if !redirectWords[w] {
				purpose = append(purpose, w)
			}
		}
		if len(purpose) == 0 && prev != nil {
			purpose = prev.denied // "Don't use this to hide contacts; call archive_contact."
		}
		pverb := purposeVerb(purpose, r)
		purpose, _ = r.augment(purpose)
		for i := range reds {
			reds[i].purpose = purpose
			reds[i].verb = pverb
		}
		v.redirects = append(v.redirects, reds...)
		if s.role == roleAvoid {
			v.negated = append(v.negated, purpose...)
		}
		return nil
	}
	if s.role == roleAvoid {
		aug, _ := r.augment(seq)
		v.negated = append(v.negated, aug...)
		return &sentenceRead{denied: aug}
	}
	// A sentence that mentions another tool without sending the reader
	// there ("closing is done with close_ticket", "brought back with
	// restore_contact") names that tool's action: those words are the
	// other tool's, not this one's.
	others := map[string]bool{}
	for _, t := range toks {
		if t.tool >= 0 && t.tool != self && tn.verbs[t.tool] != "" && tn.verbs[t.tool] != v.verb {
			others[tn.verbs[t.tool]] = true
		}
	}
	// "To hide a contact, archive it instead": an instruction to do
	// something else, naming no tool, describes another action.
	elsewhere := len(others) == 0 && otherAction.MatchString(trimmed) && !slices.Contains(seq, v.verb)
	if elsewhere {
		var warn [cueKinds]float64
		countCues(seq, -1, w, v.cueContext(), &warn)
		v.cues[cuePreserveWarn] += warn[cuePreserveWarn]
		v.cues[cueLasting] += warn[cueLasting]
		v.cues[cueRepeatWarn] += warn[cueRepeatWarn]
		return nil
	}
	useWhenMatch := useWhen.FindStringSubmatch(trimmed)
	if m := useWhenMatch; m != nil {
		v.addSituation(m[1], trimmed)
	}
	for _, m := range asWhen.FindAllStringSubmatch(trimmed, -1) {
		n := len(v.situations)
		if v.addSituation(m[1], trimmed); len(v.situations) > n {
			v.situations[n].example = true
		}
	}
	denies := denial.MatchString(trimmed) && !objectState(trimmed)
	action := -1
	if !denies {
		// A title names the tool's action when it opens with one
		// ("✏️ Rename / change topic"), not when it names a thing
		// ("Contacts API").
		if aw := actionWord(trimmed); aw != "" && (s.role != roleTitle || r.isActionWord(aw)) {
			action = slices.Index(seq, aw)
		}
	}
	var denied []string
	negAt := -10
	for i, word := range seq {
		if negations[word] {
			negAt = i
		}
		// "instead of a refund" denies a refund wherever it stands.
		insteadOf := (i >= 1 && seq[i-1] == "instead") || (i >= 2 && seq[i-2] == "instead")
		// "Cancel a ticket without refunding it": without denies what
		// follows it.
		without := i >= 1 && seq[i-1] == stem("without") && r.isAction(word)
		if insteadOf || without || denies && i > negAt && i-negAt <= 4 && !redirectWords[word] {
			v.negated = append(v.negated, word)
			denied = append(denied, word)
			continue
		}
		if len(others) > 0 && attributed(word, others, r) {
			continue
		}
		v.words = append(v.words, word)
	}
	for _, mt := range alsoVerb.FindAllStringSubmatch(trimmed, -1) {
		if w := stem(lower(mt[1])); !lightVerbs[w] && !stopWords[lower(mt[1])] && r.isAction(w) {
			v.also = append(v.also, w)
		}
	}
	if action >= 0 && !(len(others) > 0 && attributed(seq[action], others, r)) {
		v.verbs = append(v.verbs, seq[action])
		if _, first := r.augment(seq[action:]); len(first) > 0 {
			v.verbs = append(v.verbs, first...)
		}
	}
	aug, _ := r.augment(seq)
	v.words = append(v.words, aug[len(seq):]...)
	if noLongerSeen.MatchString(raw) {
		// "… but the public can no longer see it": the tool hides it,
		// in effect, whatever its verb.
		v.words = append(v.words, stem("hide"))
	}
	countCues(lossEventsOut(seq, trimmed, useWhenMatch != nil), action, w, v.cueContext(), &v.cues)
	if s.role == roleWarning {
		v.cues[cuePreserveWarn] += w * warningLabelCue
	}
	v.promo += countPromo(seq, w)
	v.now += w * float64(countNow(seq))
	if lastsAWhile.MatchString(trimmed) {
		v.temporary += w
	}
	if readOnlyClaim.MatchString(trimmed) {
		v.readOnly = true
	}
	if len(denied) > 0 {
		return &sentenceRead{denied: denied}
	}
	return nil
}

// awayFrom reports whether the mention at toks[i] is one the sentence
// sends the reader away from: an away word right before it ("not X",
// "instead of X", "rather than X", "prefer this over X"), or one word
// before a redirect verb that governs it ("do not use X", "instead of
// calling X"). A negation scopes over its own verb: in "an order that has
// not shipped with cancel_order" the "not" negates shipping, not the tool.
func awayFrom(toks []token, i int) bool {
	if i >= 1 && toks[i-1].tool < 0 && awayWords[toks[i-1].word] {
		return true
	}
	return i >= 2 && toks[i-1].tool < 0 && redirectVerbs[toks[i-1].word] && !awayWords[toks[i-1].word] &&
		toks[i-2].tool < 0 && awayWords[toks[i-2].word]
}

// insteadOf reports whether raw says "instead of (using) name".
func insteadOf(raw, name string) bool {
	l := strings.ToLower(raw)
	j := strings.Index(l, name)
	if j < 0 {
		return false
	}
	return insteadOfMention.MatchString(l[:j])
}

// ratherThanThis reports whether raw rules out the tool itself before it
// names tool name: "rather than this, use name", "instead of this one, see
// name".
func ratherThanThis(raw, name string) bool {
	l := strings.ToLower(raw)
	j := strings.Index(l, name)
	return j >= 0 && ratherThanSelf.MatchString(l[:j])
}

var ratherThanSelf = regexp.MustCompile(`\b(?:rather\s+than|instead\s+of)\s+(?:using\s+|calling\s+)?(?:this|it|me)(?:\s+(?:tool|one|endpoint))?\s*[,;:—–-]\s*(?:[a-z]+\s+){0,2}` + "`?" + `$`)

var insteadOfMention = regexp.MustCompile(`instead\s+of\s+(?:[a-z]+\s+)?` + "`?" + `$`)

// instrumentWords name a tool as the means of an instruction: "cancel it
// with cancel_order", "… using archive_contact", "… via close_ticket".
var instrumentWords = []string{"with", "using", "via", "through"}

// instrumentMention reports whether tool name is written in raw right
// after an instrument word (and an optional article).
func instrumentMention(raw, name string) bool {
	low := lower(raw)
	for from := 0; ; {
		j := strings.Index(low[from:], name)
		if j < 0 {
			return false
		}
		j += from
		before := strings.Fields(low[:j])
		if n := len(before); n > 0 {
			last := strings.Trim(before[n-1], "`*\"'(")
			if last == "the" && n > 1 {
				last = before[n-2]
			}
			if slices.Contains(instrumentWords, last) {
				return true
			}
		}
		from = j + len(name)
	}
}

// disagreement is how a tool's name, annotations (seen at full attention)
// and text contradict each other about what it does to data: a delete_
// tool whose text says it archives, a destructive annotation on a text that
// promises to keep everything, an archive_ tool whose text says it erases
// permanently, a read-only annotation on a tool whose text writes. A
// cautious reader trusts such a tool less where data must be kept.
func disagreement(t *engine.Tool, v *view, lv attentionLevel, r *relater) string {
	if lv == seeName {
		return ""
	}
	textVerbs := v.verbs[min(1, len(v.verbs)):]
	if v.verb == "" {
		textVerbs = v.verbs
	}
	// Trashing is not destroying (0.6); purging is (0.8).
	destroys := func(w string) bool { return r.inFamily(w, "delete", 0.8) }
	keeps := func(w string) bool { return r.inFamily(w, "archive", 0.6) && !destroys(w) }
	textDestroys, textKeeps, textWrites := false, false, false
	for _, w := range textVerbs {
		textDestroys = textDestroys || destroys(w)
		textKeeps = textKeeps || keeps(w)
		textWrites = textWrites || destroys(w) || r.inFamily(w, "update", 0.7) || r.inFamily(w, "create", 0.7)
	}
	nameWarns := false
	for _, w := range v.name {
		nameWarns = nameWarns || destroys(w)
	}
	full := lv == seeEverything
	annDestroys := full && t.Annotations.Destructive
	// The cues counted so far include the annotation's own warning.
	textWarns := v.cues[cuePreserveWarn] > 0 && !(annDestroys && v.cues[cuePreserveWarn] <= 1)
	textKeeps = textKeeps || v.cues[cuePreserveReassure] > 0 && !textWarns
	switch {
	case (nameWarns || annDestroys) && textKeeps && !textDestroys && !textWarns:
		if nameWarns {
			return "the name says it destroys; the text says it keeps the data"
		}
		return "annotated destructive; the text says it keeps the data"
	case keeps(v.verb) && (textDestroys || textWarns):
		return "the name says it keeps data; the text says it destroys"
	case full && t.Annotations.ReadOnly && textWrites:
		return "annotated read-only; the text says it writes"
	case full && !t.Annotations.Destructive && (t.Annotations.ReadOnly || t.Annotations.Idempotent) && textWarns && !textDestroys:
		return "annotated non-destructive; the text warns of loss"
	}
	return ""
}

// lastsAWhile is a tool's text saying its action lasts a stated while and
// then ends: "for one to six months", "for up to 90 days", "for a set
// number of days", "temporarily", "resumes by itself on the end date",
// "until you resume it". Said of a stop, it is a pause, as a reader
// understands "Freeze a membership for one to six months" without knowing
// that freezing is pausing; "Freeze a membership." says nothing of the
// kind.
var lastsAWhile = regexp.MustCompile(`(?i)\b(?:for\s+(?:up\s+to\s+|between\s+|at\s+most\s+)?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a\s+few|several|a\s+(?:set|chosen|given|fixed)\s+(?:number\s+of|period\s+of))(?:\s*(?:to|-|–|and|or)\s*(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve))?\s+(?:days?|weeks?|months?|hours?|minutes?|billing\s+(?:periods?|cycles?)|periods?)|for\s+(?:a\s+while|the\s+time\s+being|a\s+(?:set|chosen|fixed)\s+(?:time|period|while))|temporar(?:y|ily)|(?:resumes?|restarts?|reactivates?|unfreezes?|starts?\s+again|picks?\s+up\s+again|comes?\s+back|(?:is|are)\s+(?:lifted|restored|reactivated|resumed))\s+(?:automatically|by\s+itself|on\s+its\s+own|on\s+(?:the|that|a|its)\s+(?:\w+\s+)?(?:date|day))|automatically\s+(?:resumes?|restarts?|reactivates?|ends?|lifts?|expires?)|until\s+(?:you|they|the\s+\w+|someone|it\s+is)\s+(?:resumes?|resumed|unfreezes?|unfrozen|reactivates?|reactivated|lifts?|lifted|unpauses?|unpaused|releases?|released)\b|until\s+(?:resumed|unpaused|unfrozen|lifted|reactivated|released|the\s+(?:end|resume|return)\s+date))`)

// addSituation keeps the words of a clause that says when to use the tool
// (light verbs aside, each once), with the sentence it came from.
func (v *view) addSituation(clause, text string) {
	var sw []string
	for _, w := range stems(clause) {
		if !lightVerbs[w] && !slices.Contains(sw, w) {
			sw = append(sw, w)
		}
	}
	if len(sw) > 0 {
		v.situations = append(v.situations, situation{words: sw, text: text})
	}
}

// situationOnly is a sentence that only says when to use the tool: "For a
// student who has moved away or transferred out.", "For when a student's
// timetable clashes.", "When a card is mislaid." No main clause follows
// (no comma, colon or semicolon), so nothing in it is what the tool does.
//
// "Say a pilot's medical is pending, or a licence check is due." sets a
// scene the same way, commas and all: "say" opens a supposition.
var situationOnly = regexp.MustCompile(`^(?i)(?:(?:for\s+when|for\s+(?:a|an|the|any|every)\s+[\pL-]+(?:\s+[\pL-]+)?\s+(?:who|that|which|whose)|when|whenever|if)\s+([^,;:]+?)|say\s+([^;:]+?))[.!]?$`)

// callReturns is "returns" said of a call or what it is given ("a repeated
// key returns the first booking", "the call returns its id", "Returns the
// new record"): the API sense, output, which a reader does not take for the
// tool giving something back.
var callReturns = regexp.MustCompile(`(?i)(^|\b(?:key|keys|call|calls|request|requests|retry|retries|it|this|tool|endpoint|query|search|lookup|function|method|operation|response|api)\s+(?:then\s+|also\s+|only\s+|just\s+|instead\s+)?)returns\b`)

// outOfView is a thing removed or taken from view or sight: hidden.
var outOfView = regexp.MustCompile(`(?i)\b(?:remove|removes|take|takes|pull|pulls)\s+((?:it|them|this|that|(?:a|an|the|its|their|this|that)\s+[\pL-]+)\s+)(?:out\s+of|from|off)\s+(?:(?:the\s+)?(?:public|general)\s+)?(?:view|sight)\b`)

// noLongerSeen says a text's thing can no longer be seen, or is hidden or
// out of view: the effect of hiding it.
var noLongerSeen = regexp.MustCompile(`(?i)\b(?:can\s*not|can't|cannot|can\s+no\s+longer|no\s+longer)\s+(?:see|view|open|find|read|access)\s+(?:it|them)\b|\b(?:is|are)\s+(?:no\s+longer\s+visible|hidden|not\s+visible|invisible)\s+(?:to|from)\b`)

// someoneLost is someone losing a thing of their own, an event in the
// world a text describes ("as for a donor who has lost their job", "a
// patient who lost their card", "a card lost or stolen"), not the tool
// losing data.
var someoneLost = regexp.MustCompile(`(?i)\b(?:lost|lose|loses|losing)\s+(?:their|his|her|my|our|your|a|an)\b|\blost\s+(?:or|and)\s+stolen\b|\bstolen\s+(?:or|and)\s+lost\b`)

// lossEventsOut is seq with its words of loss blanked where they tell of
// an event in the world — someoneLost, or a "Use this when a card is
// lost" that says when to use the tool, not what it does — so that they
// count as no loss warning; positions stay as they were.
func lossEventsOut(seq []string, raw string, situation bool) []string {
	lost := situation || someoneLost.MatchString(raw)
	unkept := cannotKeepIt.MatchString(raw)
	if !lost && !unkept {
		return seq
	}
	out := slices.Clone(seq)
	for i, w := range out {
		switch {
		case lost && lossWords[w]:
			out[i] = ""
		case unkept && w == "keep" && precededBy(cueNegations, seq, i):
			out[i] = ""
		}
	}
	return out
}

// cannotKeepIt is a keep that someone cannot do to a thing named before
// it, the clause ending at the verb: "a reservation the guest can no
// longer keep", "an appointment they cannot keep". That is someone unable
// to attend, not a tool that keeps nothing ("it does not keep the
// history", "can no longer be kept").
var cannotKeepIt = regexp.MustCompile(`(?i)\b(?:can\s*not|can't|cannot|could\s+not|couldn't|can\s+no\s+longer|could\s+no\s+longer|won't|will\s+not)\s+keep\s*(?:[,:;.)]|$|after\s+all|any\s*more)`)

// losesAccess reports whether the loss at i is of access: "they lose
// access to it", "loses their login". Being shut out is what suspending
// or unenrolling does; it destroys nothing a reader would want kept.
func losesAccess(seq []string, i int) bool {
	for k := i + 1; k < len(seq) && k <= i+3; k++ {
		if accessWords[seq[k]] {
			return true
		}
		if !stopWords[seq[k]] && seq[k] != "all" {
			return false
		}
	}
	return false
}

var accessWords = stemSet("access", "login", "entry")

// lossWords are the stems lossEventsOut blanks.
var lossWords = stemSet("lost", "lose")

// atOnce are the words of a text that says its tool acts at once.
var atOnce = stemSet("immediately", "instantly", "now", "straightaway")

// countNow counts the at-once words of a sentence, and "right away" /
// "straight away".
func countNow(seq []string) int {
	n := 0
	for i, w := range seq {
		if atOnce[w] || w == "away" && i > 0 && (seq[i-1] == "right" || seq[i-1] == "straight") {
			n++
		}
	}
	return n
}

// purposeVerb is the first action word of a redirect's purpose, skipping
// light verbs ("if you want to hide it": hide), or "" when it has none.
func purposeVerb(purpose []string, r *relater) string {
	for _, w := range purpose {
		if !lightVerbs[w] && !stopWords[w] && r.isActionWord(w) {
			return w
		}
	}
	return ""
}

// purposeBreak separates the clauses of a sentence that a redirect's purpose
// does not cross: "Its date and time stay put: to shift when it happens,
// use update_event" sends the reader to update_event for shifting when it
// happens, not for what stays put.
var purposeBreak = regexp.MustCompile(`[:;]|\s[—–-]\s`)

// purposeWords are the words of the clause of raw that names tool (the
// redirect's target), or of the clause before it when that one holds
// nothing but the instruction ("For rescheduling: use update_event"); seq,
// the whole sentence's words, when raw has one clause.
func purposeWords(raw, tool string, seq []string, tn *toolNames) []string {
	breaks := purposeBreak.FindAllStringIndex(raw, -1)
	at := strings.Index(lower(raw), tool)
	if len(breaks) == 0 || at < 0 {
		return seq
	}
	var clauses []string
	from := 0
	for _, b := range breaks {
		clauses = append(clauses, raw[from:b[0]])
		from = b[1]
	}
	clauses = append(clauses, raw[from:])
	for i, c := range clauses {
		if i < len(breaks) && at >= breaks[i][0] {
			continue // the tool is named in a later clause
		}
		words := clauseWords(c, tn)
		if !hasContent(words) && i > 0 {
			return append(clauseWords(clauses[i-1], tn), words...)
		}
		return words
	}
	return seq
}

// clauseWords are a clause's words, tool mentions left out.
func clauseWords(c string, tn *toolNames) []string {
	var out []string
	for _, t := range tokenize(c, tn.index) {
		if t.tool < 0 {
			out = append(out, t.word)
		}
	}
	return out
}

// hasContent reports whether words hold any word but redirect words.
func hasContent(words []string) bool {
	for _, w := range words {
		if !redirectWords[w] {
			return true
		}
	}
	return false
}

// permanence cues say that what a call does lasts. They warn of loss only
// where something is removed — by the sentence ("removed for good") or by
// the tool itself (delete_contact's "This is permanent") — not where a
// call makes something that lasts ("Pin a name on a commit, for good").
var permanence = setOf("permanently", "permanent", "forever", "for good", "irreversible", "irreversibly",
	"irrevocable", "irrevocably", "no way back", "no undo")

// undoable are the reassurances whose negation says only that the action
// lasts: "cannot be undone", "not reversible".
var undoable = setOf("undo", "reversible", "recoverable", "bring back", "restore", "recover")

// removalStems are words that say something is removed or lost.
var removalStems = stemSet("delete", "deleted", "remove", "removed", "erase", "erased", "destroy", "destroyed", "purge",
	"purged", "wipe", "wiped", "drop", "dropped", "discard", "discarded", "lose", "lost", "gone", "vanish", "vanishes",
	"disappear", "terminate", "overwrite", "overwritten", "replace", "replaced", "reset", "throw", "thrown", "cancel",
	"revoke", "forfeit", "forfeits", "obliterate", "expunge", "trash", "clear", "nuke", "scrap", "kill")

func anyRemoval(seq []string) bool {
	for _, w := range seq {
		if removalStems[w] {
			return true
		}
	}
	return false
}

// makesThing reports whether a name's verb makes, gives or sends the thing
// the rest of the name names: create_tag, add_label, send_invoice,
// apply_discount.
func makesThing(verb string, r *relater) bool {
	return r.inFamily(verb, "create", 0.7) || r.inFamily(verb, "send", 0.7) || thingVerbs[verb]
}

var thingVerbs = stemSet("apply", "attach", "set", "put", "post", "assign", "give", "place")

// movedTo is a changelog's redirect: what moved, and where.
var movedTo = regexp.MustCompile(`(?i)\b(?:moved|has moved|was moved|now lives|is now done|now belongs)\s+(?:to|in|into|with|by)\b`)

// markingVerbs record a status: "mark a loan lost", "record a copy as
// lost", "report it lost".
var markingVerbs = stemSet("mark", "marked", "record", "recorded", "report", "reported", "flag", "flagged", "declare",
	"declared", "list", "listed")

// markedAs reports whether the word at i is a status a marking verb up to
// three words before gives: "lost" in "record a borrowed copy as lost" is
// the copy's state, not data the call loses.
func markedAs(seq []string, i int) bool {
	for k := max(0, i-3); k < i; k++ {
		if markingVerbs[seq[k]] {
			return true
		}
	}
	return false
}

// cueContext is what a tool's cues are read against: whether its own verb
// removes something (then its permanence warns of loss), and its name's
// words (a "lost" that mark_loan_lost names is the status it records).
type cueContext struct {
	removes bool
	name    []string
}

func (v *view) cueContext() cueContext { return cueContext{removes: v.removes, name: v.name} }

// supportVerbs carry their action in the noun they take: "place a hold"
// holds, "issue a refund" refunds, "make a reservation" reserves, "file a
// claim" claims. The verb itself says little more than "do".
var supportVerbs = stemSet("place", "put", "make", "take", "give", "issue", "file", "lodge", "raise", "perform", "conduct",
	// schedule_secret_deletion deletes, later; request_refund refunds.
	"schedule", "request", "initiate", "submit", "queue", "grant")

// supportedNoun is the action a support verb's noun names in a tool's
// name: the head of the noun after the verb, its last word (place_hold
// holds, issue_refund refunds, issue_store_credit credits), "" when that is
// no action word (put_object puts). Only names are read so: in prose the
// word after "give" may qualify the object ("Give a suspended user their
// access back"), which a stem cannot tell from the noun.
func supportedNoun(name []string, r *relater) string {
	name = plainWords(name)
	if len(name) < 2 {
		return ""
	}
	w := name[len(name)-1]
	if stopWords[w] {
		return ""
	}
	// "grant_extension" extends, "request_suspension" suspends: the stem
	// of an -sion noun ("extens") is its verb's with -d ("extend").
	if v, ok := strings.CutSuffix(w, "ns"); ok && r.isAction(v+"nd") {
		return v + "nd"
	}
	// "issue_payment" pays: a -ment noun's verb.
	if v := mentNounVerb(w, r); v != "" {
		return v
	}
	if r.isAction(w) {
		return w
	}
	return ""
}

// carryVerbs send or carry out what their -ment noun names: send_payment
// pays, process_shipment ships. Other nouns after them are things sent
// (send_transcript, send_notice), no action.
var carryVerbs = stemSet("send", "process", "execute", "dispatch")

// mentVerb is the verb of a name's last word when it is a -ment noun whose
// verb is an action ("payment": pay), "" otherwise.
func mentVerb(name []string, r *relater) string {
	if name = plainWords(name); len(name) < 2 {
		return ""
	}
	return mentNounVerb(name[len(name)-1], r)
}

// mentNounVerb is the verb of a -ment noun when it is an action
// ("payment": pay), "" otherwise.
func mentNounVerb(w string, r *relater) string {
	if v, ok := strings.CutSuffix(w, "ment"); ok && len(v) >= 3 && r.isAction(v) {
		return v
	}
	return ""
}

// appendRoots adds the root of every negative un- word a tool's text uses
// as a word of its own: "mark it unschedulable" is about scheduling, as a
// goal that asks that no pods get scheduled is. Only the context counts it
// (the tool's action is matched on its verbs, where unarchive stays the
// opposite of archive), and only a root general English knows, of four
// letters or more: "under", "unique" and "until" keep their words.
func appendRoots(words []string) []string {
	n := len(words)
	for _, w := range words[:n] {
		if root, ok := strings.CutPrefix(w, "un"); ok && len(root) >= 4 && !strings.Contains(w, " ") && wordnet.POSOf(root) != 0 && !slices.Contains(words, root) {
			words = append(words, root)
		}
	}
	return words
}

// plainWords is a name's keys without the phrase keys augment appended
// after them ("check in" after check, in).
func plainWords(name []string) []string {
	for len(name) > 0 && strings.Contains(name[len(name)-1], " ") {
		name = name[:len(name)-1]
	}
	return name
}
