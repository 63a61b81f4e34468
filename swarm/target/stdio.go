package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// stderrTail is how much of a subprocess's stderr is kept for messages.
const stderrTail = 20

// controlWait bounds how long the swarm waits for a herd subprocess to say
// where its control plane listens.
const controlWait = 5 * time.Second

// process is one MCP server subprocess and its MCP session.
type process struct {
	cs     *mcp.ClientSession
	stderr *stderrWatch
	cmd    *exec.Cmd
	// exited is closed once the process has exited (waitErr then says
	// how): a run tells a process that died from one that is slow.
	exited  chan struct{}
	waitErr error
}

// terminateWait is how long a closing process gets to exit by itself
// (stdin closed), and then after SIGTERM, before it is killed.
const terminateWait = 2 * time.Second

// startProcess starts command as an MCP server over stdio and initializes
// a session with it. Its stdout lines that are not JSON objects are
// skipped and counted in skipped.
func startProcess(ctx context.Context, command []string, skipped *SkippedLines) (*process, error) {
	cmd := exec.Command(command[0], command[1:]...)
	w := newStderrWatch()
	cmd.Stderr = w
	p := &process{stderr: w, cmd: cmd, exited: make(chan struct{})}
	tr, err := p.start(skipped)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(command, " "), err)
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		_ = cmd.Process.Kill()
		<-p.exited
		return nil, fmt.Errorf("starting %s: %w%s", strings.Join(command, " "), err, w.tailNote())
	}
	p.cs = cs
	return p, nil
}

// start starts the process on pipes of its own (so that waiting for it
// never races a read of its stdout) and returns the transport over them:
// its stdout through the JSON line filter, its stdin closed the way the
// MCP spec says a client ends a stdio session.
func (p *process) start(skipped *SkippedLines) (mcp.Transport, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p.cmd.Stdin, p.cmd.Stdout = inR, outW
	err = p.cmd.Start()
	inR.Close() // the child's ends: the child has its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	return &mcp.IOTransport{
		Reader:        readCloser{newJSONLines(outR, skipped, maxStdoutLine), outR},
		Writer:        &stdinCloser{File: inW, p: p},
		MaxLineLength: maxStdoutLine,
	}, nil
}

// readCloser reads through a filter and closes the file beneath it.
type readCloser struct {
	io.Reader
	f *os.File
}

func (r readCloser) Close() error { return r.f.Close() }

// stdinCloser is the process's stdin; closing it ends the process: stdin
// is closed, the process gets terminateWait to exit, then SIGTERM, then
// SIGKILL.
type stdinCloser struct {
	*os.File
	p *process
}

func (s *stdinCloser) Close() error {
	err := s.File.Close()
	p := s.p
	for _, sig := range []os.Signal{nil, syscall.SIGTERM, os.Kill} {
		if sig != nil {
			_ = p.cmd.Process.Signal(sig)
		}
		select {
		case <-p.exited:
			return err
		case <-time.After(terminateWait):
		}
	}
	return fmt.Errorf("process %d did not exit after SIGKILL", p.cmd.Process.Pid)
}

// dead reports whether the process has exited.
func (p *process) dead() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// close ends the session: stdin is closed, the process gets two seconds to
// exit, then SIGTERM, then SIGKILL.
func (p *process) close() error {
	err := p.cs.Close()
	if p.dead() {
		return nil // it exited; how is no concern of a closing client
	}
	return err
}

// isHerd reports whether the server introduced itself as herd.
func (p *process) isHerd() bool {
	r := p.cs.InitializeResult()
	return r != nil && r.ServerInfo != nil && r.ServerInfo.Name == "herd"
}

// announcedControl is the control plane URL in the initialize result's
// experimental capabilities ("" when there is none).
func (p *process) announcedControl() string {
	r := p.cs.InitializeResult()
	if r == nil || r.Capabilities == nil {
		return ""
	}
	switch a := r.Capabilities.Experimental[control.Capability].(type) {
	case map[string]any:
		u, _ := a["url"].(string)
		return u
	}
	return ""
}

// stderrWatch keeps the last lines of a subprocess's stderr, and spots the
// line where herd serve says where its control plane listens.
type stderrWatch struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
	control string
	found   chan struct{}
}

var controlLine = regexp.MustCompile(`control plane listening.*\burl=(\S+/control)`)

func newStderrWatch() *stderrWatch { return &stderrWatch{found: make(chan struct{})} }

func (w *stderrWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := string(bytes.TrimRight(w.partial[:i], "\r"))
		w.partial = w.partial[i+1:]
		if w.control == "" {
			if m := controlLine.FindStringSubmatch(line); m != nil {
				w.control = strings.Trim(m[1], `"`)
				close(w.found)
			}
		}
		w.lines = append(w.lines, line)
		if len(w.lines) > stderrTail {
			w.lines = w.lines[len(w.lines)-stderrTail:]
		}
	}
	if len(w.partial) > 4096 {
		w.partial = w.partial[len(w.partial)-4096:]
	}
	return len(p), nil
}

// waitControl returns the control plane URL the process announced, "" when
// it announced none within d.
func (w *stderrWatch) waitControl(d time.Duration) string {
	select {
	case <-w.found:
	case <-time.After(d):
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.control
}

// tailNote is the end of stderr, for an error message ("" when silent).
func (w *stderrWatch) tailNote() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := w.lines
	if len(w.partial) > 0 {
		lines = append(lines[:len(lines):len(lines)], string(w.partial))
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return "; its stderr ends: " + strings.Join(lines, " | ")
}

// Stdio is the first subprocess of an mcp+stdio: target, started to find
// out what the server is: a herd world (with a control plane the swarm can
// read) or any other MCP server.
type Stdio struct {
	command []string
	first   *process
	control *control.Client // nil: not a herd world, or no control plane
	// skipped counts the stdout lines of every process of this command
	// that were not JSON.
	skipped *SkippedLines
	hc      *http.Client
	opts    Options
}

// StartStdio starts the command once and looks at what answered. A herd
// server is recognised by its name; its control plane by the line herd
// serve logs when started with --control ADDR.
func StartStdio(ctx context.Context, command []string, hc *http.Client, opts Options) (*Stdio, error) {
	skipped := &SkippedLines{}
	p, err := startProcess(ctx, command, skipped)
	if err != nil {
		return nil, err
	}
	s := &Stdio{command: command, first: p, hc: hc, opts: opts, skipped: skipped}
	if p.isHerd() {
		if s.control, err = p.control(hc, opts.AllowHosts); err != nil {
			_ = p.close()
			return nil, fmt.Errorf("%s: its control plane: %w", strings.Join(command, " "), err)
		}
	}
	return s, nil
}

// control is the control plane the process announced (nil when it
// announced none); its host must pass CheckHost. A herd server says where
// it is in its initialize result (control.Capability), whatever its log
// level; one too old to do so is read from its stderr, where it logs the
// address at info level, for up to controlWait.
func (p *process) control(hc *http.Client, allow []string) (*control.Client, error) {
	u := p.announcedControl()
	if u == "" {
		u = p.stderr.waitControl(controlWait)
	}
	if u == "" {
		return nil, nil
	}
	cu, err := url.Parse(u)
	if err == nil {
		err = CheckHost(cu, allow)
	}
	if err != nil {
		return nil, err
	}
	return control.NewClient(u, hc), nil
}

// ErrNoControlPlane is a herd server over stdio started without its
// control plane, which the swarm needs to judge end states: a command
// tells the user how to start it with one.
var ErrNoControlPlane = errors.New("herd serve over stdio needs its control plane to judge end states")

// IsHerd reports whether the server is herd serve.
func (s *Stdio) IsHerd() bool { return s.first.isHerd() }

// Control is the herd server's control plane (nil when it has none).
func (s *Stdio) Control() *control.Client { return s.control }

// Close ends the first process (when no target took it over).
func (s *Stdio) Close() error {
	if s.first == nil {
		return nil
	}
	err := s.first.close()
	s.first = nil
	return err
}

// Served turns a herd stdio server into a swarm target: a pool of
// subprocesses, each one MCP session (named "stdio" on its own control
// plane), reset for every episode. The first process is its first
// connection. name is what the results call the target.
func (s *Stdio) Served(name string, w *engine.World, profile string) (*Served, error) {
	if s.control == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrNoControlPlane)
	}
	first := &conn{cs: s.first.cs, id: "stdio", ctl: s.control, close: s.first.close}
	s.first = nil
	hc, command, allow, skipped := s.hc, s.command, s.opts.AllowHosts, s.skipped
	dial := func(ctx context.Context) (*conn, error) {
		p, err := startProcess(ctx, command, skipped)
		if err != nil {
			return nil, err
		}
		ctl, err := p.control(hc, allow)
		if err == nil && ctl == nil {
			err = fmt.Errorf("%s: the new process announced no control plane%s", name, p.stderr.tailNote())
		}
		if err != nil {
			_ = p.close()
			return nil, err
		}
		return &conn{cs: p.cs, id: "stdio", ctl: ctl, close: p.close}, nil
	}
	t := newServed(name, w, profile, dial, s.opts.CallTimeout)
	t.adopt(first)
	return t, nil
}
