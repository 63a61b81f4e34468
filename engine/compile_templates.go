package engine

import (
	"slices"
	"sort"
	"strings"
)

// Message templates: the placeholders an error message or intent may use.

// templateScope is what one placeholder scope ({{r.x}}, {{args.x}}) may name.
type templateScope struct {
	what  string // "note fields", "get_note params", "knows"
	names []string
}

func fieldScope(t *RecordType) templateScope {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return templateScope{what: t.Name + " fields", names: names}
}

// toolScopes are the placeholders a tool's precondition message may use.
func (c *compiler) toolScopes(t *Tool, vars []variable) map[string]templateScope {
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	scopes := map[string]templateScope{"args": {what: t.Name + " params", names: names}}
	for _, v := range vars {
		if v.name == "r" {
			scopes["r"] = fieldScope(t.Record)
		}
	}
	return scopes
}

// template parses a message and checks that every placeholder names a
// scope available here and a field or param that exists: a typo would
// otherwise render as an empty string in every error an agent reads.
func (c *compiler) template(txt Text, what string, scopes map[string]templateScope) template {
	t, err := parseTemplate(txt.Src)
	if err != nil {
		c.errorf(txt.Pos, "%s: %v", what, err)
		return t
	}
	for _, p := range t.parts {
		if p.scope == "" {
			continue
		}
		sc, ok := scopes[p.scope]
		if !ok {
			avail := make([]string, 0, len(scopes))
			for name := range scopes {
				avail = append(avail, name)
			}
			sort.Strings(avail)
			c.errorf(txt.Pos, "%s: placeholder {{%s.%s}}: %q is not available here (available: %s)", what, p.scope, p.name, p.scope, orNone(avail))
			continue
		}
		if !slices.Contains(sc.names, p.name) {
			c.errorf(txt.Pos, "%s: placeholder {{%s.%s}}: no %q among the %s (%s)", what, p.scope, p.name, p.name, sc.what, orNone(sc.names))
		}
	}
	return t
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
