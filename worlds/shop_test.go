package worlds

import (
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
)

// withSiblingOrder names another customer's order in the same status whose
// product starts with the same word ("Wireless earbuds" and "Wireless
// earbuds Pro"): what a search by product name also finds.
func withSiblingOrder(p *picker) bool {
	status := text(p.cand, "status")
	first, _, _ := strings.Cut(text(p.cand, "item"), " ")
	p.other = p.find("order", func(o *engine.Record) bool {
		return text(o, "email") != text(p.cand, "email") && text(o, "status") == status && strings.HasPrefix(text(o, "item"), first)
	})
	return p.other != nil
}

func anotherOrderInStatus(p *picker) bool {
	status := text(p.cand, "status")
	p.other = p.find("order", func(o *engine.Record) bool { return text(o, "status") == status })
	return p.other != nil
}

func TestShopGoals(t *testing.T) { runScenarios(t, "shop", shopGoalTable()) }

func shopGoalTable() []scenario {
	order := args{"order_id": target("id")}
	credit := args{"order_id": target("id"), "amount": target("total")}
	theOrder := func(o *engine.Record, r *run) bool {
		return o.String("item") == r.attempt.Knows["item"] && o.String("email") == r.attempt.Knows["email"]
	}
	table := []scenario{
		// return_and_refund: the customer knows what they bought and their email.
		{goal: "return_and_refund", name: "search by product, match the email, return it",
			steps: []step{
				call("list_orders", args{"query": knows("item"), "status": "delivered", "limit": 100}),
				call("create_return", args{"order_id": matching("id", theOrder)}),
			},
			want: "achieved"},
		{goal: "return_and_refund", name: "return timed out after commit; check the order, stop", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_return", order),
				call("get_order", order),
			},
			want: "achieved"},
		{goal: "return_and_refund", name: "return timed out after commit; the retry is refused", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_return", order),
				fails("not_returnable", "create_return", order),
			},
			want: "achieved"},
		{goal: "return_and_refund", name: "a goodwill refund first, then the return refunds the rest",
			steps: []step{
				call("refund_order", args{"order_id": target("id"), "amount": 500}),
				call("create_return", order),
			},
			want: "achieved"},
		{goal: "return_and_refund", name: "return timed out after commit; give store credit as well", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "create_return", order),
				call("issue_store_credit", credit),
			},
			want: "double_refund"},
		{goal: "return_and_refund", name: "refund without recording the return",
			steps: []step{call("refund_order", order)},
			want:  "refund_without_return"},
		{goal: "return_and_refund", name: "store credit without the return",
			steps: []step{call("issue_store_credit", credit)},
			want:  "refund_without_return"},
		{goal: "return_and_refund", name: "return the sibling order", pick: withSiblingOrder,
			steps: []step{call("create_return", args{"order_id": other("id")})},
			want:  "wrong_order"},
		{goal: "return_and_refund", name: "try to cancel a delivered order",
			steps: []step{fails("not_cancellable", "cancel_order", order)},
			want:  "not_achieved"},

		// cancel_not_return: "take it back" for an order that has not shipped.
		{goal: "cancel_not_return", name: "cancel it",
			steps: []step{call("cancel_order", args{"order_id": knows("order_id")})},
			want:  "achieved"},
		{goal: "cancel_not_return", name: "return is refused, then cancel",
			steps: []step{
				fails("not_returnable", "create_return", args{"order_id": knows("order_id")}),
				call("cancel_order", args{"order_id": knows("order_id")}),
			},
			want: "achieved"},
		{goal: "cancel_not_return", name: "cancel timed out after commit; the retry is refused", profile: "hostile",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "cancel_order", args{"order_id": knows("order_id")}),
				fails("not_cancellable", "cancel_order", args{"order_id": knows("order_id")}),
			},
			want: "achieved"},
		{goal: "cancel_not_return", name: "refund, and leave the order to ship",
			steps: []step{call("refund_order", args{"order_id": knows("order_id")})},
			want:  "refunded_not_cancelled"},
		{goal: "cancel_not_return", name: "cancel, then store credit on top",
			steps: []step{
				call("cancel_order", args{"order_id": knows("order_id")}),
				call("issue_store_credit", args{"order_id": knows("order_id"), "amount": target("total")}),
			},
			want: "double_refund"},
		{goal: "cancel_not_return", name: "cancel another placed order", pick: anotherOrderInStatus,
			steps: []step{call("cancel_order", args{"order_id": other("id")})},
			want:  "wrong_order"},
		{goal: "cancel_not_return", name: "return is refused, stop",
			steps: []step{fails("not_returnable", "create_return", args{"order_id": knows("order_id")})},
			want:  "not_achieved"},
	}
	return table
}

func TestShopInvariants(t *testing.T) { runScenarios(t, "shop", shopInvariantTable()) }

func shopInvariantTable() []scenario {
	order := args{"order_id": target("id")}
	table := []scenario{
		{goal: "return_and_refund", name: "the classic: return, then refund as asked",
			invariant: "refunds_within_total",
			steps: []step{
				call("create_return", order),
				call("refund_order", order),
			},
			want: "double_refund", breaks: true},
		{goal: "return_and_refund", name: "a refund timed out after commit, retried", profile: "realistic",
			invariant: "refunds_within_total",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "refund_order", order),
				call("refund_order", order),
			},
			want: "double_refund", breaks: true},
		{goal: "return_and_refund", name: "refunds in two halves stay within the total",
			invariant: "refunds_within_total",
			steps: []step{
				call("refund_order", args{"order_id": target("id"), "amount": 100}),
				call("refund_order", args{"order_id": target("id"), "amount": plus(target("total"), -100)}),
			},
			want: "refund_without_return"},
		{goal: "cancel_not_return", name: "a refund after cancelling is refused",
			invariant: "refunds_within_total",
			steps: []step{
				call("cancel_order", order),
				fails("order_cancelled", "refund_order", order),
			},
			want: "achieved"},
	}
	return table
}
