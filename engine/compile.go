package engine

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// compiler turns a decoded spec into a World, collecting every problem it
// finds (in file order) rather than stopping at the first, so an author
// fixes a file in one pass. compile runs the passes in order; each pass
// has its own file: compile_types.go, compile_tools.go, compile_rules.go
// (preconditions, effects, invariants), compile_faults.go,
// compile_goals.go, and compile_templates.go for the {{placeholders}}
// every pass checks.
type compiler struct {
	spec     *worldSpec
	w        *World
	problems []Problem
}

func (c *compiler) errorf(pos Pos, format string, args ...any) {
	c.problems = append(c.problems, Problem{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (c *compiler) addErr(err error) {
	c.problems = append(c.problems, toProblem(err))
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ValidName says whether s is a valid name for anything herd names — a
// world, record type, field, tool, goal, variant, profile or persona:
// lower-case letters, digits and _, starting with a letter.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// NameRule is what ValidName asks, for an error message.
const NameRule = "lower case letters, digits and _ (starting with a letter)"

func (c *compiler) checkName(what, name string, pos Pos) {
	if !ValidName(name) {
		c.errorf(pos, "%s name %q must be %s", what, name, NameRule)
	}
}

// defaultEpoch is the virtual clock's start when a world names none.
var defaultEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *compiler) compile() *World {
	s := c.spec
	w := &World{
		Name:          s.World.Raw,
		Description:   strings.TrimSpace(s.Description),
		Instructions:  strings.TrimSpace(s.Instructions),
		Version:       1,
		Epoch:         defaultEpoch,
		typeByName:    map[string]*RecordType{},
		toolByName:    map[string]*Tool{},
		goalByName:    map[string]*Goal{},
		profileByName: map[string]*FaultProfile{},
		Lexicon:       map[string][]string{},
	}
	c.w = w
	if !s.World.IsSet {
		c.errorf(s.Pos, "missing field \"world\" (the world's name)")
	} else {
		c.checkName("world", s.World.Raw, s.World.Pos)
	}
	if s.Version.IsSet {
		n, err := strconv.Atoi(s.Version.Raw)
		if err != nil || s.Version.Tag != "!!int" || n < 1 {
			c.errorf(s.Version.Pos, "version must be a whole number ≥ 1, got %s", quoteRaw(s.Version))
		} else {
			w.Version = n
		}
	}
	if s.Seed.IsSet {
		n, err := strconv.ParseUint(s.Seed.Raw, 0, 64)
		if err != nil || s.Seed.Tag != "!!int" {
			c.errorf(s.Seed.Pos, "seed must be a whole number ≥ 0, got %s", quoteRaw(s.Seed))
		}
		w.DefaultSeed = n
	}
	if s.Epoch.IsSet {
		t, err := time.Parse(time.RFC3339, s.Epoch.Raw)
		if err != nil {
			c.errorf(s.Epoch.Pos, "epoch must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got %s", quoteRaw(s.Epoch))
		}
		w.Epoch = t.UTC()
	}
	for _, v := range s.Variants {
		c.checkName("variant", v.Raw, v.Pos)
		if slices.Contains(w.Variants, v.Raw) {
			c.errorf(v.Pos, "variant %q listed twice", v.Raw)
			continue
		}
		w.Variants = append(w.Variants, v.Raw)
	}
	if len(w.Variants) < 1 {
		pos := s.Pos
		if len(s.Variants) > 0 {
			pos = s.Variants[0].Pos
		}
		c.errorf(pos, "variants: a world needs at least one description variant (e.g. [clear, ambiguous] to compare two wordings), got %d", len(w.Variants))
	}
	c.compileTypes()
	c.compileTools()
	if len(c.problems) > 0 {
		return w // CEL needs well-formed types and tools
	}
	env, err := newCelEnv(w)
	if err != nil {
		c.errorf(s.Pos, "%v", err)
		return w
	}
	w.env = env
	c.compileToolRules()
	c.compileInvariants()
	c.compileFaults()
	c.compileGoals()
	c.checkSeedBudget()
	c.compileLexicon()
	c.collectErrorCodes()
	return w
}

func (c *compiler) compileLexicon() {
	for _, e := range c.spec.Lexicon {
		words := make([]string, 0, len(e.Value))
		for _, v := range e.Value {
			words = append(words, strings.ToLower(strings.TrimSpace(v)))
		}
		c.w.Lexicon[strings.ToLower(e.Name)] = words
	}
}

func (c *compiler) collectErrorCodes() {
	set := map[string]bool{CodeInvalidArgument: true, CodeNotFound: true, CodeUnknownTool: true, CodeRuleError: true,
		CodeRuleCost: true, CodeTimeout: true, CodeRateLimited: true, CodeUnavailable: true}
	for _, t := range c.w.Tools {
		for _, code := range t.errorCodes {
			set[code] = true
		}
	}
	for _, p := range c.w.Profiles {
		for _, tf := range p.byTool {
			if tf == nil {
				continue
			}
			for _, e := range tf.Errors {
				switch e.Kind {
				case FaultTimeoutAfterCommit, FaultSilentNoop, FaultStaleRead, FaultSchemaDrift:
					// no error code of their own: a timeout, or no error at all
				case FaultPartialWrite:
					set[CodeInternal] = true
				default:
					set[e.Kind] = true
				}
			}
		}
	}
	for code := range set {
		c.w.errorCodes = append(c.w.errorCodes, code)
	}
	sort.Strings(c.w.errorCodes)
}
