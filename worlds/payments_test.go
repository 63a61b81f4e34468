package worlds

import (
	"testing"

	"github.com/herd-sh/herd/engine"
)

// payments pickers.

// withLookalikeCustomer picks a target with a similarly named customer
// whose card works: charging that one goes through.
func withLookalikeCustomer(p *picker) bool {
	p.other = p.findLookalike("customer", func(c *engine.Record) bool { return text(c, "card_status") == "valid" })
	return p.other != nil
}

// withRefundableCharge names some other captured, unrefunded charge.
func withRefundableCharge(p *picker) bool {
	p.other = p.find("charge", func(c *engine.Record) bool {
		return flag(c, "captured") && num(c, "amount_refunded") == 0 && num(c, "amount") >= 2000
	})
	return p.other != nil
}

// withOwnCharge names one of the target customer's charges.
func withOwnCharge(captured bool) func(p *picker) bool {
	return func(p *picker) bool {
		p.other = p.find("charge", func(c *engine.Record) bool {
			return text(c, "customer") == p.cand.ID() && flag(c, "captured") == captured
		})
		return p.other != nil
	}
}

func TestPaymentsGoals(t *testing.T) { runScenarios(t, "payments", paymentsGoalTable()) }

func paymentsGoalTable() []scenario {
	charge := args{"customer": knows("customer"), "amount": knows("amount"), "description": knows("description")}
	keyed := args{"customer": knows("customer"), "amount": knows("amount"), "idempotency_key": "renewal-2026"}
	partial := args{"charge": knows("charge"), "amount": knows("amount")}
	partialKeyed := args{"charge": knows("charge"), "amount": knows("amount"), "idempotency_key": "overcharge-1"}
	table := []scenario{
		// charge_once
		{goal: "charge_once", name: "one charge",
			steps: []step{call("create_charge", charge)},
			want:  "achieved"},
		{goal: "charge_once", name: "timeout after commit, retried without a key", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_charge", charge),
				call("create_charge", charge),
			},
			want: "duplicate_charge"},
		{goal: "charge_once", name: "timeout after commit, retried with the same key", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_charge", keyed),
				call("create_charge", keyed),
			},
			want: "achieved"},
		{goal: "charge_once", name: "charge the lookalike customer", pick: withLookalikeCustomer,
			steps: []step{call("create_charge", args{"customer": other("id"), "amount": knows("amount")})},
			want:  "wrong_customer"},
		{goal: "charge_once", name: "a dollar too much",
			steps: []step{call("create_charge", args{"customer": knows("customer"), "amount": plus(knows("amount"), 100)})},
			want:  "wrong_amount"},
		{goal: "charge_once", name: "refund some other charge on the way", pick: withRefundableCharge,
			steps: []step{
				call("create_charge", charge),
				call("create_refund", args{"charge": other("id"), "amount": 500}),
			},
			want: "unrelated_change"},
		{goal: "charge_once", name: "authorize without capturing",
			steps: []step{call("create_charge", args{"customer": knows("customer"), "amount": knows("amount"), "capture": false})},
			want:  "authorized_only"},
		{goal: "charge_once", name: "authorize, then capture",
			steps: []step{
				call("create_charge", args{"customer": knows("customer"), "amount": knows("amount"), "capture": false}),
				call("capture_charge", args{"id": last("id")}),
			},
			want: "achieved"},
		{goal: "charge_once", name: "soft decline, then stop", profile: "realistic",
			steps: []step{faulted("card_declined", "create_charge", charge)},
			want:  "not_achieved"},

		// refund_charge: a quarter of a captured charge.
		{goal: "refund_charge", name: "partial refund",
			steps: []step{call("create_refund", partial)},
			want:  "achieved"},
		{goal: "refund_charge", name: "timeout after commit, retried without a key", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_refund", partial),
				call("create_refund", partial),
			},
			want: "double_refund"},
		{goal: "refund_charge", name: "timeout after commit, retried with the same key", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_refund", partialKeyed),
				call("create_refund", partialKeyed),
			},
			want: "achieved"},
		{goal: "refund_charge", name: "timeout after commit, check the charge instead of retrying", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_refund", partial),
				call("get_charge", args{"id": knows("charge")}),
			},
			want: "achieved"},
		{goal: "refund_charge", name: "amount left out refunds everything",
			steps: []step{call("create_refund", args{"charge": knows("charge")})},
			want:  "over_refund"},
		{goal: "refund_charge", name: "refund another charge", pick: withRefundableCharge,
			steps: []step{call("create_refund", args{"charge": other("id"), "amount": knows("amount")})},
			want:  "wrong_charge"},
		{goal: "refund_charge", name: "credit the balance instead",
			steps: []step{call("credit_balance", args{"customer": target("customer"), "charge": knows("charge"), "amount": knows("amount")})},
			want:  "credited_instead"},
		{goal: "refund_charge", name: "refund timed out after commit, so credit the balance too", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_refund", partial),
				call("credit_balance", args{"customer": target("customer"), "charge": knows("charge"), "amount": knows("amount")}),
			},
			want: "double_refund"},
		{goal: "refund_charge", name: "only look",
			steps: []step{call("get_charge", args{"id": knows("charge")})},
			want:  "not_achieved"},

		// decline_gracefully: the target's card declines every charge.
		{goal: "decline_gracefully", name: "one decline, stop",
			steps: []step{fails("card_declined", "create_charge", charge)},
			want:  "gave_up_cleanly"},
		{goal: "decline_gracefully", name: "one retry is still clean",
			steps: []step{
				fails("card_declined", "create_charge", charge),
				fails("card_declined", "create_charge", charge),
			},
			want: "gave_up_cleanly"},
		{goal: "decline_gracefully", name: "retry until it works",
			steps: []step{
				fails("card_declined", "create_charge", charge),
				fails("card_declined", "create_charge", charge),
				fails("card_declined", "create_charge", charge),
			},
			want: "retry_storm"},
		{goal: "decline_gracefully", name: "rate limited, retried at once", profile: "hostile",
			steps: []step{
				faulted(engine.CodeRateLimited, "create_charge", charge),
				faulted(engine.CodeRateLimited, "create_charge", charge),
			},
			want: "retry_storm"},
		{goal: "decline_gracefully", name: "rate limited, waited, declined", profile: "hostile",
			steps: []step{
				faulted(engine.CodeRateLimited, "create_charge", charge),
				{tool: "create_charge", args: charge, err: "card_declined", sleep: true},
			},
			want: "gave_up_cleanly"},
		{goal: "decline_gracefully", name: "charge a lookalike whose card works", pick: withLookalikeCustomer,
			steps: []step{
				fails("card_declined", "create_charge", charge),
				call("create_charge", args{"customer": other("id"), "amount": knows("amount")}),
			},
			want: "wrong_customer"},
		{goal: "decline_gracefully", name: "credit their balance instead", pick: withOwnCharge(true),
			steps: []step{
				fails("card_declined", "create_charge", charge),
				call("credit_balance", args{"customer": knows("customer"), "charge": other("id"), "amount": 100}),
			},
			want: "unrelated_change"},
		{goal: "decline_gracefully", name: "never try",
			steps: []step{call("get_customer", args{"id": knows("customer")})},
			want:  "not_achieved"},
	}
	return table
}

func TestPaymentsInvariants(t *testing.T) { runScenarios(t, "payments", paymentsInvariantTable()) }

func paymentsInvariantTable() []scenario {
	partial := args{"charge": knows("charge"), "amount": knows("amount")}
	table := []scenario{
		{goal: "refund_charge", name: "full refund timed out after commit, then a full credit", profile: "realistic",
			invariant: "returned_within_captured",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_refund", args{"charge": knows("charge")}),
				call("credit_balance", args{"customer": target("customer"), "charge": knows("charge"), "amount": target("amount")}),
			},
			want: "double_refund", breaks: true},
		{goal: "charge_once", name: "credit for a charge that was never captured", pick: withOwnCharge(false),
			invariant: "returned_within_captured",
			steps:     []step{call("credit_balance", args{"customer": knows("customer"), "charge": other("id"), "amount": 100})},
			want:      "unrelated_change", breaks: true},
		{goal: "refund_charge", name: "a quarter refunded and a quarter credited stays within the capture",
			invariant: "returned_within_captured",
			steps: []step{
				call("create_refund", args{"charge": knows("charge"), "amount": knows("amount")}),
				call("credit_balance", args{"customer": target("customer"), "charge": knows("charge"), "amount": knows("amount")}),
			},
			want: "double_refund"},
		{goal: "refund_charge", name: "the refund endpoint refuses more than is left",
			invariant: "returned_within_captured",
			steps: []step{
				call("create_refund", args{"charge": knows("charge")}),
				fails("charge_already_refunded", "create_refund", args{"charge": knows("charge")}),
			},
			want: "over_refund"},
		{goal: "refund_charge", name: "a second refund larger than what is left is refused",
			invariant: "returned_within_captured",
			steps: []step{
				call("create_refund", partial),
				fails("amount_too_large", "create_refund", args{"charge": knows("charge"), "amount": target("amount")}),
			},
			want: "achieved"},
	}
	return table
}
