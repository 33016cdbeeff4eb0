package serve

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

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

// TestWindowChangeFloodFigures logs what one wedge costs (goroutines, heap) on the code it
// runs on; it asserts nothing beyond what TestWindowChangeFloodNoWedge does.
func TestWindowChangeFloodFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("figures only")
	}
	srv, addr := start(t, nil, nil)
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
	time.Sleep(2 * time.Second)
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	after := runtime.NumGoroutine()
	t.Logf("%d flooded connections, 2 s after their clients closed: %d sessions held, %+d goroutines (%.1f each), heap in use %+.1f MiB (%.2f each)",
		conns, srv.Sessions(), after-before, float64(after-before)/conns,
		float64(int64(ms1.HeapInuse)-int64(ms0.HeapInuse))/(1<<20), float64(int64(ms1.HeapInuse)-int64(ms0.HeapInuse))/(1<<20)/conns)
	var stuck []string
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "charmbracelet") || strings.Contains(g, "crypto/ssh") {
			first := strings.SplitN(g, "\n", 3)
			if len(first) > 1 {
				stuck = append(stuck, fmt.Sprintf("%s | %s", first[0], strings.TrimSpace(first[1])))
			}
		}
	}
	t.Logf("server goroutines left:\n%s", strings.Join(stuck, "\n"))
}
