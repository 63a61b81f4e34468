package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// world builds a one-type world file around extra fields and tools.
func world(fields, tools string) []byte {
	return []byte(`world: hard
variants: [clear, ambiguous]
types:
  item:
    count: 50
    fields:
      id: {type: id, prefix: "i_"}
` + fields + `
tools:
  get_item:
    kind: get
    record: item
    descriptions: {clear: Get an item., ambiguous: Get.}
    params:
      id: {type: str, required: true}
` + tools)
}

// Files that used to crash the loader or the seeder load, or are refused
// with a clear message.
func TestLoaderHardening(t *testing.T) {
	cases := []struct {
		name, fields, tools string
		want                string // "" when the file must load
	}{
		{name: "amount with only a min", fields: "      n: {type: int, gen: amount, min: 500}"},
		{name: "uniform with only a negative max", fields: "      n: {type: float, gen: uniform, max: -500}"},
		{name: "huge bound", fields: "      n: {type: int, gen: uniform, min: 0, max: 1e300}", want: "out of range"},
		{name: "int default below min", fields: "      n: {type: int, default: 0, min: 1}", want: "field item.n: default 0 is outside its min and max"},
		{name: "float default above max", fields: "      x: {type: float, default: 2.5, max: 2}", want: "field item.x: default 2.5 is outside its min and max"},
		{name: "param defaults checked like arguments", tools: `
  tune_item:
    kind: custom
    descriptions: {clear: Tune., ambiguous: Tune.}
    params:
      n: {type: int, default: 50, max: 10}
      s: {type: str, default: "ab", min: 3}`, want: "param tune_item.n: default: 50 is above the maximum 10\nhard.yaml:22:31: param tune_item.s: default: shorter than 3 characters"},
		{name: "fractional int bound", fields: "      n: {type: int, gen: uniform, min: 0.5, max: 3}", want: "bounds of an int field must be whole numbers"},
		{name: "huge max_days", fields: "      at: {type: datetime, gen: past, max_days: 99999999999}", want: "max_days must be a whole number from 1 to 36500"},
		{name: "search on an unknown record", tools: `
  find_item:
    kind: list
    record: thing
    descriptions: {clear: Find., ambiguous: Find.}
    params:
      q: {type: str}
    search: {param: q, fields: [id]}`, want: `unknown record type "thing"`},
		{name: "include on an unknown record", tools: `
  list_items:
    kind: list
    record: thing
    descriptions: {clear: List., ambiguous: List.}
    params:
      all: {type: bool}
    include: {all: archived}`, want: `unknown record type "thing"`},
		{name: "create precondition naming r", tools: `
  make_item:
    kind: create
    record: item
    descriptions: {clear: Make., ambiguous: Make.}
    when:
      - {expr: "r.id != ''", error: nope}`, want: "undeclared reference to 'r'"},
		{name: "negative string length", tools: `
  name_item:
    kind: custom
    descriptions: {clear: Name., ambiguous: Name.}
    params:
      name: {type: str, min: -1}`, want: "a str param's min and max are lengths"},
		{name: "placeholder naming a missing field", tools: `
  lock_item:
    kind: custom
    record: item
    key: id
    descriptions: {clear: Lock., ambiguous: Lock.}
    params:
      id: {type: str, required: true}
    when:
      - {expr: "false", error: locked, message: "item {{r.nmae}} is locked"}`, want: `placeholder {{r.nmae}}: no "nmae" among the item fields (id)`},
		{name: "intent naming an unknown knows key", tools: `
goals:
  look:
    intent: "Find {{knows.title}}"
    target: {record: item}
    knows: {id: target.id}
    outcomes:
      - {class: done, severity: ok, when: "true"}`, want: `placeholder {{knows.title}}: no "title" among the knows (id)`},
		{name: "concurrent writer after call 0", tools: `
goals:
  look:
    intent: "Look"
    target: {record: item}
    concurrent: {after_calls: 0}
    outcomes:
      - {class: done, severity: ok, when: "true"}`, want: "hard.yaml:21:31: goal look: concurrent: after_calls must be a whole number ≥ 1, got 0"},
		{name: "concurrent writer without after_calls", tools: `
goals:
  look:
    intent: "Look"
    target: {record: item}
    concurrent: {set: {}}
    outcomes:
      - {class: done, severity: ok, when: "true"}`, want: "hard.yaml:21:17: goal look: concurrent: missing \"after_calls\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := Parse("hard.yaml", world(c.fields, c.tools))
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				exercise(t, w)
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "hard.yaml:") {
				t.Fatalf("error without a position: %v", err)
			}
		})
	}
}

func TestGeneratorsStayInBounds(t *testing.T) {
	w, err := Parse("hard.yaml", world(`      a: {type: int, gen: amount, min: 500}
      b: {type: float, gen: uniform, max: -500}
      c: {type: int, gen: amount, min: 1000, max: 5000}
      d: {type: int, gen: uniform, min: -3, max: 3}
      e: {type: float, gen: amount, min: 0.505, max: 0.6}
      f: {type: float, gen: amount, min: -0.6, max: -0.505}
      g: {type: int, min: 3}
      h: {type: float, max: -2.5}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	b := mustSeed(t, w, 5)
	for _, r := range b.Records(w.Type("item")) {
		a, bb, c, d := r.Get("a").(int64), r.Get("b").(float64), r.Get("c").(int64), r.Get("d").(int64)
		if a < 500 || a > 600 || bb < -600 || bb > -500 || c < 1000 || c > 5000 || c%100 != 0 || d < -3 || d > 3 {
			t.Fatalf("out of bounds: a=%d b=%v c=%d d=%d", a, bb, c, d)
		}
		// Cents rounding must not leave a fractional bound; a field with
		// neither generator nor default is seeded with its nearest bound
		// when 0 is out of range.
		e, f, g, h := r.Get("e").(float64), r.Get("f").(float64), r.Get("g"), r.Get("h")
		if e < 0.505 || e > 0.6 || f < -0.6 || f > -0.505 || g != int64(3) || h != -2.5 {
			t.Fatalf("out of bounds: e=%v f=%v g=%v h=%v", e, f, g, h)
		}
	}
}

// Writes that would leave a record its declaration forbids are refused,
// whether the value comes from an argument or from a rule.
func TestWritesAreChecked(t *testing.T) {
	w, err := Parse("hard.yaml", world(`      status: {type: enum, values: [new, done]}
      score:  {type: float, default: 1}
      count:  {type: int, default: 0, max: 3}`, `
  set_status:
    kind: update
    record: item
    descriptions: {clear: Set the status., ambiguous: Status.}
    params:
      id:     {type: str, required: true}
      status: {type: str}
  divide:
    kind: update
    record: item
    descriptions: {clear: Divide the score., ambiguous: Divide.}
    params:
      id: {type: str, required: true}
      by: {type: float}
    effects:
      - set: {score: "r.score / args.by"}
  bump:
    kind: update
    record: item
    descriptions: {clear: Add one to count., ambiguous: Bump.}
    params:
      id: {type: str, required: true}
    effects:
      - set: {count: "r.count + 1"}
  scramble:
    kind: update
    record: item
    descriptions: {clear: Put text in the score., ambiguous: Scramble.}
    params:
      id: {type: str, required: true}
    effects:
      - set: {score: "dyn(['x'])[0]"}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := mustSeed(t, w, 1).NewSession(1, nil)
	before := string(s.StateJSON())
	wantCode(t, s.Call("set_status", map[string]any{"id": "i_0001", "status": "lost"}), CodeInvalidArgument)
	mustOK(t, s.Call("set_status", map[string]any{"id": "i_0001", "status": "done"}))
	res := s.Call("divide", map[string]any{"id": "i_0001", "by": 0})
	wantCode(t, res, CodeInvalidArgument)
	if !strings.Contains(res.Err.Message, "not a finite number") {
		t.Fatalf("divide by zero: %v", res.Err)
	}
	for i := 0; i < 3; i++ {
		mustOK(t, s.Call("bump", map[string]any{"id": "i_0002"}))
	}
	res = s.Call("bump", map[string]any{"id": "i_0002"})
	wantCode(t, res, CodeInvalidArgument)
	if !strings.Contains(res.Err.Message, "item.count would be 4, above its maximum 3") {
		t.Fatalf("bump over max: %v", res.Err)
	}
	wantCode(t, s.Call("scramble", map[string]any{"id": "i_0003"}), CodeRuleError)
	if got := s.Lookup("item", "i_0003").Get("score"); got != 1.0 {
		t.Fatalf("scramble changed the score to %v", got)
	}
	if string(s.StateJSON()) == before {
		t.Fatal("the good calls changed nothing")
	}
}

// Arguments decoded with json.Number (as some JSON decoders produce) are
// accepted like float64 ones.
func TestJSONNumberArguments(t *testing.T) {
	_, b := shopBase(t)
	s := b.NewSession(1, nil)
	res := mustOK(t, s.Call("create_payment", map[string]any{"order": "o_0001", "amount": json.Number("250")}))
	if res.Record.Get("amount") != int64(250) {
		t.Fatalf("amount %v", res.Record.Get("amount"))
	}
	wantCode(t, s.Call("create_payment", map[string]any{"order": "o_0001", "amount": json.Number("2.5")}), CodeInvalidArgument)
	if res := mustOK(t, s.Call("create_payment", map[string]any{"order": "o_0001", "amount": json.Number("1e3")})); res.Record.Get("amount") != int64(1000) {
		t.Fatalf("amount 1e3 gave %v", res.Record.Get("amount"))
	}
}

// A world may call its types records and changes: the CEL types of the
// records view and of an outcome's change lists are not named like any
// record type, so neither hides the other.
func TestTypesNamedLikeTheViews(t *testing.T) {
	w, err := Parse("views.yaml", []byte(`world: views
variants: [clear, ambiguous]
types:
  records:
    count: 3
    fields:
      id:    {type: id, prefix: "r_"}
      title: {type: str, default: "x"}
  changes:
    count: 2
    fields:
      id: {type: id, prefix: "c_"}
tools:
  get_rec:
    kind: get
    record: records
    descriptions: {clear: Get a record., ambiguous: Get.}
    params:
      id: {type: str, required: true}
    when:
      - {expr: "r.title == 'x' && size(records.records) == 3 && size(records.changes) == 2", error: odd}
goals:
  look:
    intent: "Look at {{target.title}}"
    target: {record: records, where: "r.title == 'x'"}
    outcomes:
      - {class: untouched, severity: ok, when: "size(updated.records) == 0 && size(created.changes) == 0 && after.title == 'x'"}
      - {class: other, severity: failed, when: "true"}
`))
	if err != nil {
		t.Fatal(err)
	}
	b := mustSeed(t, w, 0)
	s := b.NewSession(1, nil)
	a, err := w.Goal("look").Begin(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res := mustOK(t, s.Call("get_rec", map[string]any{"id": "r_0002"})); res.Record.ID() != "r_0002" {
		t.Fatalf("got %s", res.Record.ID())
	}
	if v, err := a.Judge(); err != nil || v.Class != "untouched" {
		t.Fatalf("verdict %+v, %v", v, err)
	}
}

// sum adds up lists of ints and of doubles.
func TestSumAddsUpLists(t *testing.T) {
	w, err := Parse("sum.yaml", world(`      n: {type: int, default: 2}
      x: {type: float, default: 0.5}`, `
  check_sums:
    kind: custom
    descriptions: {clear: Check the sums., ambiguous: Check.}
    when:
      - {expr: "sum(records.item.map(i, i.n)) == 100", error: int_sum}
      - {expr: "sum(records.item.map(i, i.x)) == 25.0", error: double_sum}
      - {expr: "sum([1, 2, 3]) == 7", error: literal_sum}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := mustSeed(t, w, 1).NewSession(1, nil)
	// The first two hold on 50 items; the third is false on purpose, so
	// the call fails exactly there.
	wantCode(t, s.Call("check_sums", nil), "literal_sum")
}

// A limit param declared without a min is still no way to ask for fewer
// than one record: the call is refused, not a crash.
func TestListLimitBelowOneIsRefused(t *testing.T) {
	w, err := Parse("limit.yaml", []byte(`world: limit
variants: [clear]
types:
  item:
    count: 5
    fields:
      id: {type: id, prefix: "i_"}
tools:
  list_items:
    kind: list
    record: item
    descriptions: {clear: List items.}
    params:
      limit: {type: int, max: 100}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := mustSeed(t, w, 1).NewSession(1, nil)
	for _, n := range []int{0, -1, -1 << 40} {
		wantCode(t, s.Call("list_items", map[string]any{"limit": n}), CodeInvalidArgument)
	}
	res := s.Call("list_items", map[string]any{"limit": 2})
	mustOK(t, res)
	if n := len(res.Records); n != 2 {
		t.Fatalf("limit 2 returned %d records", n)
	}
}
