package engine

import (
	"errors"
	"fmt"
)

// A world file may come from an untrusted pull request, so what it can make
// the loader do is bounded as a whole, not per part: a per-type record cap
// alone lets forty types of 100,000 records ask for gigabytes, and a
// per-evaluation cost limit alone lets one rule per record walk every record.

// MaxSeedValues bounds what seeding a world stores, summed over the file:
// every record's field values, every record a search tool indexes (once
// per searched field) and every record a goal may target. A world at the
// bound seeds in well under a second and a few hundred megabytes.
const MaxSeedValues = 2_000_000

// MaxLoadCost bounds the work of seeding a world, in CEL cost units summed
// over every evaluation: the base invariants (once, or once per record for
// an `each:` one) and every goal's target filter (once per record). Each
// evaluation also costs evalOverhead, so cheap rules over many records
// count too.
const MaxLoadCost = 100_000_000

// evalOverhead is what one evaluation costs on top of its CEL cost: a
// cheap rule takes some tens of nanoseconds, as much as a few dozen units
// of CEL cost.
const evalOverhead = 10

// ErrLoadBudget is why seeding a world stopped: its checks at load took
// more than MaxLoadCost.
var ErrLoadBudget = errors.New("the checks at load exceed their budget")

// seedValues is what seeding the world stores, counted as MaxSeedValues
// says, and what each part contributes, for the error message.
func (w *World) seedValues() (total int64, records, search, goals int64) {
	for _, t := range w.Types {
		records += int64(t.Count) * int64(len(t.Fields))
	}
	for _, t := range w.Tools {
		if t.search != nil && t.Record != nil {
			search += int64(t.Record.Count) * int64(len(t.search.fields))
		}
	}
	for _, g := range w.Goals {
		if g.Target != nil {
			goals += int64(g.Target.Count)
		}
	}
	return records + search + goals, records, search, goals
}

// checkSeedBudget refuses a world whose seeded state would exceed
// MaxSeedValues, before anything is seeded.
func (c *compiler) checkSeedBudget() {
	total, records, search, goals := c.w.seedValues()
	if total <= MaxSeedValues {
		return
	}
	c.errorf(c.spec.Pos, "the world would seed %d values (%d record fields, %d search entries, %d goal targets); the limit is %d: lower the types' counts or the number of search tools and goals",
		total, records, search, goals, MaxSeedValues)
}

// loadMeter adds up the cost of the evaluations done while seeding.
type loadMeter struct {
	used, limit uint64
}

func newLoadMeter() *loadMeter { return &loadMeter{limit: MaxLoadCost} }

// listedCost is what a rule is charged per record it lists (records.T):
// each is boxed into a new list, which costs more than a CEL step.
const listedCost = 10

// listed charges n records listed by a rule.
func (m *loadMeter) listed(n int) error {
	m.used += uint64(n) * listedCost
	return m.over()
}

func (m *loadMeter) over() error {
	if m.used > m.limit {
		return fmt.Errorf("%w: %d units used so far, the limit is %d", ErrLoadBudget, m.used, m.limit)
	}
	return nil
}

// charge adds one evaluation's cost and fails once the total is over the
// limit.
func (m *loadMeter) charge(cost uint64) error {
	m.used += cost + evalOverhead
	return m.over()
}
