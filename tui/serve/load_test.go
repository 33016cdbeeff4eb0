package serve

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/splitscope/splitscope/tui/common"
)

// The load test: N concurrent SSH sessions (SPLITSCOPE_LOAD_SESSIONS, default 20, the CI's),
// each a real client through golang.org/x/crypto/ssh with a PTY, each playing the Pipeline
// animation (it plays from the start by default). The server and the clients share this
// process: the memory and CPU figures are both sides together, an upper bound for the server.
//
//	SPLITSCOPE_LOAD_SESSIONS=100 go test ./tui/serve -run TestLoad -v -count=1
//
// SPLITSCOPE_LOAD_PROFILE=/tmp/load also writes the CPU profiles of the playing, idle and
// editing windows to /tmp/load.play, /tmp/load.idle and /tmp/load.edit.
//
// Figures (t.Logf):
//   - memory: VmRSS (/proc/self/status) and runtime.MemStats Sys/HeapInuse before the server
//     starts and while all N play;
//   - frame cadence: the gaps between the output chunks each client receives while playing;
//   - update to frame on the wire, in the server (Server.frames): from when a session's frame
//     tick was due, or its key reached Update, to its renderer writing the frame; and each
//     tick's lag from its timer to its session's Update;
//   - CPU and allocation a frame tick while playing (server and clients);
//   - key-to-frame latency: the time from a client writing a key (space, pause or play) to its
//     reading the frame that shows the new state ("‖ paused", "▶ playing"): the session's own
//     Update, View, the renderer's flush, the PTY and SSH both ways. p50/p99 over every
//     session and round, with every session pressing at once, then each at its own moment;
//   - idle CPU: all paused, the process's CPU time (getrusage) over 2 s, and the frame ticks
//     (common.FrameMsg) the sessions' explorers received meanwhile.
//
// It asserts what does not hang on wall-clock timing: every session reaches its first frame,
// receives frames while playing, sees each key's new state, and no explorer ticks while all
// are paused. The timings are reported, not asserted.

const (
	loadPlay  = 3 * time.Second // the window over which playing sessions are watched
	loadIdle  = 2 * time.Second // the window over which paused sessions are watched
	loadTail  = 64 << 10        // bytes of output each client keeps to look for a state
	loadDials = 10              // sessions opened at once
)

func loadSessions(t *testing.T) int {
	t.Helper()
	v := os.Getenv("SPLITSCOPE_LOAD_SESSIONS")
	if v == "" {
		return 20
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		t.Fatalf("SPLITSCOPE_LOAD_SESSIONS=%q: want 1..1000", v)
	}
	return n
}

// loadTerm is one client: its output's tail and the arrival time of every chunk.
type loadTerm struct {
	c    *gossh.Client
	s    *gossh.Session
	in   interface{ Write([]byte) (int, error) }
	mu   sync.Mutex
	tail []byte // the last loadTail bytes or more
	off  int    // bytes received in all; tail ends there
	at   []time.Time
	gone atomic.Bool
	// more is signalled (without blocking) when output arrives, so that await looks again then
	// and only then: 100 clients polling their output every millisecond took the CPU the
	// server's frames were measured on.
	more chan struct{}
}

// openLoad opens session i from its own loopback source address (127.0.0.2 onwards, 30
// sessions each): the server rate-limits connections per address, as a class behind one NAT
// address is. The server is still only reached at 127.0.0.1.
func openLoad(addr string, i int) (*loadTerm, error) {
	d := net.Dialer{Timeout: wait, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i/30))}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(wait))
	cc, chans, reqs, err := gossh.NewClientConn(conn, addr, &gossh.ClientConfig{User: fmt.Sprintf("student%d", i),
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait})
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	c := gossh.NewClient(cc, chans, reqs)
	lt := &loadTerm{c: c, more: make(chan struct{}, 1)}
	fail := func(err error) (*loadTerm, error) { _ = c.Close(); return nil, err }
	if lt.s, err = c.NewSession(); err != nil {
		return fail(err)
	}
	if err := lt.s.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		return fail(err)
	}
	in, err := lt.s.StdinPipe()
	if err != nil {
		return fail(err)
	}
	lt.in = in
	out, err := lt.s.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	go func() {
		defer lt.gone.Store(true)
		buf := make([]byte, 32<<10)
		for {
			n, err := out.Read(buf)
			now := time.Now()
			lt.mu.Lock()
			lt.tail = append(lt.tail, buf[:n]...)
			if len(lt.tail) > 2*loadTail { // cut back to loadTail now and then, not at every chunk
				lt.tail = append(lt.tail[:0], lt.tail[len(lt.tail)-loadTail:]...)
			}
			lt.off += n
			if n > 0 {
				lt.at = append(lt.at, now)
			}
			ask := bytes.Contains(buf[:n], []byte("\x1b[c"))
			lt.mu.Unlock()
			select {
			case lt.more <- struct{}{}:
			default:
			}
			if ask {
				_, _ = in.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[?62c"))
			}
			if err != nil {
				return
			}
		}
	}()
	if err := lt.s.Shell(); err != nil {
		return fail(err)
	}
	return lt, nil
}

func (lt *loadTerm) mark() int {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.off
}

// seen reports whether text arrived since mark (within the kept tail).
func (lt *loadTerm) seen(mark int, text string) bool {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	from := max(len(lt.tail)-(lt.off-mark), 0)
	return strings.Contains(ansi.Strip(string(lt.tail[from:])), text)
}

// await waits until text arrived since mark, looking again each time output arrives; it
// returns when it was seen, or false at the deadline.
func (lt *loadTerm) await(mark int, text string, deadline time.Time) (time.Time, bool) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		if lt.seen(mark, text) {
			return time.Now(), true
		}
		select {
		case <-lt.more:
		case <-timer.C:
			return time.Time{}, lt.seen(mark, text)
		}
	}
}

// chunks is the arrival times of the chunks received in [from, to).
func (lt *loadTerm) chunks(from, to time.Time) []time.Time {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	var out []time.Time
	for _, a := range lt.at {
		if !a.Before(from) && a.Before(to) {
			out = append(out, a)
		}
	}
	return out
}

func vmRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func memFigures() string {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return fmt.Sprintf("VmRSS %s, Go Sys %.0f MiB, HeapInuse %.0f MiB, goroutines %d",
		vmRSS(), float64(ms.Sys)/(1<<20), float64(ms.HeapInuse)/(1<<20), runtime.NumGoroutine())
}

// slack bounds a wait that N sessions share two cores for: an overloaded server is slow, and
// the figures say how slow; the test fails only when a session never answers.
func slack(n int) time.Duration { return wait + time.Duration(n)*50*time.Millisecond }

// spread is "p50 …, p99 …, max …" of ds, to 0.1 ms.
func spread(ds []time.Duration) string {
	r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	return fmt.Sprintf("p50 %v, p99 %v, max %v", r(pct(ds, .5)), r(pct(ds, .99)), r(slices.Max(append(ds, 0))))
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(int(float64(len(s))*p), len(s)-1)]
}

// profiled sleeps d, writing the process's CPU profile meanwhile to
// $SPLITSCOPE_LOAD_PROFILE.what when that is set.
func profiled(t *testing.T, what string, d time.Duration) {
	t.Helper()
	stop := profiling(t, what)
	time.Sleep(d)
	stop()
}

// profiling starts the process's CPU profile to $SPLITSCOPE_LOAD_PROFILE.what when that is set;
// the function it returns stops it (once; later calls do nothing).
func profiling(t *testing.T, what string) (stop func()) {
	t.Helper()
	f := os.Getenv("SPLITSCOPE_LOAD_PROFILE")
	if f == "" {
		return func() {}
	}
	out, err := os.Create(f + "." + what)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		_ = out.Close()
		t.Fatal(err)
	}
	var once sync.Once
	return func() { once.Do(func() { pprof.StopCPUProfile(); _ = out.Close() }) }
}

// pressAll has every session press space once for each state in states and wait to see it;
// each press comes at a random moment within spread of the round's start (0: all at once). It
// returns the key-to-frame latencies, or the first session that never showed a state.
func pressAll(terms []*loadTerm, states []string, spread time.Duration) ([]time.Duration, error) {
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	errs := make(chan error, len(terms))
	for i, lt := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for r, want := range states {
				start := time.Now()
				if spread > 0 {
					time.Sleep(time.Duration(rng.Int64N(int64(spread))))
				}
				m := lt.mark()
				sent := time.Now()
				if _, err := lt.in.Write([]byte(" ")); err != nil {
					errs <- fmt.Errorf("session %d: %w", i, err)
					return
				}
				at, ok := lt.await(m, want, sent.Add(slack(len(terms))))
				if !ok {
					errs <- fmt.Errorf("session %d, press %d: never saw %q after space", i, r, want)
					return
				}
				mu.Lock()
				lat = append(lat, at.Sub(sent))
				mu.Unlock()
				time.Sleep(max(spread, 150*time.Millisecond) - time.Since(start)) // the next round together
			}
		}()
	}
	wg.Wait()
	close(errs)
	return lat, <-errs
}

func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: not with -short")
	}
	n := loadSessions(t)
	before := memFigures()
	var ticks atomic.Int64
	var lagMu sync.Mutex
	var lags []time.Duration // each frame tick's, from its timer firing to its session's Update
	var frameMu sync.Mutex
	var frames []time.Duration // each update's, from its tick (or key at Update) to its frame on the wire
	takeFrames := func() []time.Duration {
		frameMu.Lock()
		defer frameMu.Unlock()
		out := frames
		frames = nil
		return out
	}
	srv, addr := start(t, func(c *Config) { c.MaxSessions = max(n, DefaultMaxSessions) }, func(msg tea.Msg) {
		if at, ok := msg.(common.FrameMsg); ok {
			ticks.Add(1)
			lag := time.Since(time.Time(at))
			lagMu.Lock()
			lags = append(lags, lag)
			lagMu.Unlock()
		}
	})

	srv.frames = func(d time.Duration) {
		frameMu.Lock()
		frames = append(frames, d)
		frameMu.Unlock()
	}

	// Open the N sessions, loadDials at a time.
	terms := make([]*loadTerm, n)
	t0 := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, loadDials)
	errs := make(chan error, n)
	for i := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			lt, err := openLoad(addr, i)
			if err != nil {
				errs <- fmt.Errorf("session %d: %w", i, err)
				return
			}
			terms[i] = lt
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, lt := range terms {
			_ = lt.c.Close()
		}
	})
	// Every session reaches its first frame, playing.
	firstBy := time.Now().Add(slack(n))
	var first []time.Duration
	for i, lt := range terms {
		at, ok := lt.await(0, "▶ playing", firstBy)
		if !ok {
			t.Fatalf("session %d never showed its first frame playing", i)
		}
		first = append(first, at.Sub(t0))
	}
	t.Logf("%d sessions (120×40), first frame playing: p50 %v, max %v after the first dial",
		n, pct(first, .5).Round(time.Millisecond), slices.Max(first).Round(time.Millisecond))

	// Playing: every session receives frames; the gaps between its chunks.
	ticks.Store(0)
	lagMu.Lock()
	lags = lags[:0]
	lagMu.Unlock()
	takeFrames()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	pc0 := cpuTime()
	from := time.Now()
	profiled(t, "play", loadPlay)
	to := time.Now()
	playCPU := cpuTime() - pc0
	runtime.ReadMemStats(&ms1)
	played := ticks.Load()
	var gaps []time.Duration
	minChunks := -1
	for i, lt := range terms {
		cs := lt.chunks(from, to)
		if len(cs) < 5 {
			t.Errorf("session %d received %d chunks in %v of playing", i, len(cs), loadPlay)
		}
		if minChunks < 0 || len(cs) < minChunks {
			minChunks = len(cs)
		}
		for j := 1; j < len(cs); j++ {
			gaps = append(gaps, cs[j].Sub(cs[j-1]))
		}
	}
	t.Logf("playing %v: %d frame ticks (%.1f/s a session, %d/s nominal), chunk gaps p50 %v p99 %v max %v, fewest chunks %d",
		loadPlay, played, float64(played)/float64(n)/to.Sub(from).Seconds(), time.Second/FrameInterval,
		pct(gaps, .5).Round(100*time.Microsecond), pct(gaps, .99).Round(100*time.Microsecond),
		slices.Max(append(gaps, 0)).Round(100*time.Microsecond), minChunks)
	t.Logf("playing %v: CPU %v (%.0f%% of one core, server and clients), %.0f µs and %.0f KB allocated a frame tick, %d collections",
		to.Sub(from).Round(time.Millisecond), playCPU.Round(time.Millisecond), 100*playCPU.Seconds()/to.Sub(from).Seconds(),
		float64(playCPU.Microseconds())/float64(max(played, 1)), float64(ms1.TotalAlloc-ms0.TotalAlloc)/1e3/float64(max(played, 1)),
		ms1.NumGC-ms0.NumGC)
	fs := takeFrames()
	t.Logf("playing: update to frame on the wire (from when the tick was due) %s (%d frames)", spread(fs), len(fs))
	lagMu.Lock()
	t.Logf("playing: a frame tick reaches its session's Update after its timer fires: %s (%d ticks); its frame follows within the renderer's 60 Hz flush",
		spread(lags), len(lags))
	lagMu.Unlock()
	t.Logf("memory before the server: %s", before)
	t.Logf("memory with %d sessions playing (server and clients, one process): %s", n, memFigures())

	// Key to frame: every session at once pauses, plays and pauses again;
	// then as a class would, each at its own moment within a second: plays, then pauses.
	lat, err := pressAll(terms, []string{"‖ paused", "▶ playing", "‖ paused"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("key to frame (%d keys, all sessions at once): %s", len(lat), spread(lat))
	fs = takeFrames()
	t.Logf("keys at once: update to frame on the wire %s (%d frames)", spread(fs), len(fs))
	lat, err = pressAll(terms, []string{"▶ playing", "‖ paused"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("key to frame (%d keys, each session at its own moment within 1 s, the others playing): %s", len(lat), spread(lat))
	fs = takeFrames()
	t.Logf("keys each at its own moment: update to frame on the wire %s (%d frames, ticks too)", spread(fs), len(fs))

	// Idle: all paused. A tick in flight when the key arrived lands within a frame; after that
	// none may come.
	time.Sleep(4 * common.FrameInterval)
	ticks.Store(0)
	c0, w0 := cpuTime(), time.Now()
	profiled(t, "idle", loadIdle)
	cpu, wall := cpuTime()-c0, time.Since(w0)
	idle := ticks.Load()
	t.Logf("all %d paused, %v: CPU %v (%.1f%% of one core, server and clients), frame ticks %d",
		n, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), 100*cpu.Seconds()/wall.Seconds(), idle)
	if idle != 0 {
		t.Errorf("%d frame ticks reached the explorers while every session was paused; want 0", idle)
	}
	if n >= 2 {
		editing(t, terms)
	}
	for i, lt := range terms {
		if lt.gone.Load() {
			t.Errorf("session %d ended during the test", i)
		}
	}
}

// editing is a class changing parameters at once: every session but the first holds → and ←
// on the GPU count (30 keys a second for loadPlay, each a new scenario with its search) while
// the first presses space every 200 ms. It reports the CPU and the first's key to frame, and
// asserts that every holder's screen then comes to the scenario of two more → (32 GPUs, which
// the hold never showed), evaluated: the title shows the result's GPU count.
func editing(t *testing.T, terms []*loadTerm) {
	t.Helper()
	holders := terms[1:]
	down := strings.Repeat("\x1b[B", 6) // model, layers, hidden, heads, sequence, GPU: GPUs
	for _, lt := range holders {
		if _, err := lt.in.Write([]byte(down)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	c0, w0 := cpuTime(), time.Now()
	var wg sync.WaitGroup
	keys := int(loadPlay / (33 * time.Millisecond))
	for _, lt := range holders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys - keys%2 { // an even count: back to 8 GPUs
				k := "\x1b[C"
				if i%2 == 1 {
					k = "\x1b[D"
				}
				_, _ = lt.in.Write([]byte(k))
				time.Sleep(33 * time.Millisecond)
			}
		}()
	}
	var lat []time.Duration
	stop := profiling(t, "edit")
	defer stop()
	for r := 0; time.Since(w0) < loadPlay; r++ {
		time.Sleep(200 * time.Millisecond)
		want := []string{"▶ playing", "‖ paused"}[r%2]
		m := terms[0].mark()
		sent := time.Now()
		if _, err := terms[0].in.Write([]byte(" ")); err != nil {
			t.Fatal(err)
		}
		at, ok := terms[0].await(m, want, sent.Add(slack(len(terms))))
		if !ok {
			t.Fatalf("while the class edits, session 0 never saw %q after space", want)
		}
		lat = append(lat, at.Sub(sent))
	}
	wg.Wait()
	stop()
	cpu, wall := cpuTime()-c0, time.Since(w0)
	t.Logf("editing: %d sessions holding ←/→ on the GPU count for %v (%d keys each): CPU %v (%.0f%% of one core); session 0's key to frame meanwhile %s",
		len(holders), wall.Round(time.Millisecond), keys-keys%2, cpu.Round(time.Millisecond), 100*cpu.Seconds()/wall.Seconds(), spread(lat))
	marks := make([]int, len(holders))
	t0 := time.Now()
	for i, lt := range holders {
		marks[i] = lt.mark()
		if _, err := lt.in.Write([]byte("\x1b[C\x1b[C")); err != nil {
			t.Fatal(err)
		}
	}
	for i, lt := range holders {
		if _, ok := lt.await(marks[i], "32× h100-sxm", t0.Add(slack(len(terms)))); !ok {
			lt.mu.Lock()
			tail := ansi.Strip(string(lt.tail[max(len(lt.tail)-3000, 0):]))
			lt.mu.Unlock()
			t.Fatalf("session %d never showed its last scenario evaluated (32 GPUs); it showed last:\n%s", i+1, tail)
		}
	}
	t.Logf("editing: then two more → in each of the %d: every screen evaluated in %v", len(holders), time.Since(t0).Round(time.Millisecond))
}
