package serve

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// The abuse suite for the connection's liveness: clients that try to wedge a connection or
// make a session cost more than its share. Each test drives the served explorer through a real
// SSH client (golang.org/x/crypto/ssh), bounds every wait (wait, or a Config deadline made short
// for the test) and checks that the server's sessions and goroutines come back to where they
// were once the clients are gone. The figures (how long, how many) are logged, not asserted.

// windowChange is a window-change request's payload (RFC 4254 6.7).
func windowChange(cols, rows int) []byte {
	return gossh.Marshal(struct{ W, H, PW, PH uint32 }{uint32(cols), uint32(rows), 0, 0})
}

// flood sends window-change requests (no reply asked) on ch for d, alternating two sizes, and
// returns how many went out. A send that blocks (a server that stopped reading) ends the flood
// when d is up; its goroutine ends when the client closes.
func flood(ch interface {
	SendRequest(string, bool, []byte) (bool, error)
}, d time.Duration) int {
	sent := make(chan int, 1)
	stop := time.Now().Add(d)
	var n int
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; time.Now().Before(stop); i++ {
			if _, err := ch.SendRequest("window-change", false, windowChange(80+i%2, 24)); err != nil {
				return
			}
			n = i + 1
		}
	}()
	select {
	case <-done:
		sent <- n
	case <-time.After(d + time.Second):
		sent <- -1 // still blocked in a send: the server stopped reading
	}
	return <-sent
}

// settle waits (at most wait plus the given extra) until the server has no session and the
// process no more goroutines than before+slackG, and fails with the goroutines' stacks if not.
func settle(t *testing.T, srv *Server, before int, extra time.Duration) {
	t.Helper()
	const slackG = 4
	deadline := time.Now().Add(wait + extra)
	for (srv.Sessions() > 0 || runtime.NumGoroutine() > before+slackG) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := srv.Sessions(); n > 0 {
		t.Errorf("%d sessions still held after their clients ended", n)
	}
	if n := runtime.NumGoroutine(); n > before+slackG {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after the clients ended:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// bounded runs f, failing the test if it errs or has not returned within wait (a client's write
// blocks when the server stops reading).
func bounded(t *testing.T, what string, f func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(wait):
		t.Fatalf("%s: still blocked after %v (the server stopped reading)", what, wait)
	}
}

// goroutinesNow is the process's goroutine count once the runtime's own have settled.
func goroutinesNow() int {
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	return runtime.NumGoroutine()
}

// A second of window-change requests as fast as the client sends them (no reply asked) leaves
// the connection answering: a key after the flood gets its frame; once the
// client is gone its session slot and goroutines are freed. Unbounded (charmbracelet/ssh sends
// each size on a one-slot channel that the window handler drains one Program.Send at a time),
// the flood filled the request queue, the SSH read loop waited on it, and the connection
// stayed wedged after its client died.
func TestWindowChangeFloodNoWedge(t *testing.T) {
	srv, addr := start(t, nil, nil)
	before := goroutinesNow()
	tm := open(t, addr, nil, "")
	tm.see(0, "Pipeline")
	t0 := time.Now()
	n := flood(tm.s, time.Second)
	t.Logf("flood: %d window changes in %v (-1: the client's send blocked, the server stopped reading)", n, time.Since(t0).Round(time.Millisecond))
	m := tm.mark()
	sent := time.Now()
	bounded(t, "a window change and a key after the flood", func() error {
		if err := tm.s.WindowChange(30, 100); err != nil {
			return err
		}
		_, err := tm.in.Write([]byte("\t"))
		return err
	})
	tm.see(m, "Tensor")
	t.Logf("a key after the flood: its frame in %v", time.Since(sent).Round(time.Millisecond))
	_ = tm.c.Close()
	settle(t, srv, before, 0)
}

// Three flooded connections on a class of three (--max-sessions 3): once their clients are
// gone, their slots, goroutines and memory are back and a fourth client gets its explorer.
// Unbounded, the three stayed wedged, about 7 goroutines and 0.7 MiB of heap each held for
// good (and with the binary, a fourth client was told the class is full). The figures are
// logged.
func TestFloodsFreeTheirSlots(t *testing.T) {
	srv, addr := start(t, func(c *Config) { c.MaxSessions = 3 }, nil)
	before := goroutinesNow()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	const conns = 3
	terms := make([]*term, conns)
	for i := range terms {
		terms[i] = open(t, addr, nil, "")
		terms[i].see(0, "Pipeline")
	}
	for _, tm := range terms {
		flood(tm.s, time.Second)
	}
	for _, tm := range terms {
		_ = tm.c.Close()
	}
	time.Sleep(time.Second)
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	after := runtime.NumGoroutine()
	heap := float64(int64(ms1.HeapInuse)-int64(ms0.HeapInuse)) / (1 << 20)
	t.Logf("%d flooded connections, 1 s after their clients closed: %d sessions held, %+d goroutines (%.1f each), heap in use %+.2f MiB (%.2f each)",
		conns, srv.Sessions(), after-before, float64(after-before)/conns, heap, heap/conns)
	settle(t, srv, before, 0)
	fourth := open(t, addr, nil, "")
	fourth.see(0, "Pipeline")
	fourth.send("q")
	if err := fourth.exit(); err != nil {
		t.Errorf("the fourth session: %v, want exit 0", err)
	}
}

// rawSession is a client's PTY session that does only what the test says: it answers no
// query, and reads its output only while reading is on.
type rawSession struct {
	c       *gossh.Client
	s       *gossh.Session
	in      io.Writer
	mu      sync.Mutex
	out     bytes.Buffer
	reading atomic.Bool
	done    chan error
}

// openRaw dials and asks a PTY (rows×cols); before, if set, runs on the session before the
// shell is asked.
func openRaw(t *testing.T, addr string, rows, cols int, before func(*gossh.Session) error) *rawSession {
	t.Helper()
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", rows, cols, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	rs := &rawSession{c: c, s: s, done: make(chan error, 1)}
	rs.reading.Store(true)
	if rs.in, err = s.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			for !rs.reading.Load() {
				time.Sleep(10 * time.Millisecond)
			}
			n, err := out.Read(buf)
			rs.mu.Lock()
			rs.out.Write(buf[:n])
			rs.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if before != nil {
		if err := before(s); err != nil {
			t.Fatal(err)
		}
	}
	bounded(t, "the shell request", s.Shell)
	go func() { rs.done <- s.Wait() }()
	return rs
}

func (rs *rawSession) screen() string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return ansi.Strip(rs.out.String())
}

// see waits (at most wait) until text arrived.
func (rs *rawSession) see(t *testing.T, text string) time.Duration {
	t.Helper()
	t0 := time.Now()
	for !strings.Contains(rs.screen(), text) {
		if time.Since(t0) > wait {
			s := rs.screen()
			t.Fatalf("never saw %q; got %q", text, s[max(len(s)-800, 0):])
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(t0)
}

// A window change before the shell (charmbracelet/ssh's one-slot window channel already held
// the PTY's size, so the request loop waited there for good, the shell request behind it, and
// the session's goroutines outlived its client) is taken: the shell starts, the explorer draws,
// and once the client is gone nothing of it is left.
func TestWindowChangeBeforeShell(t *testing.T) {
	srv, addr := start(t, nil, nil)
	before := goroutinesNow()
	rs := openRaw(t, addr, 24, 80, func(s *gossh.Session) error {
		for _, w := range [][2]int{{30, 90}, {35, 100}, {40, 110}} {
			if _, err := s.SendRequest("window-change", false, windowChange(w[1], w[0])); err != nil {
				return err
			}
		}
		return nil
	})
	rs.see(t, "Pipeline")
	_ = rs.c.Close()
	settle(t, srv, before, 0)
	// And a client that leaves right after its window changes, with no shell at all.
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.SendRequest("window-change", false, windowChange(100, 30)); err != nil {
			t.Fatal(err)
		}
	}
	_ = c.Close()
	settle(t, srv, before, 0)
}

// A terminal that never answers the background colour query gets its first frame all the same
// (the query gives up after queryTimeout); unbounded, the session waited for the client's next
// byte, holding its slot with nothing drawn.
func TestSilentTerminalFirstFrame(t *testing.T) {
	_, addr := start(t, nil, nil)
	t0 := time.Now()
	rs := openRaw(t, addr, 24, 80, nil)
	rs.see(t, "Pipeline")
	t.Logf("first frame for a terminal that answers nothing: %v after the dial (query bound %v)", time.Since(t0).Round(time.Millisecond), queryTimeout)
	if _, err := rs.in.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-rs.done:
		if err != nil {
			t.Errorf("q: %v, want exit 0", err)
		}
	case <-time.After(wait):
		t.Error("q did not end the session")
	}
}

// A client that stops reading (its window full: a suspended ssh, a stuck terminal) has its
// session closed after the write deadline, its slot freed and its goroutines gone; it is told
// why in the exit signal's message, and the server's log says so. Unbounded, the renderer's
// write waited for good and the session held its slot.
func TestStalledReaderClosed(t *testing.T) {
	var logs syncBuf
	srv, addr := start(t, func(c *Config) { c.WriteTimeout = time.Second; c.Log = &logs }, nil)
	before := goroutinesNow()
	rs := openRaw(t, addr, MaxRows, MaxCols, nil)
	// The colour query's answer, as a terminal gives it.
	if _, err := rs.in.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[?62c")); err != nil {
		t.Fatal(err)
	}
	rs.see(t, "Pipeline")
	rs.reading.Store(false)
	// Full redraws at 320×100 fill the client's 2 MiB window within a second or two.
	t0 := time.Now()
	var err error
	for i := 0; ; i++ {
		_, _ = rs.s.SendRequest("window-change", false, windowChange(MaxCols-i%2, MaxRows))
		select {
		case err = <-rs.done:
		case <-time.After(20 * time.Millisecond):
			if time.Since(t0) < 3*wait {
				continue
			}
			t.Fatalf("the stalled session was not closed within %v", 3*wait)
		}
		break
	}
	t.Logf("stalled client: its session ended %v after it stopped reading (write timeout 1s): %v", time.Since(t0).Round(time.Millisecond), err)
	if err == nil || !strings.Contains(err.Error(), "nothing could be written") {
		t.Errorf("the client was told %v; want the reason", err)
	}
	_ = rs.c.Close()
	settle(t, srv, before, 0)
	if !strings.Contains(logs.String(), "stalled") {
		t.Errorf("the log does not say it: %q", logs.String())
	}
}

// A session idle for the idle timeout (paused: no key, no frame) is closed with a line on its
// terminal and in the log; before, the connection's deadline dropped it without a word.
func TestIdleCloseSaysWhy(t *testing.T) {
	var logs syncBuf
	srv, addr := start(t, func(c *Config) { c.IdleTimeout = time.Second; c.Log = &logs }, nil)
	before := goroutinesNow()
	tm := open(t, addr, nil, "")
	tm.see(0, "playing")
	m := tm.mark()
	tm.send(" ")
	tm.see(m, "paused")
	err := tm.exit()
	if err == nil || !strings.Contains(err.Error(), "without a key or a frame") {
		t.Errorf("idle close: %v; want the reason as the exit message", err)
	}
	tm.see(m, "splitscope: closed after 1s without a key or a frame")
	_ = tm.c.Close()
	settle(t, srv, before, 0)
	if !strings.Contains(logs.String(), `idle "student"`) {
		t.Errorf("the log does not say it: %q", logs.String())
	}
}

// garbage is n bytes of what an abuser types: escape sequences cut short, CSI sequences no
// terminal sends, invalid UTF-8, control bytes and letters (but none that quits).
func garbage(rng *rand.Rand, n int) []byte {
	out := make([]byte, 0, n+16)
	for len(out) < n {
		switch rng.IntN(5) {
		case 0:
			out = append(out, "\x1b["...)
			out = strconv.AppendInt(out, rng.Int64N(1000), 10)
			out = append(out, byte(0x40+rng.IntN(0x3f)))
		case 1:
			out = append(out, 0x80+byte(rng.IntN(0x80)), 0xc0+byte(rng.IntN(0x40)))
		case 2:
			out = append(out, 0x1b, noQuit(byte(rng.IntN(256))))
		default:
			out = append(out, noQuit(byte(rng.IntN(128))))
		}
	}
	return out
}

// noQuit keeps the abuser's session open: q and ctrl+c, which quit the explorer, become '.'.
func noQuit(b byte) byte {
	if b == 'q' || b == 3 {
		return '.'
	}
	return b
}

// Three clients typing garbage as fast as they can: each one's input past what a session takes
// is dropped (at most inputMsgBurst then inputMsgs a second reach an explorer), with a notice on
// its screen; another session's keys keep getting their frames. Unbounded, each abuser's whole
// input was parsed and handed to its explorer, a core each for seconds.
func TestInputFloodBounded(t *testing.T) {
	var accepted atomic.Int64
	var counting atomic.Bool
	srv, addr := start(t, func(c *Config) { c.MaxSessions = 10 }, func(msg tea.Msg) {
		if counting.Load() && isInput(msg) {
			accepted.Add(1)
		}
	})
	var frameMu sync.Mutex
	var frames []time.Duration
	srv.frames = func(d time.Duration) { frameMu.Lock(); frames = append(frames, d); frameMu.Unlock() }
	takeFrames := func() []time.Duration {
		frameMu.Lock()
		defer frameMu.Unlock()
		out := frames
		frames = nil
		return out
	}
	victim := open(t, addr, nil, "")
	victim.see(0, "playing")
	// press toggles pause and play n times, waiting for each to show, and returns the delays.
	press := func(n int) []time.Duration {
		var lat []time.Duration
		states := []string{"paused", "playing"}
		for i := range n {
			m := victim.mark()
			sent := time.Now()
			victim.send(" ")
			victim.see(m, states[i%2])
			lat = append(lat, time.Since(sent))
			time.Sleep(50 * time.Millisecond)
		}
		return lat
	}
	quiet := press(10)
	quietFrames := takeFrames()
	const abusers = 3
	terms := make([]*term, abusers)
	for i := range terms {
		terms[i] = open(t, addr, nil, "")
		terms[i].see(0, "Pipeline")
	}
	t0, cpu0 := time.Now(), cpuTime()
	counting.Store(true)
	stop := make(chan struct{})
	var sent atomic.Int64
	var wg sync.WaitGroup
	for i, tm := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 21))
			junk := garbage(rng, 64<<10)
			for j := 0; ; j++ {
				select {
				case <-stop:
					return
				default:
				}
				k := (j % 16) << 12
				n, err := tm.in.Write(junk[k : k+4<<10])
				sent.Add(int64(n))
				if err != nil {
					return
				}
			}
		}()
	}
	loud := press(10)
	loudFrames := takeFrames()
	close(stop)
	got := accepted.Load()
	// Counted from before the first to after the last message counted.
	elapsed := time.Since(t0)
	cpu := cpuTime() - cpu0
	// What the abusers queued: input still reaching their explorers once they stopped typing,
	// until none came for drained (the sessions' input queues hold at most inputQueue bytes).
	const drained = 300 * time.Millisecond
	last, lastAt := accepted.Load(), time.Now()
	for time.Since(lastAt) < drained && time.Since(t0) < elapsed+wait {
		time.Sleep(10 * time.Millisecond)
		if n := accepted.Load(); n != last {
			last, lastAt = n, time.Now()
		}
	}
	counting.Store(false)
	t.Logf("after the abusers stopped, their explorers took %d more input messages, the last %v after", last-got, lastAt.Sub(t0.Add(elapsed)).Round(time.Millisecond))
	if time.Since(lastAt) < drained {
		t.Errorf("the abusers' input still reached their explorers %v after they stopped (%d messages since): queued, not dropped", wait, last-got)
	}
	// Each abuser's explorer takes its burst and then inputMsgs a second (one more for the
	// rounding); the victim's 10 keys.
	bound := int64(abusers*(inputMsgBurst+1+int(float64(inputMsgs)*elapsed.Seconds())) + 10)
	t.Logf("%d abusers sent %.1f MiB in %v; their explorers took %d input messages (bound %d); the process (server and clients) used %v of CPU", abusers,
		float64(sent.Load())/(1<<20), elapsed.Round(time.Millisecond), got, bound, cpu.Round(time.Millisecond))
	t.Logf("the other session's key to frame: alone %s; with %d abusers %s", spread(quiet), abusers, spread(loud))
	t.Logf("its updates to the wire (server): alone %s; with %d abusers %s", spread(quietFrames), abusers, spread(loudFrames))
	if got > bound {
		t.Errorf("the abusers' explorers took %d input messages in %v; want at most %d", got, elapsed, bound)
	}
	for i, tm := range terms {
		tm.see(0, "dropped input that came too fast")
		select {
		case err := <-tm.done:
			t.Errorf("abuser %d's session ended (%v): the flood did not test it to the end", i, err)
		default:
		}
	}
	for _, tm := range terms {
		_ = tm.c.Close()
	}
	wg.Wait()
}
