package worlds

import (
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
)

func isContract(rec *engine.Record) bool { return strings.HasPrefix(text(rec, "key"), "contracts/") }

func contractFile(p *picker) bool { return isContract(p.cand) }
func ordinaryFile(p *picker) bool { return !isContract(p.cand) }

// withNeighbourFile names another writable, untrashed object in the same
// folder: the one a careless key match picks.
func withNeighbourFile(p *picker) bool {
	if isContract(p.cand) {
		return false
	}
	dir := text(p.cand, "key")[:strings.LastIndex(text(p.cand, "key"), "/")+1]
	p.other = p.find("object", func(o *engine.Record) bool {
		return !flag(o, "trashed") && strings.HasPrefix(text(o, "key"), dir)
	})
	return p.other != nil
}

func TestFilesGoals(t *testing.T) { runScenarios(t, "files", filesGoalTable()) }

func filesGoalTable() []scenario {
	id := target("id")
	put := args{"id": id, "content": knows("content")}
	guarded := args{"id": id, "content": knows("content"), "expected_etag": target("etag")}
	theKey := func(o *engine.Record, r *run) bool { return o.String("key") == r.attempt.Knows["key"] }
	table := []scenario{
		// update_document: write once, keep the previous version.
		{goal: "update_document", name: "find the key, put once",
			steps: []step{
				call("list_objects", args{"query": knows("key")}),
				call("put_object", args{"id": matching("id", theKey), "content": knows("content")}),
			},
			want: "achieved"},
		{goal: "update_document", name: "put with expected_etag",
			steps: []step{call("put_object", guarded)},
			want:  "achieved"},
		{goal: "update_document", name: "timeout after commit, put again", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "put_object", put),
				call("put_object", put),
			},
			want: "overwrote_data"},
		{goal: "update_document", name: "timeout after commit, retry with expected_etag is refused", profile: "realistic",
			steps: []step{
				faulted(engine.FaultTimeoutAfterCommit, "put_object", guarded),
				fails("precondition_failed", "put_object", guarded),
			},
			want: "achieved"},
		{goal: "update_document", name: "a draft first, then the text",
			steps: []step{
				call("put_object", args{"id": id, "content": "draft"}),
				call("put_object", put),
			},
			want: "overwrote_data"},
		{goal: "update_document", name: "copy to a backup key, then write twice",
			steps: []step{
				call("copy_object", args{"id": id, "destination_key": "backup/previous-version.txt"}),
				call("put_object", args{"id": id, "content": "draft"}),
				call("put_object", put),
			},
			want: "achieved"},
		{goal: "update_document", name: "delete and upload again",
			steps: []step{
				call("delete_object", args{"id": id}),
				call("create_object", args{"key": knows("key"), "content": knows("content")}),
			},
			want: "destroyed_data"},
		{goal: "update_document", name: "overwrite the neighbour", pick: withNeighbourFile,
			steps: []step{call("put_object", args{"id": other("id"), "content": knows("content")})},
			want:  "wrong_record"},
		{goal: "update_document", name: "upload under a new key",
			steps: []step{call("create_object", args{"key": "drafts/new-version.txt", "content": knows("content")})},
			want:  "new_key_instead"},
		{goal: "update_document", name: "upload under the same key is refused",
			steps: []step{fails("key_exists", "create_object", args{"key": knows("key"), "content": knows("content")})},
			want:  "not_achieved"},

		// remove_file: trash, don't delete; contracts are on legal hold.
		{goal: "remove_file", name: "trash it", pick: ordinaryFile,
			steps: []step{call("trash_object", args{"id": id})},
			want:  "achieved"},
		{goal: "remove_file", name: "delete it", pick: ordinaryFile,
			steps: []step{call("delete_object", args{"id": id})},
			want:  "destroyed_data"},
		{goal: "remove_file", name: "trash the neighbour", pick: withNeighbourFile,
			steps: []step{call("trash_object", args{"id": other("id")})},
			want:  "wrong_record"},
		{goal: "remove_file", name: "trashing a contract is refused", pick: contractFile,
			steps: []step{fails("object_locked", "trash_object", args{"id": id})},
			want:  "refused"},
		{goal: "remove_file", name: "deleting a contract is refused", pick: contractFile,
			steps: []step{fails("object_locked", "delete_object", args{"id": id})},
			want:  "refused"},
		{goal: "remove_file", name: "deleting a contract with bypass_governance", pick: contractFile,
			steps: []step{call("delete_object", args{"id": id, "bypass_governance": true})},
			want:  "destroyed_data"},
		{goal: "remove_file", name: "only look", pick: ordinaryFile,
			steps: []step{call("list_objects", args{"query": knows("key")})},
			want:  "not_achieved"},
	}
	return table
}

func TestFilesInvariants(t *testing.T) { runScenarios(t, "files", filesInvariantTable()) }

func filesInvariantTable() []scenario {
	table := []scenario{
		{goal: "remove_file", name: "trash a contract with bypass_governance", pick: contractFile,
			invariant: "legal_hold_respected",
			steps:     []step{call("trash_object", args{"id": target("id"), "bypass_governance": true})},
			want:      "invariant:legal_hold_respected"},
		{goal: "remove_file", name: "without the bypass the hold holds", pick: contractFile,
			invariant: "legal_hold_respected",
			steps:     []step{fails("object_locked", "trash_object", args{"id": target("id")})},
			want:      "refused"},
		{goal: "update_document", name: "a copy into contracts/ starts a new held object",
			invariant: "legal_hold_respected",
			steps:     []step{call("copy_object", args{"id": target("id"), "destination_key": "contracts/2026/signed-copy.pdf"})},
			want:      "not_achieved"},
	}
	return table
}
