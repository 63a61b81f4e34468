package personas

import (
	"maps"
	"slices"
	"strings"
)

// The reader model knows words at three layers, strongest first:
//
//   - a world's own `lexicon:` entries: its author says these words mean the
//     same thing there, so they count fully for every reader, literal or not;
//   - the built-in domain lexicon below: what any agent that has used
//     record-keeping APIs knows and no dictionary says (hiding a contact is
//     archiving it; renaming a record is updating it);
//   - general English (relate.go): synonyms, derived forms and one step of
//     hypernymy, each at its sense-frequency weight.
//
// The domain layer overrides general English: where it relates two words,
// or holds them opposite, a dictionary's view of the pair is not asked.

// lexicon holds weighted relations between keys. A key is a stem, or the
// stems of a phrase joined by one space ("look up", "call off").
type lexicon struct {
	words map[string]map[string]float64 // key → related key → weight
}

// relation is a group of words related to each other at one weight (a
// clique), or, when pair is set, a relation between the first word and
// each of the others only.
type relation struct {
	weight float64
	pair   bool
	words  []string
}

func group(w float64, words ...string) relation { return relation{weight: w, words: words} }
func pair(w float64, from string, to ...string) relation {
	return relation{weight: w, pair: true, words: append([]string{from}, to...)}
}

// family relates each member to every head word at weight w, and members
// not to each other: renaming and rescheduling are both updates, but
// renaming is not rescheduling.
func family(w float64, heads []string, members ...string) []relation {
	out := make([]relation, 0, len(heads))
	for _, h := range heads {
		out = append(out, pair(w, h, members...))
	}
	return out
}

var (
	hideHeads    = []string{"hide", "archive", "deactivate"}
	deleteHeads  = []string{"delete", "remove", "destroy", "erase"}
	updateHeads  = []string{"update", "change", "edit", "modify"}
	createHeads  = []string{"create", "add", "insert"}
	cancelHeads  = []string{"cancel", "void"}
	restoreHeads = []string{"restore", "unarchive", "undelete", "recover"}
	findHeads    = []string{"find", "search", "look up", "lookup", "get", "fetch", "retrieve", "list"}
	sendHeads    = []string{"send", "email", "mail"}
)

// builtinLexicon is what every agent knows about the words of tool APIs.
// The weights say how safely one word stands for another: hiding is
// archiving, but "remove from the list" only sounds like hiding (0.6) —
// which is exactly the misreading an ambiguous "Remove a contact" invites.
var builtinLexicon = slices.Concat(
	[]relation{
		group(1.0, "hide", "archive", "deactivate", "conceal"),
		pair(0.75, "hide", "remove"),
		group(1.0, "remove", "delete", "destroy", "erase"),
		group(1.0, "refund", "reverse", "return money", "reimburse", "pay back", "repay"),
		group(1.0, "send", "email", "mail"),
		group(1.0, "replace", "overwrite"),
		group(1.0, "update", "change", "edit", "modify", "set", "alter", "amend"),
		group(0.8, "find", "look up", "search", "get", "list", "fetch", "lookup", "retrieve", "query"),
		group(1.0, "cancel", "void", "call off", "abort"),
		pair(0.8, "return", "send back", "take back", "bring back"),
		// What is sent back goes back: "it goes back to the employee".
		pair(0.8, "return", "go back"),
		group(1.0, "charge", "bill"),
		pair(0.8, "charge", "pay", "collect", "debit"),
		group(1.0, "reply", "respond", "answer"),
		group(0.8, "upload", "put", "write", "save", "store"),
		group(1.0, "trash", "bin"),
		group(1.0, "create", "add", "new", "insert", "register"),
		group(1.0, "restore", "unarchive", "undelete", "recover", "reinstate", "reactivate", "bring back"),
		// "Put it back the way it was": undoing a change restores.
		pair(0.8, "restore", "put back", "revert"),
		// Putting a thing off moves it later: a pause of what is scheduled,
		// a change of when.
		group(0.9, "postpone", "delay", "defer", "put off", "hold off", "push back", "push out"),
		pair(0.7, "pause", "hold off", "put off"),
		pair(0.8, "decline", "turn down"),
		// Making a thing live publishes it.
		group(0.8, "publish", "go live", "make live", "make public"),
		pair(0.7, "remove", "take off"),
		// Telling someone: to acknowledge a page or an invitation is to
		// let its sender know it was seen.
		group(0.8, "notify", "let know", "inform", "tell"),
		pair(0.6, "acknowledge", "let know", "notify"),
		group(1.0, "decline", "reject", "deny", "refuse"),
		group(1.0, "accept", "approve", "confirm"),
		group(0.9, "close", "resolve"),
		group(1.0, "assign", "allocate"),
		pair(0.8, "assign", "reassign", "transfer", "hand over"),
		group(1.0, "lock", "freeze"),
		// Putting a mistake right: to fix a typed value is to correct it.
		group(0.8, "correct", "fix", "rectify"),
		// "Release" a hold is not publishing: a shared sense, not a synonym.
		pair(0.7, "release", "publish", "deploy"),
		group(1.0, "merge", "combine"),
		group(1.0, "schedule", "book"),
		// Reservations: a library, a hotel, a warehouse or a ticketing API
		// holds, reserves or books the same thing for someone. A hold is
		// a booking less surely than it is a reservation: a job, an entry
		// or a payment put on hold is paused, not booked in.
		group(0.8, "reserve", "book"),
		pair(0.8, "hold", "reserve"),
		pair(0.5, "hold", "book"),
		// A machine is restarted by rebooting it.
		group(0.9, "restart", "re start", "reboot", "power cycle"),
		// Doing a thing again: a CI service re-runs what a user retries.
		group(0.9, "retry", "rerun", "re run", "run again", "try again", "redo"),
		group(1.0, "revoke", "rescind", "withdraw"),
		group(0.9, "grant", "authorize", "permit", "give access"),
		// Taking a post off a page unpublishes it.
		pair(0.8, "unpublish", "take down", "take off", "take offline"),
		// A registry's yank pulls a release from new installs.
		group(0.8, "yank", "pull"),
		// To note that something happened is to record it, or mark it.
		group(0.7, "note", "record", "mark"),
		// A log is a record: to log a thing is to record it.
		pair(0.9, "record", "log"),
		// Deprecating a release marks it outdated.
		pair(0.6, "deprecate", "mark", "flag"),
		pair(0.6, "reject", "send back"),
		// Dropping a course is being unenrolled from it.
		pair(0.7, "unenroll", "remove", "drop"),
		// Stock put back on the shelf is restocked.
		pair(0.8, "restock", "put back", "return to stock", "replenish"),
		group(0.9, "buy", "purchase"),
		// Ordering a thing buys it, or has it made.
		pair(0.8, "order", "buy", "purchase", "make"),
		// Signing someone up for a service enrols or registers them.
		group(0.8, "enroll", "enrol", "register", "sign up"),
		pair(0.6, "enroll", "set up"),
		// Writing up what was found records it, as a report filed.
		pair(0.8, "record", "write up", "write down", "document"),
		pair(0.7, "file", "write up"),
		pair(0.6, "create", "buy", "purchase"),
		pair(0.7, "hold", "wait"),
		pair(0.8, "hold", "park", "keep back", "hold back", "set aside", "put aside"),
		pair(0.6, "hold", "defer", "postpone"), // a hold on an application until a date defers it
		// A vehicle taken off the road is grounded.
		group(0.8, "ground", "take out of service"),
		pair(0.8, "disable", "ground"),
		pair(0.8, "suspend", "ground"),
		group(0.9, "dispute", "challenge", "contest"),
		pair(0.8, "stop", "kill"),
		group(0.8, "snooze", "postpone", "remind later"),
		pair(0.7, "unsubscribe", "stop sending", "take off"),
		group(0.8, "set up", "create", "arrange"),
		// Taking someone off a mailing list is unsubscribing them.
		group(0.9, "unsubscribe", "opt out"),
		pair(0.6, "unsubscribe", "remove"),
		// "Make sure it can no longer be used" asks to block it: what
		// disabling, deactivating or locking a thing does.
		pair(0.8, "block", "disable", "deactivate", "lock", "suspend", "freeze"),
		group(0.9, "pay", "pay out", "disburse"),
		group(1.0, "suspend", "pause"),
		// Phrasal verbs whose particle is a stop word, as every speaker
		// reads them: to hang on to a thing is to keep it.
		group(0.9, "keep", "hang on to", "hold on to", "hang onto", "hold onto", "retain"),
		group(1.0, "log in", "sign in", "log on"),
		group(1.0, "log out", "sign out", "log off"),
		group(1.0, "turn on", "switch on"),
		group(1.0, "turn off", "switch off"),
		pair(0.7, "enable", "turn on", "switch on"),
		pair(0.7, "disable", "turn off", "switch off"),
		// Operations verbs: starting and stopping a machine, a job or a
		// service, as every API that runs things words them (EC2's
		// RunInstances launches; a stopped box was shut down).
		group(0.8, "start", "launch", "run", "kick off", "fire up", "start up"),
		group(0.8, "stop", "halt", "shut down", "power off", "power down", "shut off"),
		pair(0.7, "stop", "turn off", "switch off", "bring down", "wind down"),
		// Magnitude verbs: to bump a priority is to increase it. ("Raise"
		// is left out: a customer raises a problem as often as a limit is
		// raised.)
		group(1.0, "increase", "bump", "boost", "bump up", "step up", "scale up", "turn up"),
		group(1.0, "decrease", "lower", "reduce", "scale down", "turn down"),
		// Moving a thing is shifting or relocating it (WordNet holds shift one
		// of move's many kinds, too weak to count).
		group(0.8, "move", "shift", "relocate"),
		// A meeting's slot is its time.
		group(0.8, "time", "slot", "time slot", "timeslot"),
		// Keeping a suspect thing apart quarantines it.
		pair(0.8, "quarantine", "isolate", "set apart", "set aside", "separate", "keep away"),
		// Clearing a container out empties it: its contents go, it stays.
		pair(0.8, "empty", "clear out", "clean out", "empty out"),
		pair(0.6, "empty", "clear"),
		// Renewing a loan, a lease or a subscription extends it.
		group(0.8, "extend", "renew", "prolong"),
	},
	family(0.8, []string{"start", "launch"}, "boot", "spin up", "power on", "power up", "bring up"),
	// Verbs that change a record without saying "update": a record API's
	// update is how they are done.
	family(0.7, updateHeads, "rename", "reschedule", "move", "point", "set", "mark", "adjust", "correct", "fix",
		"revise", "reassign", "retitle", "relabel", "rewrite", "repoint", "redirect", "reprice", "extend", "shorten",
		"postpone", "delay", "defer", "push back", "push out",
		// A new size or level for a record is a change of it.
		"resize", "scale", "upgrade", "downgrade", "increase", "decrease", "lower", "bump", "reduce", "boost", "toggle", "flip", "tweak"),
	// Ways of making a record go away: some keep it (hiding), most do not.
	family(0.8, deleteHeads, "purge", "wipe", "drop", "discard", "get rid", "throw away", "take down", "tear down",
		"scrap", "obliterate", "expunge", "nuke"),
	family(0.6, deleteHeads, "trash", "clear", "clean up"),
	family(0.6, hideHeads, "suspend", "disable", "shelve", "mothball", "retire", "take offline", "unlist", "unpublish", "mute",
		"file away", "put away", "stash", "tuck away", "mask", "set aside"),
	family(0.7, createHeads, "make", "open", "set up", "start", "log", "file", "schedule", "book", "raise", "submit",
		"issue", "generate", "provision", "spin up", "post", "draw up"),
	// Ending or terminating a subscription, a contract or a booking is
	// cancelling it.
	family(0.7, cancelHeads, "revoke", "rescind", "withdraw", "scrap", "drop", "stop", "undo", "end", "terminate"),
	family(0.7, restoreHeads, "reopen", "revive", "bring back", "roll back", "revert", "undo"),
	family(0.7, findHeads, "show", "view", "read", "check", "look", "see", "browse", "inspect", "locate", "count", "tell"),
	family(0.7, sendHeads, "deliver", "notify", "message", "forward", "dispatch"),
)

// builtinAntonyms are opposite actions: a tool that does one is no way to
// do the other, however many other words it shares with the goal. Pairs,
// both ways; "unX", "disX" and "deX" oppose X by their prefix as well
// (opposes, relate.go).
var builtinAntonyms = [][2]string{
	{"hide", "restore"}, {"hide", "show"}, {"hide", "reveal"}, {"hide", "unarchive"},
	{"archive", "restore"}, {"delete", "restore"}, {"delete", "undelete"}, {"remove", "restore"},
	{"trash", "restore"}, {"deactivate", "reactivate"}, {"remove", "add"}, {"delete", "create"}, {"remove", "create"},
	{"lock", "unlock"}, {"freeze", "unfreeze"}, {"freeze", "thaw"}, {"enable", "disable"}, {"activate", "deactivate"},
	{"open", "close"}, {"close", "reopen"}, {"resolve", "reopen"}, {"charge", "refund"},
	{"accept", "decline"}, {"accept", "reject"}, {"approve", "reject"}, {"approve", "deny"}, {"approve", "decline"},
	{"accept", "deny"}, {"confirm", "cancel"}, {"grant", "revoke"}, {"assign", "unassign"}, {"include", "exclude"},
	{"subscribe", "unsubscribe"}, {"publish", "unpublish"}, {"publish", "withdraw"}, {"block", "unblock"},
	{"suspend", "reinstate"}, {"suspend", "resume"}, {"pause", "resume"}, {"start", "stop"}, {"ban", "unban"},
	{"mute", "unmute"}, {"pin", "unpin"}, {"follow", "unfollow"}, {"attach", "detach"}, {"connect", "disconnect"},
	{"install", "uninstall"}, {"mount", "unmount"}, {"encrypt", "decrypt"}, {"upload", "download"},
	{"increase", "decrease"}, {"raise", "lower"}, {"promote", "demote"}, {"join", "leave"}, {"merge", "split"},
	{"add", "subtract"}, {"credit", "debit"}, {"buy", "sell"}, {"lend", "borrow"}, {"import", "export"},
	{"archive", "unarchive"}, {"hide", "unhide"}, {"list", "unlist"}, {"schedule", "cancel"}, {"book", "cancel"},
	{"enable", "suspend"}, {"show", "conceal"}, {"keep", "delete"}, {"keep", "discard"}, {"save", "discard"},
}

// worldRelationWeight is the weight of a world file's own lexicon entries:
// the world's author says these words mean the same thing there.
const worldRelationWeight = 1.0

func newLexicon(rels []relation) *lexicon {
	lx := &lexicon{words: map[string]map[string]float64{}}
	for _, r := range rels {
		lx.addRelation(r)
	}
	return lx
}

// worldLexicon builds a world's entries (word → words it may stand for).
// Entries are applied in sorted order so the lexicon does not depend on map
// iteration.
func worldLexicon(world map[string][]string) *lexicon {
	var rels []relation
	for _, k := range slices.Sorted(maps.Keys(world)) {
		rels = append(rels, pair(worldRelationWeight, k, world[k]...))
	}
	return newLexicon(rels)
}

// key is the lexicon key of a word or phrase: its stems (stop words
// dropped) joined by one space.
// A phrasal verb's key stands for its verb: "log in" is "log in", not "log
// log in".
func key(text string) string {
	toks := tokenize(text, nil)
	ws := make([]string, 0, len(toks))
	for i, t := range toks {
		if t.tool >= 0 || i+1 < len(toks) && toks[i+1].phrase && strings.HasPrefix(toks[i+1].word, t.word+" ") {
			continue
		}
		ws = append(ws, t.word)
	}
	return strings.Join(ws, " ")
}

func (lx *lexicon) addRelation(r relation) {
	keys := make([]string, len(r.words)) // each word stemmed once
	for i, w := range r.words {
		keys[i] = key(w)
	}
	link := func(ka, kb string) {
		if ka == "" || kb == "" || ka == kb {
			return // a word is not its own synonym
		}
		m := lx.words[ka]
		if m == nil {
			m = map[string]float64{}
			lx.words[ka] = m
		}
		if r.weight > m[kb] {
			m[kb] = r.weight
		}
	}
	if r.pair {
		for _, kb := range keys[1:] {
			link(keys[0], kb)
			link(kb, keys[0])
		}
		return
	}
	for _, ka := range keys {
		for _, kb := range keys {
			link(ka, kb)
		}
	}
}

// weight is the relation between two keys (0 when none).
func (lx *lexicon) weight(a, b string) float64 {
	if lx == nil {
		return 0
	}
	return lx.words[a][b]
}

// phrases lists the lexicon's multi-word keys, as stems.
func (lx *lexicon) phrases() [][]string {
	var out [][]string
	for _, k := range slices.Sorted(maps.Keys(lx.words)) {
		if strings.Contains(k, " ") {
			out = append(out, strings.Split(k, " "))
		}
	}
	return out
}

// antonymSet builds the pairs both ways, by key.
func antonymSet(pairs [][2]string) map[string]map[string]bool {
	m := map[string]map[string]bool{}
	add := func(a, b string) {
		if m[a] == nil {
			m[a] = map[string]bool{}
		}
		m[a][b] = true
	}
	for _, p := range pairs {
		a, b := key(p[0]), key(p[1])
		add(a, b)
		add(b, a)
	}
	return m
}

// containsRun reports whether run occurs in seq as consecutive words.
func containsRun(seq, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(seq); i++ {
		if slices.Equal(seq[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
