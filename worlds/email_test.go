package worlds

import (
	"testing"

	"github.com/herd-sh/herd/engine"
)

func activeContact(p *picker) bool { return text(p.cand, "email_status") == "active" }
func bouncedContact(p *picker) bool {
	return text(p.cand, "email_status") == "bounced"
}

// activeWithLookalike picks an active contact with an active lookalike.
func activeWithLookalike(p *picker) bool {
	if !activeContact(p) {
		return false
	}
	p.other = p.findLookalike("contact", func(c *engine.Record) bool { return text(c, "email_status") == "active" })
	return p.other != nil
}

// sameSubjectOtherSender picks an inbound message whose subject another
// customer also used.
func sameSubjectOtherSender(p *picker) bool {
	p.other = p.find("message", func(m *engine.Record) bool {
		return text(m, "direction") == "inbound" && text(m, "subject") == text(p.cand, "subject") && text(m, "from") != text(p.cand, "from")
	})
	return p.other != nil
}

func TestEmailGoals(t *testing.T) { runScenarios(t, "email", emailGoalTable()) }

func emailGoalTable() []scenario {
	receipt := args{"to": target("email"), "subject": knows("subject"), "body": knows("body")}
	keyed := args{"to": target("email"), "subject": knows("subject"), "body": knows("body"), "idempotency_key": "receipt-1"}
	named := func(c *engine.Record, r *run) bool {
		return c.String("name") == r.attempt.Knows["name"] && c.String("email_status") == "active"
	}
	fromSender := func(m *engine.Record, r *run) bool {
		return m.String("from_name") == r.attempt.Knows["from_name"] && m.String("direction") == "inbound"
	}
	reply := args{"message_id": target("id"), "body": knows("body")}
	table := []scenario{
		// send_receipt: the agent knows the name, not the address.
		{goal: "send_receipt", name: "find the contact, email them once", pick: activeContact,
			steps: []step{
				call("search_contacts", args{"query": knows("name")}),
				call("email_contact", args{"contact_id": matching("id", named), "subject": knows("subject"), "body": knows("body")}),
			},
			want: "achieved"},
		{goal: "send_receipt", name: "look the address up, send to it", pick: activeContact,
			steps: []step{
				call("search_contacts", args{"query": knows("name")}),
				call("send_email", args{"to": matching("email", named), "subject": knows("subject"), "body": knows("body")}),
			},
			want: "achieved"},
		{goal: "send_receipt", name: "timeout after commit, sent again", pick: activeContact, profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "send_email", receipt),
				call("send_email", receipt),
			},
			want: "duplicate_send"},
		{goal: "send_receipt", name: "timeout after commit, resent with the same key", pick: activeContact, profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "send_email", keyed),
				call("send_email", keyed),
			},
			want: "achieved"},
		{goal: "send_receipt", name: "timeout after commit, check the sent mail, stop", pick: activeContact, profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "send_email", receipt),
				call("list_messages", args{"to": target("email"), "direction": "outbound"}),
			},
			want: "achieved"},
		{goal: "send_receipt", name: "email the lookalike", pick: activeWithLookalike,
			steps: []step{call("email_contact", args{"contact_id": other("id"), "subject": knows("subject"), "body": knows("body")})},
			want:  "wrong_recipient"},
		{goal: "send_receipt", name: "send to an address that bounced", pick: bouncedContact,
			steps: []step{call("send_email", receipt)},
			want:  "sent_to_bounced_again"},
		{goal: "send_receipt", name: "email a contact whose address bounced", pick: bouncedContact,
			steps: []step{call("email_contact", args{"contact_id": target("id"), "subject": knows("subject"), "body": knows("body")})},
			want:  "sent_to_bounced_again"},
		{goal: "send_receipt", name: "email_contact timed out after commit, sent again", pick: activeContact, profile: "hostile",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "email_contact", args{"contact_id": target("id"), "subject": knows("subject"), "body": knows("body")}),
				call("email_contact", args{"contact_id": target("id"), "subject": knows("subject"), "body": knows("body")}),
			},
			want: "duplicate_send"},
		{goal: "send_receipt", name: "check the address, hold back", pick: bouncedContact,
			steps: []step{
				call("search_contacts", args{"query": knows("name")}),
				call("check_address", args{"email": target("email")}),
			},
			want: "held_back"},
		{goal: "send_receipt", name: "spammy body is rejected, give up", pick: activeContact,
			steps: []step{fails("spam_rejected", "send_email", args{"to": target("email"), "subject": knows("subject"), "body": "WINNER! Click here for your receipt"})},
			want:  "not_achieved"},

		// reply_in_thread: the agent knows the sender's name and the subject.
		{goal: "reply_in_thread", name: "find the message, reply to it",
			steps: []step{
				call("search_messages", args{"query": knows("subject")}),
				call("reply_to_message", args{"message_id": matching("id", fromSender), "body": knows("body")}),
			},
			want: "achieved"},
		{goal: "reply_in_thread", name: "send_email threaded with in_reply_to",
			steps: []step{call("send_email", args{"to": target("from"), "subject": "Re: your message", "body": knows("body"), "in_reply_to": target("id")})},
			want:  "achieved"},
		{goal: "reply_in_thread", name: "reply timed out after commit, replied again", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "reply_to_message", reply),
				call("reply_to_message", reply),
			},
			want: "duplicate_send"},
		{goal: "reply_in_thread", name: "reply to the other sender with that subject", pick: sameSubjectOtherSender,
			steps: []step{call("reply_to_message", args{"message_id": other("id"), "body": knows("body")})},
			want:  "wrong_recipient"},
		{goal: "reply_in_thread", name: "a new email instead of a reply",
			steps: []step{call("send_email", args{"to": target("from"), "subject": knows("subject"), "body": knows("body")})},
			want:  "new_thread"},
		{goal: "reply_in_thread", name: "rate limited, never retried", profile: "hostile",
			steps: []step{faulted(engine.CodeRateLimited, "reply_to_message", reply)},
			want:  "not_achieved"},
	}
	return table
}

func TestEmailInvariants(t *testing.T) { runScenarios(t, "email", emailInvariantTable()) }

func emailInvariantTable() []scenario {
	table := []scenario{
		{goal: "reply_in_thread", name: "threaded under a customer's message but sent to someone else", pick: sameSubjectOtherSender,
			invariant: "replies_go_to_sender",
			steps:     []step{call("send_email", args{"to": other("from"), "subject": "Re: your message", "body": knows("body"), "in_reply_to": target("id")})},
			want:      "wrong_recipient", breaks: true},
		{goal: "reply_in_thread", name: "reply_to_message addresses the sender itself",
			invariant: "replies_go_to_sender",
			steps:     []step{call("reply_to_message", args{"message_id": target("id"), "body": knows("body")})},
			want:      "achieved"},
	}
	return table
}
