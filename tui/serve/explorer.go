package serve

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/charmbracelet/x/ansi"
	xinput "github.com/charmbracelet/x/input"
	"github.com/lucasb-eyer/go-colorful"
	"github.com/muesli/termenv"
)

// The explorer's middleware, in place of wish's Bubble Tea middleware (wish/bubbletea), which
// this server no longer uses: wish's reads window sizes from charmbracelet/ssh's one-slot
// channel one Program.Send at a time (see conn.go for the wedge that made), reads the session
// directly (input unbounded, see input.go) and asks the terminal its background colour with a
// one-second timeout that cannot cancel a read on an SSH channel: a client that never answered
// got no first frame, holding its session's slot. Here the window comes from the session's
// chanState (only the newest size), the input through a bounded input, and the colour query
// gives up after queryTimeout (the explorer then draws for a dark background). That query is
// the only one: the background is then set on the renderer, and termenv asks a terminal only
// through a file descriptor, which an SSH session has none of.

// queryTimeout bounds the wait for the terminal's answer to the background colour query, so
// that a first frame follows within a second whatever the client does.
const queryTimeout = 600 * time.Millisecond

// explorerMiddleware runs the session's explorer until it quits or the connection ends.
func (s *Server) explorerMiddleware(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		pty, _, ok := sess.Pty()
		st := stateOf(sess)
		if !ok || st == nil {
			wish.Fatalln(sess, "splitscope: no terminal (ssh -t HOST)")
			return
		}
		in := newInput(sess)
		p := s.program(sess, in)
		ctx, cancel := context.WithCancel(sess.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.Send(tea.WindowSizeMsg{Width: pty.Window.Width, Height: pty.Window.Height})
			for {
				select {
				case <-ctx.Done():
					p.Kill()
					return
				case <-st.wake:
					// Send waits for the program (or its end); meanwhile newer sizes replace
					// this one in st, and only the newest is sent next.
					if w, ok := st.window(); ok {
						p.Send(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
					}
				case <-in.dropWake:
					p.Send(inputDroppedMsg{})
				}
			}
		}()
		// A program killed (its connection gone, or closed for a reason already logged) is no
		// failure.
		if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && !st.closed.Load() {
			s.log.Printf("%s: explorer: %v", sess.RemoteAddr(), err)
		}
		p.Kill()
		cancel()
		<-done
		next(sess)
	}
}

// inputDroppedMsg tells the guard that the session's input dropped bytes (input.dropped).
type inputDroppedMsg struct{}

// sshEnviron is a session's environment for termenv.
type sshEnviron []string

func (e sshEnviron) Environ() []string { return e }

func (e sshEnviron) Getenv(k string) string {
	for _, v := range e {
		if val, ok := strings.CutPrefix(v, k+"="); ok {
			return val
		}
	}
	return ""
}

// renderer is the session's lipgloss renderer: its terminal's colour profile (TERM and the
// client's environment), and its background asked once, for at most queryTimeout.
func renderer(sess ssh.Session, in *input) *lipgloss.Renderer {
	pty, _, _ := sess.Pty()
	if pty.Term == "" || pty.Term == "dumb" {
		return lipgloss.NewRenderer(sess, termenv.WithProfile(termenv.Ascii))
	}
	env := sshEnviron(append(sess.Environ(), "TERM="+pty.Term))
	r := lipgloss.NewRenderer(sess, termenv.WithEnvironment(env), termenv.WithUnsafe(), termenv.WithColorCache(true))
	dark := true
	if bg := queryBackground(sess, in, queryTimeout); bg != nil {
		if c, ok := colorful.MakeColor(bg); ok {
			_, _, l := c.Hsl()
			dark = l < 0.5
		}
	}
	r.SetHasDarkBackground(dark)
	return r
}

// queryBackground asks the terminal its background colour and reads the answer (up to the
// device attributes, which every terminal answers) for at most d; nil when none came.
func queryBackground(w interface{ Write([]byte) (int, error) }, in *input, d time.Duration) (bg color.Color) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	if _, err := fmt.Fprint(w, ansi.RequestBackgroundColor+ansi.RequestPrimaryDeviceAttributes); err != nil {
		return nil
	}
	rd, err := xinput.NewReader(deadlineReader{in: in, expire: timer.C}, "", 0)
	if err != nil {
		return nil
	}
	defer rd.Close()
	for {
		events, err := rd.ReadEvents()
		if err != nil {
			return bg
		}
		for _, e := range events {
			switch e := e.(type) {
			case xinput.BackgroundColorEvent:
				bg = e.Color
			case xinput.PrimaryDeviceAttributesEvent:
				return bg
			}
		}
	}
}
