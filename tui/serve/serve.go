// Package serve is splitscope serve: the explorer for every SSH client, a classroom with nothing
// to install. Each session gets its own tui.Model at its own terminal size, colour profile and
// language. The SSH protocol is charmbracelet/wish's (and its ssh fork's); this package only
// chooses the middleware and builds the sessions' explorers.
//
// Safe by construction: sessions run the explorer and nothing else. No shell and no command
// runs (a command other than a language is refused with one line); no port, agent or X11
// forwarding nor SFTP is offered (wish enables none unless asked, and nothing here asks; the ssh
// library answers a client's agent request yes by itself, but no agent channel is ever opened
// back, TestAgentNeverForwarded); the
// explorer is told it is served (tui.WithServed), so s and x show text instead of writing on
// this machine's disk, and the Box tab probes this machine's GPUs only with ShareBox.
package serve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/charmbracelet/wish/ratelimiter"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/time/rate"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui"
	"github.com/splitscope/splitscope/tui/common"
)

// Defaults of the command line's flags.
const (
	DefaultListen      = ":2222"
	DefaultMaxSessions = 100
	DefaultIdleTimeout = 30 * time.Minute
)

// FrameInterval paces a served session's animations: 15 frames a second, half the local
// explorer's, so that a class of 100 fits on two cores with room for its keys (a frame costs
// about 0.5 ms of CPU in all, SSH and the test's clients included: 100 sessions at 15 a second
// take three quarters of a core; at 30 they would take one and a half).
const FrameInterval = time.Second / 15

// MaxCols and MaxRows bound the screen a session is drawn at: a client asks for its PTY's size
// (SSH carries it as 32 bits), and the explorer draws every cell of every frame, so a window of
// 10,000 columns would cost the server as much as a thousand students. A larger terminal gets a
// screen this size, at its top left; 320×100 is a projector's 4K screen in a small font.
const (
	MaxCols = 320
	MaxRows = 100
)

// WorkSlots is how many of the sessions' evaluations and searches run at once: every core but
// one, and at least one. A class that changes parameters together (twenty students holding ←
// on the GPU count asked for about six cores of searches) then queues for those places, one
// newest scenario per session, while the last core draws every session's frames and keys.
func WorkSlots() int { return max(1, runtime.NumCPU()-1) }

// Per-address connection rate: a class behind one NAT address connects at once, so the burst
// lets a room in together while a client that reconnects in a loop is slowed to one a second.
const (
	connRate      = rate.Limit(1)
	connBurst     = 40
	limiterMemory = 1000 // addresses remembered by the rate limiter
)

// Config is what splitscope serve's flags set.
type Config struct {
	// Scenario is every session's starting scenario, on Presets.
	Scenario model.Scenario
	Presets  *assets.Presets
	// Lang is the texts' language when the client says none (LANG, or "fr"/"en" as the
	// command); "" is English.
	Lang string
	// HostKey is the host key in PEM (see LoadHostKey).
	HostKey []byte
	// MaxSessions bounds concurrent sessions; one more is refused politely. 0 is the default.
	MaxSessions int
	// IdleTimeout closes a connection with no traffic for that long; 0 never does. A session
	// is closed with a line saying so (conn.go).
	IdleTimeout time.Duration
	// WriteTimeout closes a session that could not be written to for that long (a client that
	// stopped reading), freeing its slot; 0 is DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Password, when set, is the password every client must give.
	Password string
	// AuthorizedKeys, when set, are the public keys that may log in (see LoadAuthorizedKeys).
	// With neither Password nor AuthorizedKeys the server is open to anyone who reaches it.
	AuthorizedKeys []gossh.PublicKey
	// TeacherKeys, when set, are the public keys of the teacher (--teacher-key): a session that
	// logs in with one leads, its tour steps and scenario pushed to every student who follows
	// (see class.go). They get in whatever else is set; the students get in as without them.
	TeacherKeys []gossh.PublicKey
	// Box, when set, is this machine's probe shown read-only on every session's Box tab
	// (--share-box); nil: the Box tab says the server's GPUs are not shared.
	Box *gpu.Box
	// Options are more explorer options for every session (a calibration's name).
	Options []tui.Option
	// Log receives one line per connection and the stack of a session's panic.
	Log io.Writer
	// The door's limits (door.go), each 0 for its default: LoginGraceTime closes a connection
	// with no explorer running this long after it connected (negative: never); MaxStartups
	// and MaxStartupsPerAddr bound the connections not yet in an explorer, in all and per
	// address; MaxAuthTries bounds a connection's authentication attempts.
	LoginGraceTime     time.Duration
	MaxStartups        int
	MaxStartupsPerAddr int
	MaxAuthTries       int
}

// Server serves the explorer over SSH.
type Server struct {
	cfg      Config
	srv      *ssh.Server
	log      *log.Logger
	sessions atomic.Int64
	// hub is the classroom's shared state, nil without TeacherKeys.
	hub *hub
	// work is the places the sessions' evaluations and searches share (tui.WithWorkSlots), memo
	// their results (tui.WithMemo: a class shows the same scenarios).
	work chan struct{}
	memo *tui.Memo
	// hook, for tests, sees each message before the session's explorer (a panic injected here
	// is one of the explorer's).
	hook func(tea.Msg)
	// frames, for tests, hears how long each session's update (a frame tick from when it was
	// due, a key from its Update) took to reach the wire as a frame.
	frames func(time.Duration)
	// door holds the connections not yet in an explorer and the addresses' penalties.
	door *door
}

// New builds the server; Serve or ListenAndServe starts it.
func New(cfg Config) (*Server, error) {
	if cfg.Presets == nil {
		return nil, errors.New("serve: no presets")
	}
	if len(cfg.HostKey) == 0 {
		return nil, errors.New("serve: no host key")
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := &Server{cfg: cfg, log: log.New(cfg.Log, "serve: ", log.LstdFlags), work: make(chan struct{}, WorkSlots()),
		memo: tui.NewMemo(), door: newDoor(cfg)}
	if len(cfg.TeacherKeys) > 0 {
		s.hub = newHub(cfg.Scenario)
	}
	opts := []ssh.Option{
		wish.WithHostKeyPEM(cfg.HostKey),
		wish.WithIdleTimeout(connIdle(cfg.IdleTimeout)),
		// The session channel: charmbracelet/ssh's, its requests and writes bounded (conn.go).
		func(srv *ssh.Server) error {
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel}
			return nil
		},
		wish.WithMiddleware(
			// The first runs last: wish wraps each middleware around the ones before it.
			s.explorerMiddleware, // wish/bubbletea's, without its wedge (explorer.go)
			s.classroom,          // in the hub from here, once the session is one with an explorer
			s.needPTY,            // no PTY, no explorer: one line and exit 1 (wish's activeterm, logged)
			s.onlyExplorer,
			s.limitSessions,
			s.limitRate(ratelimiter.NewRateLimiter(connRate, connBurst, limiterMemory)),
			s.inSession, // connect and disconnect logged, the door's grace time let go
			s.recoverSession,
		),
	}
	if cfg.Password != "" {
		want := []byte(cfg.Password)
		opts = append(opts, wish.WithPasswordAuth(func(ctx ssh.Context, pw string) bool {
			return s.guess(ctx, func() bool { return subtle.ConstantTimeCompare([]byte(pw), want) == 1 })
		}))
	}
	if len(cfg.AuthorizedKeys) > 0 || len(cfg.TeacherKeys) > 0 {
		keys := append(append([]gossh.PublicKey{}, cfg.AuthorizedKeys...), cfg.TeacherKeys...)
		anyone := s.Open()
		opts = append(opts, wish.WithPublicKeyAuth(func(_ ssh.Context, k ssh.PublicKey) bool {
			// Open, any key gets in (as a student unless it is the teacher's).
			return anyone || hasKey(keys, k)
		}))
	}
	if s.Open() && len(cfg.TeacherKeys) > 0 {
		// A key handler ends "none" authentication, which let everyone in: keyboard-interactive
		// with no question lets in the students who have no key, after the teacher's client has
		// had its turn to offer its key.
		opts = append(opts, wish.WithKeyboardInteractiveAuth(func(ssh.Context, gossh.KeyboardInteractiveChallenge) bool {
			return true
		}))
	}
	srv, err := wish.NewServer(opts...)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s.srv = srv
	s.setupDoor()
	return s, nil
}

// Open reports whether anyone who reaches the port gets in (no password, no keys).
func (s *Server) Open() bool { return s.cfg.Password == "" && len(s.cfg.AuthorizedKeys) == 0 }

// Serve accepts connections on ln until Close or Shutdown; it returns ssh.ErrServerClosed then.
func (s *Server) Serve(ln net.Listener) error { return s.serveDoor(ln) }

// Close closes the listener and every connection at once, those not yet in a session too.
func (s *Server) Close() error {
	err := s.srv.Close()
	s.closeStarting()
	return err
}

// Shutdown stops accepting connections and waits, until ctx ends, for the sessions to end.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// Sessions is the number of sessions being served.
func (s *Server) Sessions() int { return int(s.sessions.Load()) }

// hasKey reports whether k is one of keys.
func hasKey(keys []gossh.PublicKey, k ssh.PublicKey) bool {
	for _, a := range keys {
		if ssh.KeysEqual(k, a) {
			return true
		}
	}
	return false
}

// classroom puts the session in the hub while it runs (with TeacherKeys): the teacher if it
// logged in with a teacher's key (the key the connection authenticated with, not one merely
// offered), else a student.
func (s *Server) classroom(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if s.hub == nil {
			next(sess)
			return
		}
		k := sess.PublicKey()
		s.hub.join(sess, k != nil && hasKey(s.cfg.TeacherKeys, k))
		defer s.hub.leave(sess)
		next(sess)
	}
}

type failedKey struct{}

// recoverSession ends a session whose handler panicked (outside the explorer's Update and View,
// which guard recovers) alone: the stack goes to the log, the client gets a line and exit 1.
func (s *Server) recoverSession(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("%s: session panicked: %v\n%s", sess.RemoteAddr(), r, debug.Stack())
				wish.Fatalln(sess, "splitscope: this session failed (the server logged why); connect again to start afresh")
			}
		}()
		next(sess)
	}
}

// limitSessions refuses a session past MaxSessions with one line.
func (s *Server) limitSessions(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if n := s.sessions.Add(1); n > int64(s.cfg.MaxSessions) {
			s.sessions.Add(-1)
			s.eventLimited("full", sess.RemoteAddr(), "refused: the class is full", "limit", fmt.Sprintf("%d (--max-sessions)", s.cfg.MaxSessions))
			wish.Fatalln(sess, fmt.Sprintf("splitscope: the class is full (%d sessions); try again in a moment", s.cfg.MaxSessions))
			return
		}
		defer s.sessions.Add(-1)
		next(sess)
	}
}

// onlyExplorer refuses every command but a language ("fr", "en"): nothing runs on this machine
// but the explorer. After the explorer, a session whose explorer failed exits 1.
func (s *Server) onlyExplorer(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if _, ok := commandLang(sess.Command()); !ok {
			s.eventLimited("command "+hostOf(sess.RemoteAddr()), sess.RemoteAddr(), "refused: a command", "command", sess.RawCommand())
			wish.Fatalln(sess, fmt.Sprintf("splitscope: this server runs the explorer only, no commands (%q refused); connect with a terminal, or give a language: ssh -t HOST fr",
				strings.Join(sess.Command(), " ")))
			return
		}
		var failed atomic.Bool
		sess.Context().SetValue(failedKey{}, &failed)
		next(sess)
		if failed.Load() {
			wish.Fatalln(sess, "splitscope: the explorer failed (the server logged why); connect again to start afresh")
		}
	}
}

// commandLang is the language a session's command asks for ("" for none); ok is false for any
// other command.
func commandLang(cmd []string) (lang string, ok bool) {
	switch {
	case len(cmd) == 0:
		return "", true
	case len(cmd) == 1 && (cmd[0] == "fr" || cmd[0] == "en"):
		return cmd[0], true
	}
	return "", false
}

// sessionLang: the command's language, else the client's LANG (LC_ALL, LC_MESSAGES first, as
// a locale reads them), else the server's.
func sessionLang(sess ssh.Session, fallback string) string {
	if l, _ := commandLang(sess.Command()); l != "" {
		return l
	}
	env := map[string]string{}
	for _, kv := range sess.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := env[k]; v != "" && v != "C" && v != "POSIX" {
			return v
		}
	}
	return fallback
}

// errNotShared is the Box tab's answer in a served session without ShareBox. It wraps
// gpu.ErrNoGPU, so the tab probes once and stops.
var errNotShared = fmt.Errorf("%w: this server does not share its GPUs (splitscope serve --share-box does)", gpu.ErrNoGPU)

// program builds one session's explorer: its renderer (colour profile, background), language
// and window; its own model, so no session sees another's.
func (s *Server) program(sess ssh.Session, in *input) *tea.Program {
	opts := append([]tui.Option{}, s.cfg.Options...)
	opts = append(opts,
		tui.WithRenderer(renderer(sess, in)),
		tui.WithServed(),
		tui.WithLang(sessionLang(sess, s.cfg.Lang)),
		tui.WithFrameInterval(FrameInterval),
		tui.WithWorkSlots(s.work),
		tui.WithMemo(s.memo),
	)
	if s.cfg.Box != nil {
		opts = append(opts, tui.WithSavedBox("the server's GPUs, shared", *s.cfg.Box))
	} else {
		opts = append(opts, tui.WithProbe(func() (gpu.Box, error) { return gpu.Box{}, errNotShared }))
	}
	var mem *member
	if s.hub != nil {
		mem = s.hub.member(sess)
	}
	if mem != nil && mem.teacher {
		opts = append(opts, tui.WithLead(func(l tui.Lead) { s.hub.setLead(mem, l) }))
	} else if mem != nil {
		opts = append(opts, tui.WithFollower(func(f tui.Follow) { s.hub.setFollow(mem, f) }))
	}
	if mem != nil {
		opts = append(opts, tui.WithAnswers(
			func(a tui.Answer) { s.hub.answer(mem, a) },
			func(r tui.Reveal) {
				// The server's log keeps each step's answers for the teacher, after class too.
				if s.hub.reveal(mem, r) && r.Tally != "" {
					s.log.Printf("class: %s", r.Tally)
				}
			}))
	}
	failed, _ := sess.Context().Value(failedKey{}).(*atomic.Bool)
	g := &guard{m: tui.New(s.cfg.Scenario, s.cfg.Presets, opts...), hook: s.hook, failed: failed,
		logf:  func(f string, v ...any) { s.log.Printf("%s: "+f, append([]any{sess.RemoteAddr()}, v...)...) },
		input: newInputLimit(in)}
	popts := append([]tea.ProgramOption{},
		tea.WithInput(in), tea.WithOutput(sess),
		tea.WithAltScreen(), tea.WithMouseCellMotion(),
		// The server's signals are the server's: its shutdown ends the sessions through their
		// contexts, not through every program catching SIGINT.
		tea.WithoutSignalHandler(),
	)
	if s.frames != nil {
		fw := &frameWriter{w: sess, report: s.frames}
		g.pending = &fw.pending
		popts = append(popts, tea.WithOutput(fw))
	}
	p := tea.NewProgram(g, popts...)
	if mem != nil {
		s.hub.attach(mem, p)
	}
	return p
}

// guard runs one session's explorer and turns a panic in its Update or View into the end of
// that session alone: logged with its stack, the program quits (restoring the client's
// terminal) and the session exits 1. Bubble Tea's own recovery stays beneath it for the rest.
type guard struct {
	m      tea.Model
	hook   func(tea.Msg)
	failed *atomic.Bool
	logf   func(string, ...any)
	once   sync.Once
	dead   bool
	// last is the last view the explorer drew, flip whether it went out with quiet appended
	// (see View).
	last string
	flip bool
	// drawn is the explorer's last view as it drew it.
	drawn string
	// pending, in tests (Server.frames), is when the oldest update not yet on the wire came
	// (Unix nanoseconds; 0 for none).
	pending *atomic.Int64
	// input bounds the input messages reaching the explorer (input.go); nil: unbounded.
	input *inputLimit
}

// frameWriter is a session's output in tests: each write is a frame, and reports how long the
// oldest update it carries waited.
type frameWriter struct {
	w       io.Writer
	pending atomic.Int64
	report  func(time.Duration)
}

func (f *frameWriter) Write(p []byte) (int, error) {
	if since := f.pending.Swap(0); since != 0 {
		f.report(time.Duration(time.Now().UnixNano() - since))
	}
	return f.w.Write(p)
}

// quiet ends a view that would equal the one before: a style reset, which draws nothing.
const quiet = "\x1b[m"

func (g *guard) fail(r any) {
	g.once.Do(func() {
		g.dead = true
		if g.failed != nil {
			g.failed.Store(true)
		}
		g.logf("explorer panicked: %v\n%s", r, debug.Stack())
	})
}

func (g *guard) Init() tea.Cmd { return g.m.Init() }

func (g *guard) Update(msg tea.Msg) (next tea.Model, cmd tea.Cmd) {
	if g.dead {
		return g, tea.Quit
	}
	defer func() {
		if r := recover(); r != nil {
			g.fail(r)
			next, cmd = g, tea.Quit
		}
	}()
	if g.input != nil {
		if drop, cmd := g.input.update(msg); drop {
			return g, cmd
		}
	}
	if g.hook != nil {
		g.hook(msg)
	}
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		ws.Width, ws.Height = min(ws.Width, MaxCols), min(ws.Height, MaxRows)
		msg = ws
	}
	if g.pending != nil {
		switch msg := msg.(type) {
		case common.FrameMsg:
			g.pending.CompareAndSwap(0, time.Time(msg).UnixNano())
		case tea.KeyMsg:
			g.pending.CompareAndSwap(0, time.Now().UnixNano())
		}
	}
	g.m, cmd = g.m.Update(msg)
	return g, cmd
}

func (g *guard) View() (v string) {
	if g.dead {
		return ""
	}
	defer func() {
		if r := recover(); r != nil {
			g.fail(r)
			v = ""
		}
	}()
	if g.input != nil && g.input.skip {
		// Bubble Tea asks a view after every message; a dropped one changed nothing.
		g.input.skip = false
		v = g.drawn
	} else {
		v = g.m.View()
		g.drawn = v
	}
	if g.input != nil {
		v = g.input.overlay(v)
	}
	// Bubble Tea's renderer (v1.3.10) keeps a view equal to the one it drew last, and then
	// copies and compares the whole frame at each of its 60 ticks a second until the next
	// change: a paused class of 100 spent a sixth of a core doing that. A view equal to the last
	// goes out with quiet appended, or without it when the last had it: the renderer redraws the
	// last line once and has nothing left to compare.
	if v == g.last {
		g.flip = !g.flip
	}
	g.last = v
	if g.flip {
		v += quiet
	}
	return v
}
