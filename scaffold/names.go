package scaffold

import (
	"strings"
	"unicode"
)

// Name turns an API's name for a tool, parameter or property into a world
// name: lower snake case (entityType → entity_type, get-weather →
// get_weather), starting with a letter. herd descriptions names tools the
// same way, so that a descriptions file written from a server fits the
// world scaffolded from it.
func Name(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsUpper(r):
			// A new word starts at an upper-case letter after a lower one
			// (entityType) or before a lower one in a run (HTTPServer).
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		case r < unicode.MaxASCII && (unicode.IsLower(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(squeeze(b.String()), "_")
	if out == "" {
		return "x"
	}
	if out[0] < 'a' || out[0] > 'z' {
		out = "x_" + out
	}
	if celReserved[out] {
		out += "_" // r.in would not parse in a rule
	}
	return out
}

// celReserved are CEL's reserved words: a field or param so named could
// not be read in a rule.
var celReserved = map[string]bool{"in": true, "as": true, "break": true, "const": true, "continue": true,
	"else": true, "for": true, "function": true, "if": true, "import": true, "let": true, "loop": true,
	"package": true, "namespace": true, "return": true, "var": true, "void": true, "while": true,
	"true": true, "false": true, "null": true}

func squeeze(s string) string {
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	return s
}

// singular is a noun's singular, for English plurals as API names write
// them (entities → entity, addresses → address, pets → pet).
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses") || strings.HasSuffix(s, "ches") || strings.HasSuffix(s, "shes") || strings.HasSuffix(s, "xes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "ss") || strings.HasSuffix(s, "us") || strings.HasSuffix(s, "is"):
		return s
	case strings.HasSuffix(s, "s") && len(s) > 3:
		return s[:len(s)-1]
	}
	return s
}

// singularName is the singular of a snake name's last word.
func singularName(s string) string {
	parts := strings.Split(s, "_")
	parts[len(parts)-1] = singular(parts[len(parts)-1])
	return strings.Join(parts, "_")
}

// Verb families: what a tool's name says it does.
type verbFamily int

const (
	verbUnknown verbFamily = iota
	verbRead
	verbList
	verbCreate
	verbAdd // create something inside an existing record (add_observations)
	verbUpdate
	verbDelete
	verbOther // a known action that is none of the above (archive, cancel, send…)
)

var verbs = map[string]verbFamily{
	"get": verbRead, "read": verbRead, "fetch": verbRead, "show": verbRead, "open": verbRead, "view": verbRead,
	"describe": verbRead, "retrieve": verbRead, "lookup": verbRead, "load": verbRead, "info": verbRead,
	"list": verbList, "search": verbList, "find": verbList, "query": verbList, "browse": verbList, "filter": verbList,
	"create": verbCreate, "new": verbCreate, "insert": verbCreate, "register": verbCreate, "make": verbCreate, "post": verbCreate,
	"add": verbAdd, "append": verbAdd, "attach": verbAdd,
	"update": verbUpdate, "set": verbUpdate, "edit": verbUpdate, "modify": verbUpdate, "change": verbUpdate,
	"patch": verbUpdate, "put": verbUpdate, "rename": verbUpdate, "replace": verbUpdate, "mark": verbUpdate,
	"write": verbUpdate, "save": verbUpdate, "upload": verbCreate, "toggle": verbOther,
	"delete": verbDelete, "remove": verbDelete, "destroy": verbDelete, "erase": verbDelete, "purge": verbDelete,
	"drop": verbDelete, "clear": verbDelete, "wipe": verbDelete,
	"archive": verbOther, "restore": verbOther, "cancel": verbOther, "refund": verbOther, "send": verbOther,
	"close": verbOther, "reopen": verbOther, "approve": verbOther, "reject": verbOther, "move": verbOther,
	"copy": verbOther, "merge": verbOther, "assign": verbOther, "publish": verbOther, "void": verbOther,
}

// splitVerb splits a snake tool name into its verb (the first part that
// is a known verb, else the first part), the family of that verb, and the
// object: the remaining parts, up to a "by"/"with"/"for" qualifier
// (show_pet_by_id → show, pet).
func splitVerb(name string) (verb string, fam verbFamily, object []string) {
	parts := strings.Split(name, "_")
	vi := -1
	for i, p := range parts {
		if _, ok := verbs[p]; ok {
			vi = i
			break
		}
	}
	if vi < 0 {
		return parts[0], verbUnknown, trimQualifier(parts[1:])
	}
	rest := append(append([]string{}, parts[:vi]...), parts[vi+1:]...)
	return parts[vi], verbs[parts[vi]], trimQualifier(rest)
}

func trimQualifier(parts []string) []string {
	for i, p := range parts {
		if p == "by" || p == "with" || p == "for" || p == "from" || p == "in" {
			return parts[:i]
		}
	}
	return parts
}
