package personas

import (
	"github.com/herd-sh/herd/engine/entropy"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/worlds"
)

func TestFillsMatchKnowsToParams(t *testing.T) {
	crm := loadWorld(t, "crm")
	g := crm.Goal("update_email") // knows id, email
	upd := crm.Tool("update_contact")
	fills := fillsFor(upd, g, true)
	for i, p := range upd.Params {
		f := fills[i]
		switch p.Name {
		case "email":
			if f.known != "email" {
				t.Errorf("email is filled from knows.email, got %+v", f)
			}
		case "expected_version":
			if f.version == nil || f.version.Name != "version" {
				t.Errorf("expected_version echoes the version field, got %+v", f)
			}
		default:
			if f.known != "" {
				t.Errorf("%s: nothing known fills it, got %+v", p.Name, f)
			}
		}
	}

	pay := loadWorld(t, "payments")
	refund := pay.Tool("create_refund")
	fills = fillsFor(refund, pay.Goal("refund_charge"), false) // knows charge, amount, dollars
	for i, p := range refund.Params {
		want := map[string]string{"amount": "amount"}[p.Name] // charge is the key, filled with the resolved id
		if fills[i].known != want {
			t.Errorf("create_refund %s: filled from %q, want %q", p.Name, fills[i].known, want)
		}
	}
	m := newModel(t, pay, "clear")
	if got := m.byGoal[pay.Goal("refund_charge")].idKeyFor["charge"]; got != "charge" {
		t.Errorf("knows.charge is the id for tools keyed by charge, got %q", got)
	}
}

func TestHostileArgumentsCoverEveryKind(t *testing.T) {
	crm := loadWorld(t, "crm")
	upd := crm.Tool("update_contact")
	a := agent{dice: newDice(1)}
	seen := map[string]int{}
	for i := 0; i < 2000; i++ {
		args := map[string]any{"id": "c_0001", "email": "a@example.com", "expected_version": int64(3)}
		kind := a.mutate(upd, args)
		seen[kind]++
		switch kind {
		case hostileExtra:
			if _, ok := args[hostileExtraName]; !ok {
				t.Fatal("unknown argument not added")
			}
		case hostileMissing:
			if _, ok := args["id"]; ok {
				t.Fatal("the only required argument is still there")
			}
		}
	}
	for _, k := range hostileKinds {
		if seen[k] == 0 {
			t.Errorf("never sent %s: %v", k, seen)
		}
	}
}

// A list tool's declared search parameter is filled whatever its name: a
// world that calls it "member" rather than "query" is searched all the
// same (before, such a search went out empty and every look-up failed).
func TestSearchParamIsFilledWhateverItsName(t *testing.T) {
	const src = `
world: searchparam
version: 1
seed: 3
variants: [v, w]
types:
  loan:
    count: 40
    fields:
      id:     {type: id, prefix: "ln_"}
      member: {type: str, gen: person_name}
      days:   {type: int, gen: uniform, min: 1, max: 9}
tools:
  list_loans:
    kind: list
    record: loan
    descriptions: {v: "Find loans by part of the member's name.", w: "List loans."}
    params:
      member: {type: str, max: 200, description: "Part of the member's name."}
    search: {param: member, fields: [member]}
  renew_loan:
    kind: update
    record: loan
    descriptions: {v: "Renew a loan: more days.", w: "Renew a loan."}
    params:
      id: {type: str, required: true}
      days: {type: int}
goals:
  renew:
    intent: "Renew the loan of {{target.member}}"
    target: {record: loan}
    knows: {member: target.member}
    outcomes:
      - {class: done, severity: ok, when: "changed_others == 0"}
      - {class: other, severity: failed, when: "true"}
`
	w, err := engine.Parse("searchparam.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, w, "v")
	base := seedBase(t, w)
	p := Builtin().Get("careful")
	out, err := m.Run(Episode{Base: base, Persona: p, Goal: w.Goal("renew"), Seed: 11, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range out.Trace.Steps {
		if st.Tool == "list_loans" {
			if q, _ := st.Args["member"].(string); q == "" {
				t.Fatalf("the search went out without the member's name: %+v", st)
			}
			return
		}
	}
	t.Fatalf("no search was made: %+v", out.Trace.Steps)
}

// A known value that is none of an enum's values does not fill it: knows
// "instance" (an instance id) names instance_class by its words, but
// "db-0034" is no class, and the schema lists the classes.
func TestKnownValueOutsideAnEnumDoesNotFillIt(t *testing.T) {
	w, err := worlds.Resolve("testdata/heldout/worlds/database.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := setup{m: newModel(t, w, "clear"), base: seedBase(t, w), goal: w.Goal("restore_copy")}
	tl := s.run(t, 50, Builtin().Get("careful"))
	if tl.invalidEpisodes > 0 || tl.class["achieved"] == 0 {
		t.Errorf("careful restores: %d of 50 achieved, %d with an invalid argument", tl.class["achieved"], tl.invalidEpisodes)
	}
}

// A create picked for a goal about an existing record is filled from that
// record where nothing the agent knows fills a required parameter: "make
// their booking a table for six" read as "book a table" is booked at the
// booking's own slot, a second reservation, not an error about a missing
// slot that sends the agent on to the right tool.
func TestCreateCopiesTheRecordTheGoalIsAbout(t *testing.T) {
	w, err := worlds.Resolve("testdata/heldout/worlds/restaurants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, base, g := newModel(t, w, "terse"), seedBase(t, w), w.Goal("change_party_size")
	created, duplicated := 0, 0
	for i := 0; i < 400; i++ {
		out, err := m.Run(Episode{Base: base, Persona: Builtin().Get("novice"), Goal: g, Seed: entropy.Mix(runSeed, uint64(i))})
		if err != nil {
			t.Fatal(err)
		}
		if out.Called != "create_reservation" {
			continue
		}
		created++
		if out.Class == "duplicate_reservation" {
			duplicated++
		}
	}
	if created < 20 || duplicated*10 < created*9 {
		t.Errorf("of %d novices whose first write was create_reservation, %d made a second reservation; want nearly all", created, duplicated)
	}
}
