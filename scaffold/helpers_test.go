package scaffold

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readToolsFixture reads a saved tools/list result ({"tools": […]}), as
// recorded from a server for these tests.
func readToolsFixture(t *testing.T, path string) []*mcp.Tool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res mcp.ListToolsResult
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res.Tools
}

func memorySource(t *testing.T) *Source {
	t.Helper()
	src, err := FromMCP("server-memory.tools.json", "memory-server", "0.6.3", "", readToolsFixture(t, "testdata/server-memory.tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func petstoreSource(t *testing.T) *Source {
	t.Helper()
	data, err := os.ReadFile("testdata/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src, err := FromOpenAPI("petstore.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
