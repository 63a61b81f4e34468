// Package worlds holds herd's built-in worlds — mock:crm, mock:payments,
// mock:shop, mock:email, mock:files — as embedded YAML world files, and
// resolves a world reference (a built-in name or a file path) to a compiled
// engine.World. Each built-in has a fidelity note in docs/worlds/NAME.md
// saying which real API it imitates and what it leaves out.
package worlds

import (
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/herd-sh/herd/engine"
)

// Prefix marks a built-in world reference: "mock:crm".
const Prefix = "mock:"

//go:embed *.yaml scaffold.yaml.tmpl
var files embed.FS

// order is the order built-ins are listed in: the order a newcomer meets
// them in the docs, simplest first. A test checks it names every embedded
// world file exactly once.
var order = []string{"crm", "payments", "shop", "email", "files"}

// compiled caches one compiled world per built-in. Compiling a world type-
// checks every CEL rule and seeds the default base, which is not free, and
// a run resolves the same world once per command; the cache makes the
// second resolve free. The map itself is built once and never changes
// after package initialisation; each entry fills itself once.
var compiled = func() map[string]*builtin {
	m := make(map[string]*builtin, len(order))
	for _, name := range order {
		m[name] = &builtin{name: name}
	}
	return m
}()

// builtin is one embedded world, compiled on first use.
type builtin struct {
	name  string
	once  sync.Once
	world *engine.World
	err   error
}

func (b *builtin) load() (*engine.World, error) {
	b.once.Do(func() {
		src, err := files.ReadFile(b.name + ".yaml")
		if err != nil {
			b.err = fmt.Errorf("world %s%s: %w", Prefix, b.name, err)
			return
		}
		b.world, b.err = engine.Parse(Prefix+b.name, src)
	})
	return b.world, b.err
}

// Names lists the built-in worlds as references ("mock:crm", …), in the
// order they are documented.
func Names() []string {
	out := make([]string, len(order))
	for i, n := range order {
		out[i] = Prefix + n
	}
	return out
}

// IsBuiltin reports whether ref names a built-in world ("mock:…"), known or
// not; anything else is a file path.
func IsBuiltin(ref string) bool { return strings.HasPrefix(ref, Prefix) }

// Source returns the YAML of a built-in world, named "mock:crm" or "crm".
func Source(name string) ([]byte, error) {
	short := strings.TrimPrefix(name, Prefix)
	if _, ok := compiled[short]; !ok {
		return nil, unknownError(name)
	}
	return files.ReadFile(short + ".yaml")
}

// Resolve turns a world reference into a compiled world: "mock:NAME" is a
// built-in (compiled once per process and shared — worlds are immutable),
// anything else is a world file loaded from that path.
func Resolve(ref string) (*engine.World, error) {
	if strings.TrimSpace(ref) == "" {
		return nil, errors.New("no world given: name a built-in (" + strings.Join(Names(), ", ") + ") or a world file")
	}
	if IsBuiltin(ref) {
		b, ok := compiled[strings.TrimPrefix(ref, Prefix)]
		if !ok {
			return nil, unknownError(ref)
		}
		return b.load()
	}
	return engine.LoadFile(ref)
}

func unknownError(ref string) error {
	return fmt.Errorf("unknown world %q (built-in: %s)", ref, strings.Join(Names(), ", "))
}
