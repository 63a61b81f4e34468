package lint

// Verb families: tools on the same record whose verbs share a family are
// the siblings an agent mixes up (archive vs delete, list vs search).
const (
	familyRead    = "read"
	familyCreate  = "create"
	familyModify  = "modify"
	familyRemove  = "remove"
	familyRestore = "restore"
)

var familyVerbs = map[string][]string{
	familyRead:    {"get", "fetch", "read", "retrieve", "show", "view", "describe", "list", "search", "find", "query", "lookup", "look", "browse", "count"},
	familyCreate:  {"create", "add", "insert", "register", "make", "new", "post", "upsert"},
	familyModify:  {"update", "edit", "change", "set", "patch", "modify", "replace", "rename", "move", "assign"},
	familyRemove:  {"delete", "remove", "destroy", "purge", "erase", "drop", "wipe", "archive", "hide", "deactivate", "disable", "trash", "discard", "void", "cancel", "close", "revoke"},
	familyRestore: {"restore", "unarchive", "undelete", "reactivate", "enable", "reopen", "recover", "unhide"},
}

// otherVerbs are action words that start descriptions or names but form
// no family of their own (so none of them is in familyVerbs).
var otherVerbs = []string{
	"return", "send", "submit", "refund", "charge", "capture", "reverse", "pay", "transfer",
	"copy", "upload", "download", "export", "import", "sync", "run", "execute", "start",
	"stop", "pause", "resume", "check", "validate", "verify", "calculate", "compute",
	"generate", "mark", "unassign", "attach", "detach", "link", "unlink", "merge", "split",
	"open", "lock", "unlock", "publish", "unpublish", "approve", "reject", "invite",
	"notify", "subscribe", "unsubscribe", "reset", "rotate", "grant", "tag", "untag",
	"comment", "reply", "forward", "schedule", "book", "reserve", "ship", "fulfil",
	"fulfill", "order", "apply", "convert", "issue", "complete", "confirm", "accept",
	"decline", "log", "record", "track", "save", "store", "write",
	"load", "compare", "summarize", "translate", "test", "ping", "dispatch",
	"estimate", "preview", "render", "print", "resolve", "retry", "refresh", "clear",
	"empty", "flag", "star", "pin", "unpin", "mute", "unmute", "block", "unblock", "ban",
	"suspend", "activate", "deploy", "build", "install", "uninstall", "connect",
	"disconnect", "share", "unshare", "invoice", "bill", "credit", "debit", "withdraw",
	"deposit", "authorize", "authorise", "settle", "adjust", "increment", "decrement",
	"bring", "put", "give", "take", "keep", "undo",
}

// deleteVerbs erase data when they succeed: a tool named with one must be
// marked destructive and say it cannot be undone.
// ("trash" is not one: a trash can be emptied or restored from.)
var deleteVerbs = setOf("delete", "remove", "destroy", "purge", "erase", "drop", "wipe", "discard")

// verbToFamily and verbStems are lookup tables built once from the lists
// above; nothing writes them afterwards.
var verbToFamily, verbStems = verbTables()

func verbTables() (toFamily, stems map[string]string) {
	toFamily, stems = map[string]string{}, map[string]string{} // stems: stem → canonical verb
	for _, fam := range []string{familyRead, familyCreate, familyModify, familyRemove, familyRestore} {
		for _, v := range familyVerbs[fam] {
			toFamily[v] = fam
			if _, ok := stems[stem(v)]; !ok {
				stems[stem(v)] = v
			}
		}
	}
	for _, v := range otherVerbs {
		if _, ok := stems[stem(v)]; !ok {
			stems[stem(v)] = v
		}
	}
	return toFamily, stems
}

// knownVerb reports whether w (any inflection) is an action word.
func knownVerb(w string) bool {
	_, ok := verbStems[stem(w)]
	return ok
}

// canonicalVerb maps an inflection ("deletes") to its verb ("delete").
func canonicalVerb(w string) string {
	if v, ok := verbStems[stem(w)]; ok {
		return v
	}
	return w
}

// verbFamily is the family of a verb, or the verb itself when it has none
// (so two "refund" tools are still siblings of each other).
func verbFamily(v string) string {
	if f, ok := verbToFamily[v]; ok {
		return f
	}
	return "verb:" + v
}

// verbSynonyms are words that restate a verb: a description made only of
// the name's words and these adds nothing ("get_order: Fetch the order").
var verbSynonyms = map[string][]string{
	"get":      {"fetch", "retrieve", "read", "return", "show", "view", "obtain", "look", "give", "load"},
	"fetch":    {"get", "retrieve", "read", "return"},
	"list":     {"get", "fetch", "return", "show", "retrieve", "enumerate", "view"},
	"search":   {"find", "query", "look", "lookup", "get", "list"},
	"find":     {"search", "query", "look", "lookup", "get"},
	"create":   {"add", "make", "insert", "new", "register"},
	"add":      {"create", "insert", "new"},
	"update":   {"change", "modify", "edit", "set", "patch"},
	"edit":     {"update", "change", "modify"},
	"delete":   {"remove", "erase", "destroy"},
	"remove":   {"delete", "erase"},
	"restore":  {"recover", "unarchive"},
	"cancel":   {"abort", "stop"},
	"send":     {"post", "deliver"},
	"set":      {"update", "change"},
	"describe": {"get", "show"},
}

// Cues the rubric looks for in descriptions.
var (
	// permanentCue says an action cannot be taken back.
	permanentCue = cues("permanent", "permanently", "cannot be undone", "can not be undone",
		"cant be undone", "can't be undone", "irreversible", "irreversibly", "irrevocable",
		"irrevocably", "for good", "forever", "cannot be recovered", "cannot be restored",
		"no way to recover", "no undo", "not reversible", "unrecoverable", "destroys", "erases",
		"not kept", "is lost", "are lost", "is gone", "are gone")
	// reversibleCue says an action can be taken back.
	reversibleCue = cues("reversible", "can be undone", "can be restored", "restore it", "restore with",
		"undo", "undone with", "recoverable", "can be recovered", "unarchive", "restore_", "any time",
		"anytime", "soft delete", "soft-delete", "trash")
	// removalCue is any word about data going away.
	removalCue = cues("delete", "deletes", "deleted", "remove", "removes", "removed", "erase", "erases",
		"destroy", "destroys", "purge", "purges", "wipe", "wipes", "drop", "drops")
	// readOnlyCue says a tool changes nothing.
	readOnlyCue = cues("read-only", "read only", "readonly", "does not change", "doesn't change",
		"changes nothing", "never changes", "no side effects", "without side effects", "safe to call",
		"does not modify", "doesn't modify", "nothing is changed", "only reads")
	// effectCue describes what a write changes, leaves alone or causes.
	effectCue = cues("hides", "hidden", "keeps", "kept", "stays", "remain", "remains", "removes", "removed",
		"deletes", "deleted", "erases", "overwrite", "overwrites", "replaces", "sets", "changes", "changed",
		"creates", "created", "makes", "appends", "records", "logs", "sends", "sent", "notifies", "emails",
		"charges", "refunds", "refunded", "returns the new", "returns it", "becomes", "history", "audit",
		"duplicate", "version", "visible", "gone", "lost", "fails with", "fails if", "fails when",
		"no longer", "moves", "marks", "adds", "will be", "is set", "are set", "stay", "keep", "hide",
		"hides it", "other fields", "unchanged", "status", "new id", "with its id", "returns the")
	// guidanceCue tells the agent when (not) to use a tool.
	guidanceCue = cues("use this", "use it", "use when", "use only", "only when", "only if", "instead",
		"rather than", "not for", "do not use", "don't use", "never use", "before", "after", "first",
		"when you", "if you", "so that", "prefer", "to find", "to hide", "to look up", "to check")
)

// placeholders are whole descriptions that were never written.
var placeholders = setOf("todo", "tbd", "fixme", "xxx", "n/a", "na", "placeholder", "lorem ipsum",
	"description", "desc", "none", "tool", "-", "...", "?", "wip", "test")

// verbPhrase says what a verb is for, for fixes like "To hide a contact,
// use archive_contact.": the purpose an agent has in mind, which is not
// always the verb itself; a verb without a phrase of its own is used as is.
func verbPhrase(verb, record string) string {
	a := article(record) + " " + record
	switch verb {
	case "archive", "hide", "deactivate", "disable":
		return "hide " + a
	case "delete", "remove", "destroy", "purge", "erase", "wipe", "drop":
		return "erase " + a + " for good"
	case "get", "fetch", "read", "retrieve", "show", "view", "describe":
		return "read one " + record + " by id"
	case "list", "browse":
		return "list " + plural(record) + " by filters"
	case "search", "find", "query", "lookup", "look":
		return "find " + a + " by name"
	case "restore", "unarchive", "undelete", "reactivate", "unhide", "recover":
		return "bring back " + a
	case "trash":
		return "move " + a + " to the trash, where it can be restored from"
	case "update", "edit", "change", "set", "patch", "modify":
		return "change " + a + "'s fields"
	case "create", "add", "insert", "register", "make", "new":
		return "add a new " + record
	case "reply":
		return "reply to " + a
	case "":
		return "work on " + a
	}
	return verb + " " + a
}

// qualifiers name which record, not what kind: restore_previous.
var qualifiers = setOf("previous", "last", "latest", "current", "next", "first", "old", "all", "default")

// purposeOf says what a tool is for, in a phrase that follows "To …":
// its verb's phrase, applied to what its name says it acts on.
func purposeOf(t *Tool) string {
	obj := nameObject(t)
	switch {
	case obj == "":
		obj = recordWords(t)
	case qualifiers[obj]:
		// restore_previous brings back a previous object.
		obj += " " + recordWords(t)
	}
	return verbPhrase(t.verb(), obj)
}
