package serve

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// A connection that never wedges. golang.org/x/crypto/ssh reads a connection in one loop that
// hands each channel request to a 16-slot queue and waits when it is full; charmbracelet/ssh's
// session drains that queue in one goroutine that sends each window size on a one-slot channel;
// wish's Bubble Tea middleware drains that channel one Program.Send at a time, and the program
// waits on its renderer, which waits on the channel's send window, which only the read loop can
// grow. A second of window changes from any client closed that circle and the connection stayed
// wedged for good (no read pending, so neither the idle timeout nor the client's death freed it).
//
// Here the session channel is charmbracelet/ssh's own handler, given a channel whose requests
// pass through pump first: window changes stop there (the newest size kept in win, the
// explorer told with a one-slot wake that never waits), every other request goes on through a
// bounded queue that refuses what it cannot hold, so the read loop never waits on us. Writes to
// the client carry a deadline (Config.WriteTimeout): a session that could not be written to
// for that long is closed, its client told why, and the session's slot freed. A session with no
// traffic either way for Config.IdleTimeout is closed with a line saying so. The explorer's own
// middleware (explorer.go) reads the window from here instead of from the session's channel.

// DefaultWriteTimeout is how long a write to a client may wait (a client that stopped reading:
// a suspended ssh, a full window) before its session is closed.
const DefaultWriteTimeout = 10 * time.Second

// reqQueue bounds a session's requests other than window changes waiting for
// charmbracelet/ssh's request loop (env, pty-req, shell, signals): past it they are refused.
const reqQueue = 16

// stateKey finds a session's chanState in its context.
type stateKey struct{}

// chanState is what the server keeps of one session channel.
type chanState struct {
	s    *Server
	conn *gossh.ServerConn
	ch   gossh.Channel

	mu     sync.Mutex
	win    ssh.Window
	hasWin bool
	// wake has a value when win changed since the explorer last took it.
	wake chan struct{}

	// last is when traffic last went either way (Unix nanoseconds), for the idle close.
	last  atomic.Int64
	idle  *time.Timer
	close sync.Once
	// closed is set once the session is being closed for a reason (stall, idle).
	closed atomic.Bool
}

// sessCtx is the connection's context as one session sees it: with the session's chanState.
type sessCtx struct {
	ssh.Context
	st *chanState
}

func (c *sessCtx) Value(key any) any {
	if _, ok := key.(stateKey); ok {
		return c.st
	}
	return c.Context.Value(key)
}

// stateOf is a session's chanState, nil for a session not opened through sessionChannel.
func stateOf(sess ssh.Session) *chanState {
	st, _ := sess.Context().Value(stateKey{}).(*chanState)
	return st
}

// sessionChannel is the "session" channel handler: charmbracelet/ssh's, with the channel's
// requests and writes going through a chanState.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	st := &chanState{s: s, conn: conn, wake: make(chan struct{}, 1)}
	st.touch()
	ssh.DefaultSessionHandler(srv, conn, &newChannel{NewChannel: nc, st: st}, &sessCtx{Context: ctx, st: st})
	st.stop()
}

// newChannel accepts the channel with its requests through pump and its writes timed.
type newChannel struct {
	gossh.NewChannel
	st *chanState
}

func (nc *newChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := nc.NewChannel.Accept()
	if err != nil {
		return nil, nil, err
	}
	st := nc.st
	st.ch = ch
	out := make(chan *gossh.Request, reqQueue)
	go st.pump(reqs, out)
	if d := st.s.cfg.IdleTimeout; d > 0 {
		st.mu.Lock()
		st.idle = time.AfterFunc(d, st.checkIdle)
		st.mu.Unlock()
	}
	return &timedChannel{Channel: ch, st: st}, out, nil
}

// pump takes every request off the connection's read loop at once: a window change is kept
// (only the newest) and answered here; the rest wait for the session's request loop in a
// bounded queue, refused when it is full.
func (st *chanState) pump(in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	for req := range in {
		st.touch()
		if req.Type == "window-change" {
			ok := st.setWindow(req.Payload)
			if req.WantReply {
				_ = req.Reply(ok, nil)
			}
			continue
		}
		select {
		case out <- req:
		default:
			if req.WantReply {
				_ = req.Reply(false, nil)
			}
		}
	}
}

// setWindow keeps a window-change's size as the newest and wakes the explorer; false for a
// malformed payload.
func (st *chanState) setWindow(payload []byte) bool {
	var w struct{ W, H, PW, PH uint32 }
	if err := gossh.Unmarshal(payload, &w); err != nil {
		return false
	}
	st.mu.Lock()
	// Sizes beyond int32 are clamped here; the explorer bounds the screen (MaxCols, MaxRows).
	st.win = ssh.Window{Width: int(min(w.W, 1<<31-1)), Height: int(min(w.H, 1<<31-1)),
		WidthPixels: int(min(w.PW, 1<<31-1)), HeightPixels: int(min(w.PH, 1<<31-1))}
	st.hasWin = true
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
	return true
}

// window is the newest size a window-change gave, ok false when none came.
func (st *chanState) window() (w ssh.Window, ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.win, st.hasWin
}

func (st *chanState) touch() { st.last.Store(time.Now().UnixNano()) }

// stop ends the session's timers.
func (st *chanState) stop() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.idle != nil {
		st.idle.Stop()
	}
}

// checkIdle closes the session when nothing went either way for the idle timeout, else looks
// again when it would be.
func (st *chanState) checkIdle() {
	d := st.s.cfg.IdleTimeout
	since := time.Since(time.Unix(0, st.last.Load()))
	if since < d {
		st.mu.Lock()
		st.idle.Reset(d - since)
		st.mu.Unlock()
		return
	}
	st.end("idle", fmt.Sprintf("closed after %v without a key or a frame (--idle-timeout)", d))
}

// stalled closes the session whose write has waited WriteTimeout.
func (st *chanState) stalled() {
	st.end("stalled", fmt.Sprintf("closed: nothing could be written to this terminal for %v (--write-timeout)", st.s.writeTimeout()))
}

// restoreTerminal undoes what the explorer set on the client's terminal (mouse reports, the
// alternate screen, a hidden cursor), as Bubble Tea does when it quits.
const restoreTerminal = "\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1049l\x1b[?25h"

// closeGrace is how long the client has to take the closing line before the connection goes.
const closeGrace = 500 * time.Millisecond

// end closes the session's connection for a reason: logged, and the client told in one line
// (on its terminal when it still reads, and as the exit signal's message, which no window holds
// back), then the connection closed, which ends every wait on it.
func (st *chanState) end(what, why string) {
	st.close.Do(func() {
		st.closed.Store(true)
		st.s.log.Printf("%s: %s %q: %s", st.conn.RemoteAddr(), what, st.conn.User(), why)
		line := "splitscope: " + why
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			// The line on the terminal, after leaving the explorer's screen as Bubble Tea would
			// (mouse off, main screen, cursor shown); it waits for the client's window, so the
			// exit signal's message goes after it or without it.
			wrote := make(chan struct{})
			go func() {
				_, _ = io.WriteString(st.ch, restoreTerminal+"\r\n"+line+"\r\n")
				close(wrote)
			}()
			select {
			case <-wrote:
			case <-time.After(closeGrace / 2):
			}
			_, _ = st.ch.SendRequest("exit-signal", false, gossh.Marshal(struct {
				Signal     string
				CoreDumped bool
				Error      string
				Lang       string
			}{"TERM", false, line, ""}))
			_ = st.ch.Close()
		}()
		go func() {
			select {
			case <-sent:
			case <-time.After(closeGrace):
			}
			_ = st.conn.Close()
		}()
	})
}

// timedChannel is a session channel whose writes carry the write deadline and count as
// traffic.
type timedChannel struct {
	gossh.Channel
	st *chanState
}

func (c *timedChannel) Write(p []byte) (int, error) { return c.st.timed(c.Channel.Write, p) }

func (c *timedChannel) Read(p []byte) (int, error) {
	n, err := c.Channel.Read(p)
	if n > 0 {
		c.st.touch()
	}
	return n, err
}

func (c *timedChannel) Stderr() io.ReadWriter {
	return timedRW{ReadWriter: c.Channel.Stderr(), st: c.st}
}

type timedRW struct {
	io.ReadWriter
	st *chanState
}

func (w timedRW) Write(p []byte) (int, error) { return w.st.timed(w.ReadWriter.Write, p) }

// timed writes p with the write deadline: past it, the session is closed (stalled), which
// ends the write.
func (st *chanState) timed(write func([]byte) (int, error), p []byte) (int, error) {
	t := time.AfterFunc(st.s.writeTimeout(), st.stalled)
	n, err := write(p)
	t.Stop()
	if n > 0 {
		st.touch()
	}
	return n, err
}

// writeTimeout is Config.WriteTimeout, or its default.
func (s *Server) writeTimeout() time.Duration {
	if s.cfg.WriteTimeout > 0 {
		return s.cfg.WriteTimeout
	}
	return DefaultWriteTimeout
}

// connIdle is the connection's own idle timeout (charmbracelet/ssh's read and write deadlines):
// a little past the sessions', so that a session's idle close, with its line, comes first.
func connIdle(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d + 2*closeGrace
}
