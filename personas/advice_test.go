package personas

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
)

// adviceWorld is a small world for what agents read after choosing: a
// refund that times out after it went through half the time (so a blind
// retry refunds twice), and orders where the tool a customer's words ask
// for (take it back: return) refuses placed orders with a message.
// Descriptions vary by variant: neutral says nothing about retries; keyed
// says to pass the idempotency key; readback says to check before retrying
// after a timeout. MESSAGE is the return's refusal.
const adviceWorld = `
world: advice
version: 1
description: Refunds that time out after committing, and orders that must be cancelled rather than returned.
seed: 5
variants: [neutral, keyed, readback]

types:
  charge:
    count: 60
    fields:
      id:              {type: id, prefix: "ch_"}
      amount:          {type: int, gen: amount, min: 2000, max: 50000}
      amount_refunded: {type: int, default: 0, min: 0}
  order:
    count: 60
    fields:
      id:     {type: id, prefix: "ord_"}
      status: {type: enum, values: [placed, delivered, cancelled, returned], weights: [1, 1, 0, 0]}

tools:
  get_charge:
    kind: get
    record: charge
    descriptions:
      neutral: "Fetch one charge by id: amount and amount_refunded, in cents. Read-only."
      keyed: "Fetch one charge by id: amount and amount_refunded, in cents. Read-only."
      readback: "Fetch one charge by id: amount and amount_refunded, in cents. Read-only."
    params:
      id: {type: str, required: true, description: "Charge id."}

  create_refund:
    kind: custom
    record: charge
    key: charge
    descriptions:
      neutral: "Refund money from a charge back to the card. amount is in cents."
      keyed: "Refund money from a charge back to the card — pass an idempotency_key and reuse it when you retry, so that a retry cannot refund twice. amount is in cents."
      readback: "Refund money from a charge back to the card — if the call times out, check amount_refunded with get_charge before retrying. amount is in cents."
    params:
      charge: {type: str, required: true, description: "The charge to refund."}
      amount: {type: int, min: 1, description: "Cents to refund."}
      idempotency_key: {type: str, min: 1, max: 255, description: "An idempotency key."}
    idempotency: idempotency_key
    when:
      - {expr: "!has(args.amount) || args.amount <= r.amount - r.amount_refunded", error: amount_too_large, message: "refund of {{args.amount}} cents is more than is left"}
    effects:
      - set: {amount_refunded: "r.amount_refunded + (has(args.amount) ? args.amount : r.amount - r.amount_refunded)"}

  return_order:
    kind: custom
    record: order
    key: order_id
    descriptions:
      neutral: "Take back a delivered order and refund it."
      keyed: "Take back a delivered order and refund it."
      readback: "Take back a delivered order and refund it."
    params:
      order_id: {type: str, required: true, description: "The order."}
    when:
      - {expr: "r.status == 'delivered'", error: not_returnable, message: "MESSAGE"}
    effects:
      - set: {status: "'returned'"}

  cancel_order:
    kind: custom
    record: order
    key: order_id
    descriptions:
      neutral: "Cancel an order."
      keyed: "Cancel an order."
      readback: "Cancel an order."
    params:
      order_id: {type: str, required: true, description: "The order."}
    when:
      - {expr: "r.status == 'placed'", error: not_cancellable, message: "order {{r.id}} is {{r.status}}"}
    effects:
      - set: {status: "'cancelled'"}

faults:
  flaky:
    tools:
      create_refund:
        errors:
          - {kind: timeout_after_commit, p: 0.5}

  throttled:
    tools:
      create_refund:
        errors:
          - {kind: rate_limited, p: 0.5, retry_after: 1s}
  lossy:
    tools:
      create_refund:
        errors:
          - {kind: timeout, p: 0.5}

goals:
  refund:
    intent: "Refund ${{knows.dollars}} of charge {{target.id}} to the card"
    target: {record: charge}
    knows:
      charge: target.id
      amount: "target.amount / 400 * 100"
      dollars: "target.amount / 400"
    outcomes:
      - {class: double_refund, severity: harmful, when: "after.amount_refunded - target.amount_refunded > knows.amount"}
      - {class: achieved,      severity: ok,      when: "after.amount_refunded - target.amount_refunded == knows.amount"}
      - {class: not_achieved,  severity: failed,  when: "true"}

  stop_order:
    intent: "The customer no longer wants order {{target.id}}: take it back"
    target: {record: order, where: "r.status == 'placed'"}
    knows:
      order_id: target.id
    outcomes:
      - {class: achieved,     severity: ok,     when: "after.status == 'cancelled'"}
      - {class: not_achieved, severity: failed, when: "true"}
`

// Refusal messages of return_order for a placed order.
const (
	neutralRefusal = "order {{r.id}} is {{r.status}} and cannot be returned"
	namingRefusal  = "order {{r.id}} is {{r.status}} and cannot be returned; cancel_order stops an order that has not shipped"
	verbRefusal    = "order {{r.id}} is {{r.status}}, not delivered: cancel it instead"
)

func adviceModel(t testing.TB, variant, refusal string) setup {
	t.Helper()
	w, err := engine.Parse("advice.yaml", []byte(strings.Replace(adviceWorld, "MESSAGE", refusal, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return setup{m: newModel(t, w, variant), base: seedBase(t, w), goal: w.Goal("refund"), profile: w.Profile("flaky")}
}

// Readers of the tool's text, none passing keys or checking its work of
// its own accord: what they read is all that can change their retries.
var (
	carefulReader = derive("careful_reader", Baseline(), func(t *Traits) {
		t.Attention, t.Caution, t.Noise, t.Verify = 0.95, 0.9, 0.15, 0
		t.Retry = RetryPolicy{Mode: RetryOnce}
	})
	middlingReader = derive("middling_reader", Baseline(), func(t *Traits) {
		t.Attention, t.Caution, t.Noise, t.Verify = 0.6, 0.5, 0.15, 0
		t.Retry = RetryPolicy{Mode: RetryOnce}
	})
	hastyReader = derive("hasty_reader", Baseline(), func(t *Traits) {
		t.Attention, t.Caution, t.Noise, t.Verify = 0.15, 0.2, 0.15, 0
		t.Retry = RetryPolicy{Mode: RetryOnce}
	})
)

const adviceEpisodes = 1500

func TestIdempotencyAdviceLowersDuplicatedRefunds(t *testing.T) {
	neutral, keyed := adviceModel(t, "neutral", neutralRefusal), adviceModel(t, "keyed", neutralRefusal)
	drop := map[string]float64{}
	for _, p := range []*Persona{carefulReader, middlingReader, hastyReader} {
		a, b := neutral.run(t, adviceEpisodes, p), keyed.run(t, adviceEpisodes, p)
		drop[p.Name] = float64(a.class["double_refund"]-b.class["double_refund"]) / adviceEpisodes
		if p == hastyReader {
			// Names only: it never saw the advice, so nothing it did changed.
			if a.class["double_refund"] != b.class["double_refund"] {
				t.Errorf("hasty reader: double refunds %d → %d, want unchanged: it reads tool names only", a.class["double_refund"], b.class["double_refund"])
			}
			continue
		}
		below(t, p.Name+" double refunds", b.class["double_refund"], adviceEpisodes, "told to pass a key", a.class["double_refund"], adviceEpisodes, "neutral")
	}
	if drop[carefulReader.Name] <= drop[middlingReader.Name] {
		t.Errorf("the drop should grow with attention × caution: careful %.3f, middling %.3f", drop[carefulReader.Name], drop[middlingReader.Name])
	}
}

func TestReadBackAdviceLowersDuplicatedRefunds(t *testing.T) {
	neutral, told := adviceModel(t, "neutral", neutralRefusal), adviceModel(t, "readback", neutralRefusal)
	drop := map[string]float64{}
	for _, p := range []*Persona{carefulReader, middlingReader, hastyReader} {
		a, b := neutral.run(t, adviceEpisodes, p), told.run(t, adviceEpisodes, p)
		drop[p.Name] = float64(a.class["double_refund"]-b.class["double_refund"]) / adviceEpisodes
		if p == hastyReader {
			if a.class["double_refund"] != b.class["double_refund"] {
				t.Errorf("hasty reader: double refunds %d → %d, want unchanged", a.class["double_refund"], b.class["double_refund"])
			}
			continue
		}
		below(t, p.Name+" double refunds", b.class["double_refund"], adviceEpisodes, "told to read back", a.class["double_refund"], adviceEpisodes, "neutral")
		if b.class["achieved"] <= a.class["achieved"] {
			t.Errorf("%s: reading back should turn double refunds into refunds done once: achieved %d → %d", p.Name, a.class["achieved"], b.class["achieved"])
		}
	}
	if drop[carefulReader.Name] <= drop[middlingReader.Name] {
		t.Errorf("the drop should grow with attention × caution: careful %.3f, middling %.3f", drop[carefulReader.Name], drop[middlingReader.Name])
	}
}

func TestErrorMessageThatNamesTheToolRaisesAchieved(t *testing.T) {
	for _, refusal := range []string{namingRefusal, verbRefusal} {
		neutral, told := adviceModel(t, "neutral", neutralRefusal), adviceModel(t, "neutral", refusal)
		neutral.goal, told.goal = neutral.m.world.Goal("stop_order"), told.m.world.Goal("stop_order")
		neutral.profile, told.profile = nil, nil
		rise := map[string]float64{}
		for _, p := range []*Persona{carefulReader, hastyReader} {
			a, b := neutral.run(t, adviceEpisodes, p), told.run(t, adviceEpisodes, p)
			rise[p.Name] = float64(b.class["achieved"]-a.class["achieved"]) / adviceEpisodes
			below(t, p.Name+" achieved, message "+refusal, a.class["achieved"], adviceEpisodes, "neutral message", b.class["achieved"], adviceEpisodes, "message that says what to do")
		}
		if rise[carefulReader.Name] <= rise[hastyReader.Name] {
			t.Errorf("message %q: the rise should grow with attention: careful %.3f, hasty %.3f", refusal, rise[carefulReader.Name], rise[hastyReader.Name])
		}
	}
}

func TestErrorMessageRedirectIsTraced(t *testing.T) {
	s := adviceModel(t, "neutral", namingRefusal)
	s.goal = s.m.world.Goal("stop_order")
	for i := 0; i < 200; i++ {
		out, err := s.m.Run(Episode{Base: s.base, Persona: carefulReader, Goal: s.goal, Seed: entropy.Mix(runSeed, uint64(i)), Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		for k, st := range out.Trace.Steps {
			if !strings.HasPrefix(st.Result, "error: not_returnable") || st.Read == "" {
				continue
			}
			if !strings.Contains(st.Read, "cancel_order") {
				t.Fatalf("seed %d: the refused return's step reads %q, want what the agent made of it (cancel_order)", i, st.Read)
			}
			if k+1 >= len(out.Trace.Steps) || out.Trace.Steps[k+1].Tool != "cancel_order" {
				t.Fatalf("seed %d: after reading %q the next call is not cancel_order: %+v", i, st.Read, out.Trace.Steps)
			}
			return
		}
	}
	t.Fatal("no episode of 200 read the refusal and went to cancel_order")
}

func TestPreconditionMessageRunsThePrerequisiteThenTheTool(t *testing.T) {
	// "restore it first": restore, then the tool that failed, again.
	w := loadWorld(t, "files")
	m := newModel(t, w, "clear")
	trash := -1
	for i, tl := range w.Tools {
		if tl.Name == "trash_object" {
			trash = i
		}
	}
	r := m.readMessage(trash, &engine.ToolError{Code: "in_trash", Message: "q1.pdf is in the trash; restore it first"}, seeEverything)
	if r.tool < 0 || w.Tools[r.tool].Name != "restore_object" || !r.first {
		t.Fatalf("read %+v, want restore_object, first", r)
	}
	for _, msg := range []string{"contact c_1 is locked by compliance and cannot be changed", "charge ch_1 has already been captured", "Your card was declined.",
		"message rejected by the content filter", "archive/2025/q1.pdf is not in the trash"} {
		if r := m.readMessage(trash, &engine.ToolError{Code: "x", Message: msg}, seeEverything); r.tool >= 0 {
			t.Errorf("%q read as pointing to %s; it says nothing to do", msg, w.Tools[r.tool].Name)
		}
	}
}

// The advice machinery changes nothing where the texts say nothing: with
// neutral descriptions and messages, episodes are byte for byte what they
// are with no advice read at all — the model as it was before agents read
// after choosing — outcomes and traces.
func TestNeutralTextsChangeNothing(t *testing.T) {
	for _, goal := range []string{"refund", "stop_order"} {
		s := adviceModel(t, "neutral", neutralRefusal)
		s.goal = s.m.world.Goal(goal)
		for ti := range s.m.world.Tools {
			for lv := seeName; lv <= seeEverything; lv++ {
				if ad := s.m.advice.at(ti, lv); ad.has != 0 {
					t.Fatalf("neutral text of %s read as advice %b at level %d", s.m.world.Tools[ti].Name, ad.has, lv)
				}
			}
		}
		blind := *s.m
		blind.advice = nil
		blind.byGoal = s.m.byGoal
		for i := 0; i < 600; i++ {
			for _, p := range []*Persona{carefulReader, middlingReader, hastyReader, Builtin().Get("retrier")} {
				ep := Episode{Base: s.base, Profile: s.profile, Persona: p, Goal: s.goal, Seed: entropy.Mix(runSeed, uint64(i)), Trace: true}
				a, err := s.m.Run(ep)
				if err != nil {
					t.Fatal(err)
				}
				b, err := blind.Run(ep)
				if err != nil {
					t.Fatal(err)
				}
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				if !bytes.Equal(ja, jb) {
					t.Fatalf("%s seed %d: neutral texts changed the episode:\n%s\nvs\n%s", p.Name, ep.Seed, ja, jb)
				}
			}
		}
	}
}

// Each case's first sentence is long enough to fill a skimmer's word
// budget, so the advice after it is what only a reader of everything sees.
func TestAdviceReading(t *testing.T) {
	cases := []struct {
		text string
		want []adviceKind
	}{
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Pass an idempotency_key and reuse it when you retry.", []adviceKind{adviceKey}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Retrying may refund twice.", []adviceKind{adviceGuard}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Not idempotent: each call refunds again.", []adviceKind{adviceGuard}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. A retry after a timeout may refund twice.", []adviceKind{adviceGuard}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. If the call times out, call get_charge before retrying.", []adviceKind{adviceGuard}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Check the status before retrying.", []adviceKind{adviceGuard}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Safe to retry.", []adviceKind{adviceSafe}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. On rate_limited, wait for the Retry-After header before calling again.", []adviceKind{adviceWait}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Do not retry.", []adviceKind{adviceNoRetry}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Requires the expected_version you read.", []adviceKind{adviceVersion}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. The charge must be captured first with capture_charge.", []adviceKind{adviceFirst}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. To safely retry requests without accidentally performing the same operation twice, include an Idempotency-Key header.", []adviceKind{adviceKey, adviceGuard}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Retries with the same idempotency key are safe.", []adviceKind{adviceKey}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. This endpoint is idempotent; it is safe to retry.", []adviceKind{adviceSafe}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Requests that time out may still have been processed: query the refund status before retrying.", []adviceKind{adviceGuard}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. If you get a 429, back off for the number of seconds in Retry-After.", []adviceKind{adviceWait}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Never retry a failed refund automatically.", []adviceKind{adviceNoRetry}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. The charge must be captured first.", []adviceKind{adviceFirst}},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. The refund shows on the card in a few days; amounts are in cents.", nil},
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Returns the charge, with the first refund listed first.", nil},
		// A repeated key is what makes a repeat safe: key advice, no guard.
		{"Refund a captured charge to the customer's card, in full or in part, by its original payment method. Pass a unique idempotency key: a repeated key returns the first refund and refunds nothing.", []adviceKind{adviceKey}},
	}
	yaml := `
world: read
version: 1
seed: 1
variants: [v, w]
types:
  charge:
    count: 3
    fields:
      id:      {type: id, prefix: "ch_"}
      amount:  {type: int, gen: amount, min: 100, max: 1000}
      version: {type: int, default: 1, min: 1}
tools:
  get_charge:
    kind: get
    record: charge
    descriptions: {v: "Fetch a charge.", w: "Fetch a charge."}
    params:
      id: {type: str, required: true}
  capture_charge:
    kind: custom
    record: charge
    key: id
    descriptions: {v: "Capture a charge.", w: "Capture a charge."}
    params:
      id: {type: str, required: true}
    effects:
      - set: {amount: "r.amount"}
  refund_charge:
    kind: custom
    record: charge
    key: id
    descriptions: {v: "TEXT", w: "TEXT"}
    params:
      id: {type: str, required: true}
      idempotency_key: {type: str}
      expected_version: {type: int}
    idempotency: idempotency_key
    effects:
      - set: {amount: "r.amount"}
goals:
  g:
    intent: "Refund charge {{target.id}}"
    target: {record: charge}
    knows: {id: target.id}
    outcomes:
      - {class: done, severity: ok, when: "true"}
`
	for _, c := range cases {
		w, err := engine.Parse("read.yaml", []byte(strings.Replace(yaml, "TEXT", c.text, 1)))
		if err != nil {
			t.Fatal(err)
		}
		m := newModel(t, w, "v")
		ad := m.advice.at(2, seeEverything)
		var want uint16
		for _, k := range c.want {
			want |= 1 << k
		}
		if ad.has != want {
			t.Errorf("%q: read advice %07b, want %07b", c.text, ad.has, want)
		}
		if first := m.advice.at(2, seeFirst); first.has != 0 {
			t.Errorf("%q: a reader of the first sentence (%q) read advice %07b in it", c.text, FirstSentence(c.text), first.has)
		}
	}
}

// "A declined card fails with card_declined: do not retry it" stops a
// persona that retries everything, when it reads that far and heeds it.
func TestToldNotToRetryADeclineStopsARetrier(t *testing.T) {
	w := loadWorld(t, "payments")
	base := seedBase(t, w)
	goal := w.Goal("decline_gracefully")
	told := newModel(t, w, "clear")
	text := w.Tool("create_charge").Description("clear")
	i := strings.Index(text, " A declined card")
	if i < 0 {
		t.Fatalf("create_charge's clear text no longer says what to do on a decline: %q", text)
	}
	plain, err := NewModelWith(w, "clear", map[string]string{"create_charge": text[:i]})
	if err != nil {
		t.Fatal(err)
	}
	reader := derive("reading_retrier", Builtin().Get("retrier").Traits, func(t *Traits) { t.Attention, t.Caution = 0.95, 0.9 })
	storms := func(m *Model) int {
		s := setup{m: m, base: base, goal: goal}
		return s.run(t, 1000, reader).class["retry_storm"]
	}
	below(t, "retry storms", storms(told), 1000, "told not to retry", storms(plain), 1000, "not told")
}

// The message cache fills while many goroutines play on one model: the
// episodes are those of a model played by one.
func TestMessageReadingIsSafeForConcurrentUse(t *testing.T) {
	s := newSetup(t, "shop", "clear", "cancel_not_return", "realistic")
	pack := Builtin().Personas
	const n = 400
	episode := func(i int) Episode {
		return Episode{Base: s.base, Profile: s.profile, Persona: pack[i%len(pack)], Goal: s.goal,
			Seed: entropy.Mix(runSeed, uint64(i)), Trace: i%2 == 0}
	}
	want := make([][]byte, n)
	read := 0
	for i := range want {
		out, err := s.m.Run(episode(i))
		if err != nil {
			t.Fatal(err)
		}
		want[i], _ = json.Marshal(out)
		if bytes.Contains(want[i], []byte(`"read":"read the message`)) {
			read++
		}
	}
	if read == 0 {
		t.Fatal("no traced episode read a message; the test needs some")
	}
	fresh := newModel(t, s.m.world, "clear")
	got := make([][]byte, n)
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func(g int) {
			defer func() { done <- struct{}{} }()
			for i := g; i < n; i += 4 {
				out, err := fresh.Run(episode(i))
				if err != nil {
					t.Error(err)
					return
				}
				got[i], _ = json.Marshal(out)
			}
		}(g)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			t.Fatalf("episode %d differs when run concurrently:\n%s\n%s", i, want[i], got[i])
		}
	}
}

// withRefundText is the advice world's refund tool described by text,
// under the fault profile named.
func withRefundText(t *testing.T, text, profile string) setup {
	t.Helper()
	s := adviceModel(t, "neutral", neutralRefusal)
	m, err := NewModelWith(s.m.world, "neutral", map[string]string{"create_refund": text})
	if err != nil {
		t.Fatal(err)
	}
	s.m, s.profile = m, s.m.world.Profile(profile)
	return s
}

func TestRetryAfterAdviceIsWaitedOut(t *testing.T) {
	const plain = "Refund money from a charge back to the card."
	impatient := derive("impatient_reader", carefulReader.Traits, func(t *Traits) { t.Retry.HonorRetryAfter = false })
	a := withRefundText(t, plain, "throttled").run(t, adviceEpisodes, impatient)
	b := withRefundText(t, plain+" When rate limited, wait for the Retry-After before calling again.", "throttled").run(t, adviceEpisodes, impatient)
	below(t, "retries before retry-after", b.ignoredEpisodes, adviceEpisodes, "told to wait", a.ignoredEpisodes, adviceEpisodes, "not told")
}

func TestSafeToRetryAdviceRetriesAPersonaThatNeverDoes(t *testing.T) {
	const plain = "Refund money from a charge back to the card."
	never := derive("never_retries", carefulReader.Traits, func(t *Traits) { t.Retry = RetryPolicy{Mode: RetryNone} })
	a := withRefundText(t, plain, "lossy").run(t, adviceEpisodes, never)
	b := withRefundText(t, plain+" Safe to retry: a refund that timed out was not made.", "lossy").run(t, adviceEpisodes, never)
	below(t, "refunds done", a.class["achieved"], adviceEpisodes, "not told", b.class["achieved"], adviceEpisodes, "told a retry is safe")
}

// A reader of everything that passes keys by habit still slips now and
// then (the lapse), and a slip reads the tool as a skimmer does: it calls
// it so too, without the key its habit would have passed, unless what the
// skim and a read-on show told it to pass one. So the habit is the prior
// the text moves: a text that asks for a key in its first lines leaves
// fewer blind retries than one that does not.
func TestCarefulSlipCallsAsItRead(t *testing.T) {
	habit := derive("habitual_keys", Baseline(), func(t *Traits) {
		t.Attention, t.Caution, t.Noise, t.Verify = 0.95, 0.9, 0.15, 0
		t.Retry = RetryPolicy{Mode: RetryOnce, IdempotencyKeys: true}
	})
	neutral, keyed := adviceModel(t, "neutral", neutralRefusal), adviceModel(t, "keyed", neutralRefusal)
	a, b := neutral.run(t, adviceEpisodes, habit), keyed.run(t, adviceEpisodes, habit)
	if a.class["double_refund"] == 0 {
		t.Fatalf("no careful agent slipped into a blind retry under the neutral text: %v", a.class)
	}
	below(t, "habitual keys, double refunds", b.class["double_refund"], adviceEpisodes, "told to pass a key", a.class["double_refund"], adviceEpisodes, "neutral")

	// The slip's share of each choice is what lapse mixed in.
	d := neutral.m.byGoal[neutral.goal].choiceFor(neutral.m, habit).acts[0]
	total, slipped := 0.0, 0.0
	for i, w := range d.weights {
		total += w
		slipped += w * d.slipped[i]
	}
	if share := slipped / total; share <= 0 || share >= lapseRate {
		t.Errorf("slip share %.3f, want in (0, %.2f)", share, lapseRate)
	}
}
