package serve

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/time/rate"
)

// A session's input costs at most its share. Bubble Tea parses every byte a client sends into
// messages and gives each to the explorer's Update and then View: a client sending random
// escape sequences or invalid UTF-8 as fast as it can kept a core busy for seconds and delayed
// every other session's frames. Here the session's input is read at once (the client's window
// keeps moving, nothing waits in the SSH layer) into a bounded queue that Bubble Tea reads; what
// comes faster than inputBytes a second (after a burst), or while the queue is full, is dropped
// and counted. The guard (serve.go) then bounds the input messages (keys, mouse, unknown
// sequences) reaching the explorer to inputMsgs a second, and says in the footer how many were
// dropped.

const (
	// inputQueue bounds the bytes read from a client and not yet taken by its program.
	inputQueue = 4 << 10
	// inputBytes and inputByteBurst: the bytes a second a session's input may bring, and at
	// once (a paste of a long number, a held arrow key, mouse drags take far less).
	inputBytes     = 4 << 10
	inputByteBurst = 16 << 10
	// inputMsgs and inputMsgBurst: the input messages a second the explorer takes, and at once
	// (key repeat is about 30 a second; a paste of 200 characters goes through whole).
	inputMsgs     = 100
	inputMsgBurst = 200
)

// input is a session's bounded input: one goroutine reads the session into buf; Read (Bubble
// Tea's read loop, or the terminal query before it, one at a time) takes from it.
type input struct {
	mu      sync.Mutex
	buf     []byte
	err     error
	more    chan struct{} // a value when buf or err changed since the reader last looked
	lim     *rate.Limiter
	dropped atomic.Int64 // bytes dropped, in all
	// dropWake has a value when bytes were dropped since the program was last told.
	dropWake chan struct{}
}

func newInput(r io.Reader) *input {
	in := &input{more: make(chan struct{}, 1), dropWake: make(chan struct{}, 1),
		lim: rate.NewLimiter(inputBytes, inputByteBurst)}
	go in.fill(r)
	return in
}

// fill reads r until it fails, keeping what the rate and the queue allow.
func (in *input) fill(r io.Reader) {
	buf := make([]byte, 4<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			keep := min(n, int(in.lim.Tokens()))
			if keep > 0 {
				in.lim.AllowN(time.Now(), keep)
			}
			in.mu.Lock()
			keep = min(keep, inputQueue-len(in.buf))
			in.buf = append(in.buf, buf[:keep]...)
			in.mu.Unlock()
			if keep > 0 {
				signal(in.more)
			}
			if keep < n {
				in.dropped.Add(int64(n - keep))
				signal(in.dropWake)
			}
		}
		if err != nil {
			in.mu.Lock()
			in.err = err
			in.mu.Unlock()
			signal(in.more)
			return
		}
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// errQueryTimeout ends a read that waited past its deadline.
var errQueryTimeout = errors.New("serve: no answer in time")

// Read takes what the client sent, waiting for it.
func (in *input) Read(p []byte) (int, error) { return in.readBy(p, nil) }

// readBy is Read that gives up (errQueryTimeout) when expire fires; nil never does.
func (in *input) readBy(p []byte, expire <-chan time.Time) (int, error) {
	for {
		in.mu.Lock()
		if len(in.buf) > 0 {
			n := copy(p, in.buf)
			in.buf = in.buf[:copy(in.buf, in.buf[n:])]
			in.mu.Unlock()
			return n, nil
		}
		if err := in.err; err != nil {
			in.mu.Unlock()
			return 0, err
		}
		in.mu.Unlock()
		select {
		case <-in.more:
		case <-expire:
			return 0, errQueryTimeout
		}
	}
}

// deadlineReader reads in until a deadline.
type deadlineReader struct {
	in     *input
	expire <-chan time.Time
}

func (d deadlineReader) Read(p []byte) (int, error) { return d.in.readBy(p, d.expire) }

// noticeFor is how long the footer says input was dropped after the last drop.
const noticeFor = 2 * time.Second

// inputLimit is the guard's bound on the input messages reaching the explorer, and the notice
// of what was dropped (messages here, bytes in input).
type inputLimit struct {
	in      *input
	lim     *rate.Limiter
	dropped int64 // input messages dropped, in all
	shown   int64 // the count the notice shows
	notice  string
	ticking bool      // a clearNoticeMsg is on its way
	last    time.Time // the last drop
	width   int
	// skip: the message just handled changed nothing in the explorer, whose last view stands.
	skip bool
}

type clearNoticeMsg struct{}

func newInputLimit(in *input) *inputLimit {
	return &inputLimit{in: in, lim: rate.NewLimiter(inputMsgs, inputMsgBurst), width: 80}
}

// update takes msg before the explorer: drop reports that the explorer must not see it (an
// input message past the rate, or the limit's own), with the command to run instead.
func (l *inputLimit) update(msg tea.Msg) (drop bool, cmd tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		l.width = max(1, min(msg.Width, MaxCols))
		return false, nil
	case inputDroppedMsg:
		l.skip = true
		return true, l.dropNoticed()
	case clearNoticeMsg:
		l.skip, l.ticking = true, false
		if left := noticeFor - time.Since(l.last); left > 0 {
			l.ticking = true
			return true, tea.Tick(left, func(time.Time) tea.Msg { return clearNoticeMsg{} })
		}
		l.notice = ""
		return true, nil
	}
	if !isInput(msg) || l.lim.Allow() {
		return false, nil
	}
	l.dropped++
	l.skip = true
	return true, l.dropNoticed()
}

// dropNoticed updates the notice with what was dropped so far; the first drop after a quiet
// time arms the notice's end (one timer at a time, however many drops).
func (l *inputLimit) dropNoticed() tea.Cmd {
	total := l.dropped + l.in.dropped.Load()
	if total == l.shown {
		return nil
	}
	l.shown, l.last = total, time.Now()
	l.notice = fmt.Sprintf("splitscope: dropped input that came too fast (%d keys)", l.dropped)
	if b := l.in.dropped.Load(); b > 0 {
		l.notice = fmt.Sprintf("splitscope: dropped input that came too fast (%d keys, %d bytes)", l.dropped, b)
	}
	if l.ticking {
		return nil
	}
	l.ticking = true
	return tea.Tick(noticeFor, func(time.Time) tea.Msg { return clearNoticeMsg{} })
}

// overlay puts the notice, if any, on the view's last line.
func (l *inputLimit) overlay(v string) string {
	if l.notice == "" {
		return v
	}
	line := "\x1b[7m" + ansi.Truncate(l.notice, l.width, "…") + "\x1b[m"
	if i := strings.LastIndexByte(v, '\n'); i >= 0 {
		return v[:i+1] + line
	}
	return line
}

// isInput reports whether msg came from the client's input: keys, mouse, focus, and the
// sequences Bubble Tea does not know (its unexported unknown… messages).
func isInput(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyMsg, tea.MouseMsg, tea.FocusMsg, tea.BlurMsg:
		return true
	}
	t := reflect.TypeOf(msg)
	return t != nil && t.PkgPath() == "github.com/charmbracelet/bubbletea" && strings.HasPrefix(t.Name(), "unknown")
}
