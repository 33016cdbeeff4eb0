package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/internal/tuitest"
)

// wait bounds every wait: a broken server fails the test instead of hanging it.
const wait = 5 * time.Second

// start serves on an ephemeral loopback port; edit adjusts the config first.
func start(t *testing.T, edit func(*Config), hook func(tea.Msg)) (*Server, string) {
	t.Helper()
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := LoadHostKey(filepath.Join(t.TempDir(), "host_key"), true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scenario: tuitest.Scenario(t, "llama-2-7b", "h100-sxm", "nvlink4", model.Train, 8, 4, 2),
		Presets: p, HostKey: key}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.hook = hook
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(done) }()
	t.Cleanup(func() {
		_ = srv.Close()
		select {
		case <-done:
		case <-time.After(wait):
			t.Error("server did not stop")
		}
	})
	return srv, ln.Addr().String()
}

func dial(t *testing.T, addr string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	t.Helper()
	return gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "student", Auth: auth,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait})
}

// term is one client terminal: a PTY session whose output is collected, answering the
// renderer's terminal queries (background colour, device attributes) as a terminal does.
type term struct {
	t    *testing.T
	c    *gossh.Client
	s    *gossh.Session
	in   interface{ Write([]byte) (int, error) }
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
}

func open(t *testing.T, addr string, env map[string]string, cmd string) *term {
	t.Helper()
	return openAuth(t, addr, nil, env, cmd)
}

// openAuth is open, logging in with auth.
func openAuth(t *testing.T, addr string, auth []gossh.AuthMethod, env map[string]string, cmd string) *term {
	t.Helper()
	c, err := dial(t, addr, auth...)
	if err != nil {
		t.Fatal(err)
	}
	return openOn(t, c, env, cmd)
}

// openOn is open on the connection c (closed at the test's end).
func openOn(t *testing.T, c *gossh.Client, env map[string]string, cmd string) *term {
	t.Helper()
	t.Cleanup(func() { _ = c.Close() })
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		if err := s.Setenv(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, c: c, s: s, done: make(chan error, 1)}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	tm.in = in
	out, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := out.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			ask := bytes.Contains(buf[:n], []byte("\x1b[c"))
			tm.mu.Unlock()
			if ask {
				_, _ = in.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[?62c"))
			}
			if err != nil {
				return
			}
		}
	}()
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		t.Fatal(err)
	}
	go func() { tm.done <- s.Wait() }()
	return tm
}

// screen is what the terminal received since mark, escape sequences stripped.
func (tm *term) screen(mark int) string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return ansi.Strip(string(tm.out.Bytes()[min(mark, tm.out.Len()):]))
}

func (tm *term) mark() int {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.Len()
}

// see waits until every text has arrived since mark.
func (tm *term) see(mark int, texts ...string) {
	tm.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		s, all := tm.screen(mark), true
		for _, x := range texts {
			all = all && strings.Contains(s, x)
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("never saw %q; got %q", texts, s[max(len(s)-1500, 0):])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (tm *term) send(keys string) {
	tm.t.Helper()
	if _, err := tm.in.Write([]byte(keys)); err != nil {
		tm.t.Fatal(err)
	}
}

// exit waits for the session's end and returns its error (nil: exit status 0).
func (tm *term) exit() error {
	tm.t.Helper()
	select {
	case err := <-tm.done:
		return err
	case <-time.After(wait):
		tm.t.Fatal("session did not end")
		return nil
	}
}

// A session: the explorer at the PTY's size, re-laid on a window change, keys, q exits 0.
func TestSessionOpenResizeKeysQuit(t *testing.T) {
	_, addr := start(t, nil, nil)
	tm := open(t, addr, nil, "")
	tm.see(0, "Pipeline", "Compare", "Learn")
	m := tm.mark()
	if err := tm.s.WindowChange(10, 40); err != nil {
		t.Fatal(err)
	}
	tm.see(m, "splitscope needs", "40×10")
	m = tm.mark()
	if err := tm.s.WindowChange(24, 80); err != nil {
		t.Fatal(err)
	}
	tm.see(m, "Pipeline")
	m = tm.mark()
	tm.send("\t\t") // Pipeline → Tensor → Compare
	tm.see(m, "TP-only")
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Fatalf("q: %v, want exit status 0", err)
	}
}

// s and x in a served session write nothing (the server runs in an empty directory with HOME
// there) and show the scenario file and the report instead; LANG=fr gives the French texts.
func TestServedSaveWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", "")
	var logs syncBuf
	defer func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	}()
	_, addr := start(t, func(c *Config) { c.Log = &logs }, nil)
	tm := open(t, addr, map[string]string{"LANG": "fr_FR.UTF-8"}, "")
	tm.see(0, "Pipeline")
	m := tm.mark()
	tm.send("s")
	tm.see(m, "Scenario file", "splitscope --scenario", "model: llama-2-7b", "nothing is written on the server")
	m = tm.mark()
	tm.send("\x1b") // alone: esc and x in one read would be alt+x
	tm.see(m, "Pipeline")
	m = tm.mark()
	tm.send("x")
	tm.see(m, "Report (Markdown)")
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("the served session wrote %v", ents)
	}
}

// Commands other than a language and a session without a PTY get one line and exit 1; a
// language command opens the explorer.
func TestExecRefusedLanguageTaken(t *testing.T) {
	_, addr := start(t, nil, nil)
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, cmd := range []string{"ls", "sh -c id"} {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.CombinedOutput(cmd)
		var ee *gossh.ExitError
		if !errors.As(err, &ee) || ee.ExitStatus() != 1 || !strings.Contains(string(out), "explorer only, no commands") {
			t.Errorf("exec %q: %v, %q; want exit 1 and the refusal", cmd, err, out)
		}
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.CombinedOutput("")
	if err == nil || !strings.Contains(string(out), "PTY") {
		t.Errorf("shell without a PTY: %v, %q; want a refusal", err, out)
	}
	tm := open(t, addr, nil, "fr")
	tm.see(0, "Pipeline")
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Fatal(err)
	}
}

// Port forwarding (direct-tcpip and tcpip-forward), agent channels and SFTP are not offered.
func TestForwardingRefused(t *testing.T) {
	_, addr := start(t, nil, nil)
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if conn, err := c.Dial("tcp", "127.0.0.1:1"); err == nil {
		conn.Close()
		t.Error("direct-tcpip accepted")
	}
	if ok, _, err := c.SendRequest("tcpip-forward", true, gossh.Marshal(struct {
		Addr string
		Port uint32
	}{"127.0.0.1", 0})); ok || err != nil {
		t.Errorf("tcpip-forward: ok %v, %v; want refused", ok, err)
	}
	if _, _, err := c.OpenChannel("auth-agent@openssh.com", nil); err == nil {
		t.Error("agent channel accepted")
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestSubsystem("sftp"); err == nil {
		t.Error("sftp subsystem accepted")
	}
	_ = s.Close()
}

// A wrong password and a key not in the authorized keys are refused; the right ones get in.
func TestAuth(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	good, _ := gossh.NewSignerFromKey(priv)
	bad, _ := gossh.NewSignerFromKey(other)
	sshPub, _ := gossh.NewPublicKey(pub)
	_, addr := start(t, func(c *Config) {
		c.Password = "lesson"
		c.AuthorizedKeys = []gossh.PublicKey{sshPub}
	}, nil)
	for name, a := range map[string]gossh.AuthMethod{"wrong password": gossh.Password("nope"), "other key": gossh.PublicKeys(bad)} {
		if c, err := dial(t, addr, a); err == nil {
			c.Close()
			t.Errorf("%s: got in", name)
		}
	}
	for name, a := range map[string]gossh.AuthMethod{"password": gossh.Password("lesson"), "key": gossh.PublicKeys(good)} {
		c, err := dial(t, addr, a)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		c.Close()
	}
}

// --max-sessions 1: a second session at once is refused with a line, the first goes on.
func TestMaxSessions(t *testing.T) {
	_, addr := start(t, func(c *Config) { c.MaxSessions = 1 }, nil)
	first := open(t, addr, nil, "")
	first.see(0, "Pipeline")
	second := open(t, addr, nil, "")
	err := second.exit()
	var ee *gossh.ExitError
	if !errors.As(err, &ee) || ee.ExitStatus() != 1 {
		t.Errorf("second session: %v; want exit 1", err)
	}
	m := first.mark()
	first.send("\t")
	first.see(m, "Tensor")
	first.send("q")
	if err := first.exit(); err != nil {
		t.Fatal(err)
	}
}

// A session whose explorer panics ends alone (exit 1, logged); another goes on; every
// session's goroutines end with it.
func TestPanicEndsOneSessionAndGoroutinesEnd(t *testing.T) {
	before := runtime.NumGoroutine()
	var logs syncBuf
	_, addr := start(t, func(c *Config) { c.Log = &logs }, func(msg tea.Msg) {
		if k, ok := msg.(tea.KeyMsg); ok && k.String() == "!" {
			panic("injected")
		}
	})
	a := open(t, addr, nil, "")
	b := open(t, addr, nil, "")
	a.see(0, "Pipeline")
	b.see(0, "Pipeline")
	a.send("!")
	err := a.exit()
	var ee *gossh.ExitError
	if !errors.As(err, &ee) || ee.ExitStatus() != 1 {
		t.Errorf("panicking session: %v; want exit 1", err)
	}
	if !strings.Contains(logs.String(), "explorer panicked: injected") {
		t.Errorf("log lacks the panic: %q", logs.String())
	}
	m := b.mark()
	b.send("\t")
	b.see(m, "Tensor")
	b.send("q")
	if err := b.exit(); err != nil {
		t.Fatal(err)
	}
	a.c.Close()
	b.c.Close()
	// Timers of the explorers' commands (a footer note, a frame) end within seconds.
	deadline := time.Now().Add(8 * time.Second)
	for runtime.NumGoroutine() > before+4 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+4 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after the sessions ended:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// still is a model whose view is whatever it was set to.
type still struct{ v *string }

func (s still) Init() tea.Cmd                       { return nil }
func (s still) Update(tea.Msg) (tea.Model, tea.Cmd) { return s, nil }
func (s still) View() string                        { return *s.v }

// A served view never goes out equal to the one before it (Bubble Tea's renderer would compare
// it at every tick from then on), and reads the same as the explorer drew it.
func TestGuardViewNeverRepeats(t *testing.T) {
	var v string
	g := &guard{m: still{&v}}
	prev := ""
	for i, drawn := range []string{"A\nfoot", "A\nfoot", "A\nfoot", "B\nfoot", "B\nfoot", "A\nfoot", "A\nfoot"} {
		v = drawn
		out := g.View()
		if out == prev {
			t.Errorf("view %d went out as the one before it: %q", i, out)
		}
		if ansi.Strip(out) != drawn {
			t.Errorf("view %d reads %q, drawn %q", i, ansi.Strip(out), drawn)
		}
		prev = out
	}
}

// A client asking to forward its agent is told yes by the SSH library (charmbracelet/ssh
// answers auth-agent-req itself), but the server never opens an agent channel back to it: the
// client's keys stay out of reach of the server for the whole session.
func TestAgentNeverForwarded(t *testing.T) {
	_, addr := start(t, nil, nil)
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	opened := c.HandleChannelOpen("auth-agent@openssh.com")
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendRequest("auth-agent-req@openssh.com", true, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.StdinPipe()
	out, _ := s.StdoutPipe()
	seen := make(chan struct{})
	go func() {
		var all bytes.Buffer
		buf := make([]byte, 32<<10)
		once := sync.Once{}
		for {
			n, err := out.Read(buf)
			all.Write(buf[:n])
			if bytes.Contains(buf[:n], []byte("\x1b[c")) {
				_, _ = in.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[?62c"))
			}
			if strings.Contains(ansi.Strip(all.String()), "Pipeline") {
				once.Do(func() { close(seen) })
			}
			if err != nil {
				return
			}
		}
	}()
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-seen:
	case <-time.After(wait):
		t.Fatal("the explorer never drew")
	}
	_, _ = in.Write([]byte("2\t5")) // a few keys: the session goes on
	select {
	case ch := <-opened:
		_ = ch.Reject(gossh.Prohibited, "test")
		t.Fatal("the server opened an agent channel to the client")
	case <-time.After(500 * time.Millisecond):
	}
	_, _ = in.Write([]byte("q"))
	_ = s.Wait()
	select {
	case <-opened:
		t.Fatal("the server opened an agent channel to the client")
	default:
	}
}

// A client asking for a huge window is drawn at most MaxCols×MaxRows: no line wider, the session
// goes on (unbounded, a 50000×20000 window kept its session drawing for good), and a normal size
// comes back whole.
func TestHugeWindowBounded(t *testing.T) {
	_, addr := start(t, nil, nil)
	tm := open(t, addr, nil, "")
	tm.see(0, "Pipeline")
	m := tm.mark()
	if err := tm.s.WindowChange(50000, 20000); err != nil {
		t.Fatal(err)
	}
	tm.send("\t") // a frame drawn at the huge size
	tm.see(m, "Tensor")
	// Every line of what came since is at most MaxCols wide (the renderer moves the cursor
	// with escapes and writes lines; strip them and measure the longest run between them).
	tm.mu.Lock()
	out := tm.out.String()[m:]
	tm.mu.Unlock()
	widest := 0
	for _, l := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' || r == '\x1b' }) {
		widest = max(widest, ansi.StringWidth(ansi.Strip("\x1b"+l)))
	}
	if widest > MaxCols+2 {
		t.Errorf("a line %d cells wide; want at most %d", widest, MaxCols)
	}
	m = tm.mark()
	if err := tm.s.WindowChange(24, 80); err != nil {
		t.Fatal(err)
	}
	tm.see(m, "Tensor")
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Fatalf("q: %v, want exit status 0", err)
	}
}
