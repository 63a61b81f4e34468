package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// A call whose _meta carries sh.herd/reset runs on the session reset as
// POST …/reset would have reset it — seed, a key past 2^53 kept exactly,
// the goal's attempt begun — and its result's _meta answers with the
// session, the goal's target and the journal the reset dropped.
func TestCallResetsBySessionMeta(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42})
	base := startHTTP(t, s)
	hc := pooledClient("")
	cs := connectHTTP(t, base, hc)
	url := base + "/control/sessions/" + cs.ID()
	call(t, cs, "get_contact", map[string]any{"id": "c_0004"})
	call(t, cs, "archive_contact", map[string]any{"id": "c_0004"})
	_, dropped := getBody(t, hc, url+"/journal")

	const seed, key, rnd = 7, uint64(1<<64 - 59), 3
	w := loadCRM(t)
	goal := w.Goals[0]
	b, err := w.Seed(seed)
	if err != nil {
		t.Fatal(err)
	}
	local := b.NewSession(key, s.world.Profile("none"))
	attempt, err := goal.Begin(local, rnd)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"id": attempt.Target.ID()}
	wantText, wantErr := engineText(t, local.Call("get_contact", args))

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
		Meta: mcp.Meta{control.ResetMeta: control.MetaReset{Seed: "7", Key: strconv.FormatUint(key, 10), Goal: goal.Name, Rnd: "3", ReturnJournal: true}},
		Name: "get_contact", Arguments: args,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != wantText || res.IsError != wantErr {
		t.Errorf("the call after the reset answered %s (error %v), in-process %s (error %v)", got, res.IsError, wantText, wantErr)
	}
	ans, ok := res.Meta[control.ResetMeta].(map[string]any)
	if !ok {
		t.Fatalf("result _meta: %v", res.Meta)
	}
	for field, want := range map[string]any{
		"session": cs.ID(), "seed": "7", "key": strconv.FormatUint(key, 10),
		"goal": goal.Name, "target": attempt.Target.ID(),
	} {
		if ans[field] != want {
			t.Errorf("_meta %s = %v, want %v", field, ans[field], want)
		}
	}
	// The journal dropped: GET …/journal's lines without latency and result.
	var want []any
	for _, line := range bytes.Split(bytes.TrimSpace(dropped), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "latency_ms")
		delete(m, "result")
		want = append(want, m)
	}
	if len(want) != 2 || !reflect.DeepEqual(ans["journal"], want) {
		t.Errorf("_meta journal:\n%v\nwant\n%v", ans["journal"], want)
	}
	if got := sessionKey(t, hc, base, cs.ID()); got != key {
		t.Errorf("session key after the reset %d, want %d", got, key)
	}
	_, after := getBody(t, hc, url+"/journal")
	// The call ran on the session as reset, nothing between: at its start.
	if lines := parseJournal(t, after); len(lines) != 1 || lines[0].Tool != "get_contact" || lines[0].AtMS != 0 {
		t.Errorf("journal after the reset: %s", after)
	}
}

// A _meta reset that cannot be done is a protocol error naming the field,
// and no call happens: the session is as it was.
func TestBadSessionMetaIsRefused(t *testing.T) {
	hc, cs, url := crmSessionHTTP(t)
	call(t, cs, "get_contact", map[string]any{"id": "c_0004"})
	_, before := getBody(t, hc, url+"/journal")

	for _, c := range []struct {
		meta any
		want string
	}{
		{map[string]any{"seed": 7}, `seed: want an unsigned integer as a decimal string ("42"), got float64`},
		{map[string]any{"key": "-1"}, `key: want an unsigned integer as a decimal string, got "-1"`},
		{map[string]any{"goal": "no_such_goal"}, `goal: world crm has no goal "no_such_goal"`},
		{map[string]any{"rnd": "1"}, `rnd: only with "goal"`},
		{map[string]any{"return_journal": "yes"}, `return_journal: want true or false, got string`},
		{map[string]any{"sede": "7"}, `unknown field "sede"`},
		{"7", `want an object`},
	} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
			Meta: mcp.Meta{control.ResetMeta: c.meta}, Name: "get_contact", Arguments: map[string]any{"id": "c_0001"},
		})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, c.want) || !strings.Contains(rpcErr.Message, control.ResetMeta) {
			t.Errorf("_meta %v: got %v, want an invalid-params error saying %q", c.meta, err, c.want)
		}
	}
	if code, after := getBody(t, hc, url+"/journal"); code != http.StatusOK || string(after) != string(before) {
		t.Errorf("refused resets changed the session: journal\n%s\nwas\n%s", after, before)
	}
}
