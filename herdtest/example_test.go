package herdtest_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/herdtest"
)

// A test suite serves a world, points its agent's MCP client at it, and
// asserts on the world's end state through the control plane. Here the
// "agent" is a plain go-sdk client that archives one contact.
func TestServedWorldArchiveContact(t *testing.T) {
	w := herdtest.Start(t, "mock:crm", herdtest.Served(), herdtest.Seed(42))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "example-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: w.Endpoint()}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", w.Endpoint(), err)
	}
	defer cs.Close()

	// Pick a contact the CRM lets us archive: active and not locked.
	session := w.Session(cs.ID())
	before := session.State(t)
	var id string
	var version any
	for _, c := range before.Records("contact") {
		if c["archived"] == false && c["locked"] == false {
			id, version = c["id"].(string), c["version"]
			break
		}
	}
	if id == "" {
		t.Fatal("the seeded CRM has no active, unlocked contact")
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "archive_contact", Arguments: map[string]any{"id": id}})
	if err != nil {
		t.Fatalf("archive_contact: %v", err)
	}
	if res.IsError {
		t.Fatalf("archive_contact %s refused: %v", id, res.Content)
	}

	// The end state: archived, not deleted, one version later, audited.
	session.AssertRecord(t, "contact", id, "archived", true)
	session.AssertRecord(t, "contact", id, "version", mustInt(t, version)+1)
	session.AssertCount(t, "contact", before.Count("contact"))
	session.AssertCountWhere(t, "audit", "action", "archive", 1)
	session.AssertCalls(t, "archive_contact", 1)
	session.AssertCalls(t, "delete_contact", 0)
	session.AssertInvariants(t)
	// The same, for the newest session (the only one here).
	w.AssertRecord(t, "contact", id, "archived", true)

	// Reset puts the world back for the next case.
	if err := w.Control().Reset(42); err != nil {
		t.Fatal(err)
	}
	session.AssertRecord(t, "contact", id, "archived", false)
	session.AssertCount(t, "audit", 0)
}

// mustInt reads an int field of a record (numbers decode as json.Number).
func mustInt(t *testing.T, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return i
}
