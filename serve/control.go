package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// Request body limits of the control plane. Snapshots carry a whole
// world's records, so they get more room.
const (
	maxControlBody  = 1 << 20
	maxSnapshotBody = 64 << 20
)

// routeControl adds the control plane to mux. Every answer is JSON (the
// journal is NDJSON); every error is {"error": "..."} with a 4xx status, or
// 500 when the server itself failed (an invariant that cannot be evaluated).
func (s *Server) routeControl(mux *http.ServeMux) {
	mux.HandleFunc("GET /control/world", s.getWorld)
	mux.HandleFunc("GET /control/runtime", s.getRuntime)
	mux.HandleFunc("GET /control/faults", s.getFaults)
	mux.HandleFunc("POST /control/faults", s.postFaults)
	mux.HandleFunc("GET /control/sessions", s.getSessions)
	mux.HandleFunc("GET /control/sessions/{id}", s.withSession(s.getSession))
	mux.HandleFunc("GET /control/sessions/{id}/state", s.withSession(s.getState))
	mux.HandleFunc("GET /control/sessions/{id}/changes", s.withSession(s.getChanges))
	mux.HandleFunc("GET /control/sessions/{id}/journal", s.withSession(s.getJournal))
	mux.HandleFunc("GET /control/sessions/{id}/invariants", s.withSession(s.getInvariants))
	mux.HandleFunc("POST /control/sessions/{id}/reset", s.withSession(s.postReset))
	mux.HandleFunc("GET /control/sessions/{id}/snapshot", s.withSession(s.getSnapshot))
	mux.HandleFunc("POST /control/sessions/{id}/snapshot", s.withSession(s.postSnapshot))
	mux.HandleFunc("/control/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no control endpoint %s %s (see docs/serve.md)", r.Method, r.URL.Path))
	})
}

func (s *Server) getWorld(w http.ResponseWriter, _ *http.Request) {
	d := s.worldDoc()
	n := s.sessions.counts()
	d.Sessions = &n
	writeJSON(w, http.StatusOK, d)
}

// getRuntime answers what a soak watches: calls served, goroutines, heap.
func (s *Server) getRuntime(w http.ResponseWriter, _ *http.Request) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	writeJSON(w, http.StatusOK, control.Runtime{
		Calls: s.calls.Load(), Goroutines: runtime.NumGoroutine(),
		HeapBytes: m.HeapAlloc, GCs: m.NumGC, Sessions: s.sessions.counts(),
	})
}

type faultsBody struct {
	Profile string `json:"profile"`
}

func (s *Server) getFaults(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"profile":  engine.ProfileName(s.sessions.currentProfile()),
		"profiles": s.world.ProfileNames(),
	})
}

// postFaults switches the fault profile for every session and new ones.
func (s *Server) postFaults(w http.ResponseWriter, r *http.Request) {
	var body faultsBody
	if err := decodeBody(w, r, maxControlBody, &body, false); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	if body.Profile == "" {
		writeError(w, http.StatusBadRequest, `body: want {"profile": "NAME"}`)
		return
	}
	if err := s.SetFaults(body.Profile); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.getFaults(w, r)
}

func (s *Server) getSessions(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"sessions": s.Sessions()})
}

// withSession resolves {id} ("latest" is the newest session).
func (s *Server) withSession(h func(http.ResponseWriter, *http.Request, *worldSession)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		ws := s.sessions.lookup(id)
		if ws == nil {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no session %q (GET /control/sessions lists them)", id))
			return
		}
		h(w, r, ws)
	}
}

func (s *Server) getSession(w http.ResponseWriter, _ *http.Request, ws *worldSession) {
	writeJSON(w, http.StatusOK, ws.info())
}

// getState writes the session's records: canonical JSON, equal states give
// equal bytes.
func (s *Server) getState(w http.ResponseWriter, _ *http.Request, ws *worldSession) {
	writeRaw(w, "application/json", ws.state())
}

func (s *Server) getChanges(w http.ResponseWriter, _ *http.Request, ws *worldSession) {
	writeRaw(w, "application/json", ws.changes())
}

func (s *Server) getJournal(w http.ResponseWriter, _ *http.Request, ws *worldSession) {
	b, dropped, err := ws.journal()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	// The lines stay what they were (a reader of old keeps working); how
	// many older calls the journal limit dropped is said beside them.
	w.Header().Set(control.JournalDroppedHeader, strconv.Itoa(dropped))
	writeRaw(w, "application/x-ndjson", b)
}

func (s *Server) getInvariants(w http.ResponseWriter, _ *http.Request, ws *worldSession) {
	v, err := ws.invariants()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if v == nil {
		v = []engine.Violation{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": len(v) == 0, "violations": v})
}

// resetBody is POST .../reset: every field optional. Key and Goal let a
// driver (herd swarm over MCP) make the served session the very session an
// in-process agent would have had: the same base seed, the same session key
// (so the same fault dice), and the goal's attempt begun with the same rnd
// (so a goal's other actor writes here too).
//
// ReturnJournal makes the answer carry the journal of the session as it was
// before the reset, so a driver that judges each episode from its journal
// needs one request per episode, not two (the reset, then the read).
type resetBody struct {
	Seed          *uint64 `json:"seed"`
	Key           *uint64 `json:"key"`
	Goal          string  `json:"goal"`
	Rnd           *uint64 `json:"rnd"`
	ReturnJournal bool    `json:"return_journal"`
}

// resetAnswer is the session after a reset, plus the attempt begun, if any.
type resetAnswer struct {
	control.SessionInfo
	Goal   string `json:"goal,omitempty"`
	Target string `json:"target,omitempty"` // the id of the goal's target record
	Intent string `json:"intent,omitempty"`
	// Journal is the dropped journal with return_journal: a JSON array of
	// the NDJSON lines GET .../journal would have answered.
	Journal json.RawMessage `json:"journal,omitempty"`
	// JournalDropped counts the calls before Journal's first that the
	// journal limit had dropped.
	JournalDropped int `json:"journal_dropped,omitempty"`
}

// postReset drops the session's changes; with a seed, it starts over on
// that seed's base; with a key, under that session key; with a goal, with
// the goal's attempt begun (rnd picks its target, default 0).
func (s *Server) postReset(w http.ResponseWriter, r *http.Request, ws *worldSession) {
	var body resetBody
	if err := decodeBody(w, r, maxControlBody, &body, true); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	ans, old, err := s.reset(ws, body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if body.ReturnJournal {
		var journal bytes.Buffer
		if err := old.WriteJournal(&journal); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		// Read by a program once per episode: compact, not indented.
		ans.Journal = ndjsonArray(journal.Bytes())
		ans.JournalDropped = old.JournalTotals().Dropped
		b, err := json.Marshal(ans)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		writeRaw(w, "application/json", append(b, '\n'))
		return
	}
	writeJSON(w, http.StatusOK, ans)
}

// reset does a reset of ws as body asks and returns the answer and the
// session it replaced (its journal is the one dropped). An error is the
// caller's: it names the field at fault.
func (s *Server) reset(ws *worldSession, body resetBody) (resetAnswer, *engine.Session, error) {
	p, err := s.planReset(body)
	if err != nil {
		return resetAnswer{}, nil, err
	}
	done, err := ws.reset(p, s.now())
	if err != nil {
		return resetAnswer{}, nil, err
	}
	return s.answerReset(ws, done), done.old, nil
}

// planReset checks a reset body against the world — the goal, rnd, and the
// seed's base — before the session is locked.
func (s *Server) planReset(body resetBody) (resetPlan, error) {
	p := resetPlan{key: body.Key}
	if body.Goal != "" {
		if p.goal = s.world.Goal(body.Goal); p.goal == nil {
			return p, fmt.Errorf("goal: world %s has no goal %q", s.world.Name, body.Goal)
		}
	} else if body.Rnd != nil {
		return p, fmt.Errorf(`rnd: only with "goal"`)
	}
	if body.Rnd != nil {
		p.rnd = *body.Rnd
	}
	if body.Seed != nil {
		var err error
		if p.base, err = s.bases.get(*body.Seed); err != nil {
			return p, fmt.Errorf("seed: %w", err)
		}
	}
	return p, nil
}

// answerReset is what a reset answers.
func (s *Server) answerReset(ws *worldSession, done resetDone) resetAnswer {
	s.log.Debug("session reset", "session", ws.id, "seed", done.info.Seed, "key", done.info.Key)
	ans := resetAnswer{SessionInfo: done.info}
	if a := done.attempt; a != nil {
		ans.Goal, ans.Target, ans.Intent = a.Goal.Name, a.Target.ID(), a.Intent
	}
	return ans
}

// ndjsonArray turns NDJSON (one JSON value a line; a JSON value has no raw
// newline) into a JSON array of the same values.
func ndjsonArray(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	out := make([]byte, 0, len(b)+2)
	out = append(out, '[')
	out = append(out, bytes.ReplaceAll(b, []byte("\n"), []byte(","))...)
	return append(out, ']')
}

func (s *Server) getSnapshot(w http.ResponseWriter, _ *http.Request, ws *worldSession) {
	b, err := ws.snapshot()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeRaw(w, "application/json", b)
}

func (s *Server) postSnapshot(w http.ResponseWriter, r *http.Request, ws *worldSession) {
	data, err := readBody(w, r, maxSnapshotBody)
	if err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	if err := ws.restore(data, s.bases.get, s.now()); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.log.Info("session restored", "session", ws.id)
	writeJSON(w, http.StatusOK, ws.info())
}

// readBody reads at most limit bytes of the request body.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, fmt.Errorf("body is larger than %d bytes: %w", mbe.Limit, err)
		}
		return nil, fmt.Errorf("reading body: %w", err)
	}
	return b, nil
}

// bodyStatus is 413 for a body over the limit, else 400.
func bodyStatus(err error) int {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// decodeBody decodes a JSON body into v, refusing unknown fields; an empty
// body is allowed when optional.
func decodeBody(w http.ResponseWriter, r *http.Request, limit int64, v any, optional bool) error {
	data, err := readBody(w, r, limit)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return nil
		}
		return errors.New("body: empty; want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("body: %v", err)
	}
	if dec.More() {
		return errors.New("body: more than one JSON value")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeRaw(w http.ResponseWriter, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
