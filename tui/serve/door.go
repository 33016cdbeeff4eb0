package serve

// The door: what a connection may do before it is a session with an explorer, with OpenSSH's
// limits (sshd_config's LoginGraceTime, MaxStartups, PerSourceMaxStartups, MaxAuthTries,
// PerSourcePenalties, AcceptEnv, MaxSessions 1). A connection is "starting" from its accept
// until its session's explorer runs: starting connections are capped per address and in all,
// and closed after the login grace time, whether they have not logged in yet, logged in and
// opened no session (ssh -N, with keepalives or not) or opened a session and never asked for a
// shell (a bare channel). Wrong passwords cost their address time: past a burst, each guess
// waits its turn at authFailRate a second. Every refusal goes to the log with its reason
// (event), client-chosen strings quoted.

import (
	"container/list"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/charmbracelet/wish/ratelimiter"
	gossh "golang.org/x/crypto/ssh"
)

// Defaults of the door's flags.
const (
	// DefaultLoginGraceTime closes a connection that has no explorer running this long after
	// it connected (OpenSSH's LoginGraceTime closes only the unauthenticated ones, after 120 s
	// by default).
	DefaultLoginGraceTime = 30 * time.Second
	// DefaultMaxStartups bounds the starting connections (not yet in an explorer) from all
	// addresses at once; one more sheds the oldest of the address that holds the most.
	DefaultMaxStartups = 100
	// DefaultMaxStartupsPerAddr bounds the starting connections from one address; one more
	// from it is refused. A class behind one NAT address typing its password at once fits.
	DefaultMaxStartupsPerAddr = 30
	// DefaultMaxAuthTries is the authentication attempts one connection has (OpenSSH's 6).
	DefaultMaxAuthTries = 6
)

// Wrong-password penalty per address: authFailBurst wrong guesses at once, then one each
// 1/authFailRate seconds; a right password costs nothing. So a guesser gets about one guess a
// second from an address, however many connections it opens.
const (
	authFailBurst = 10
	authFailRate  = 1.0 // guesses a second past the burst
	maxPenalized  = 10000
)

// Env requests: only these names (and LC_*), each name and value bounded, so many per
// session; the rest are answered no and dropped.
const (
	maxEnvVars  = 32
	maxEnvName  = 64
	maxEnvValue = 256
)

// envAllowed is what a session reads from its client's environment: the language (sessionLang)
// and what the renderer's colour detection reads (termenv).
var envAllowed = map[string]bool{"LANG": true, "TERM": true, "COLORTERM": true, "NO_COLOR": true,
	"CLICOLOR": true, "CLICOLOR_FORCE": true, "COLORFGBG": true, "TERM_PROGRAM": true}

func envNameAllowed(k string) bool { return envAllowed[k] || strings.HasPrefix(k, "LC_") }

// event writes one line to the server's log: the client's address, what happened, then
// key=value pairs. Strings (and errors, and []string) are quoted with %q, so a name, TERM,
// command or env value the client chose cannot end the line or forge another; other values
// are quoted too if their %v has a space, a quote or a control character. Call it for every
// line that carries something a client sent.
func (s *Server) event(addr net.Addr, what string, kv ...any) {
	s.log.Print(formatEvent(addr, what, kv...))
}

func formatEvent(addr net.Addr, what string, kv ...any) string {
	var b strings.Builder
	if addr != nil {
		b.WriteString(addr.String())
		b.WriteString(" ")
	}
	b.WriteString(what)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, " %v=%s", kv[i], logValue(kv[i+1]))
	}
	return b.String()
}

func logValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case []string:
		return fmt.Sprintf("%q", v)
	case error:
		return strconv.Quote(v.Error())
	}
	s := fmt.Sprint(v)
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r == 0x7f }) ||
		strconv.Quote(s) != `"`+s+`"` {
		return strconv.Quote(s)
	}
	return s
}

// eventLimited is event at most once a second for each key: a flood's refusals are counted
// in a line at the end of the second ("more") instead of filling the log.
func (s *Server) eventLimited(key string, addr net.Addr, what string, kv ...any) {
	d := s.door
	d.logMu.Lock()
	now := time.Now()
	if since := now.Sub(d.logLast[key]); since < time.Second {
		if d.logSkipped[key]++; d.logSkipped[key] == 1 {
			// The count goes out when the second is over, even if nothing else comes.
			time.AfterFunc(time.Second-since, func() { s.flushLimited(key, what) })
		}
		d.logMu.Unlock()
		return
	}
	if len(d.logLast) > 1000 {
		clear(d.logLast)
	}
	d.logLast[key] = now
	skipped := d.logSkipped[key]
	delete(d.logSkipped, key)
	d.logMu.Unlock()
	if skipped > 0 {
		kv = append(kv, "more", fmt.Sprintf("%d like it not logged since the last", skipped))
	}
	s.event(addr, what, kv...)
}

// flushLimited logs how many of key's events eventLimited left out, if any.
func (s *Server) flushLimited(key, what string) {
	d := s.door
	d.logMu.Lock()
	n := d.logSkipped[key]
	delete(d.logSkipped, key)
	if n > 0 {
		d.logLast[key] = time.Now()
	}
	d.logMu.Unlock()
	if n > 0 {
		s.event(nil, what, "more", fmt.Sprintf("%d more like the last, not logged one by one", n))
	}
}

// door holds the starting connections and the addresses' penalties.
type door struct {
	grace                        time.Duration // <= 0: none
	maxStartups, perAddr         int
	mu                           sync.Mutex
	starting                     *list.List // of *doorConn, oldest first
	byAddr                       map[string]int
	penalty                      map[string]*bucket
	logMu                        sync.Mutex
	logLast                      map[string]time.Time
	logSkipped                   map[string]int
	shedFD, refused, graceClosed atomic.Int64 // counts, for the tests
}

func newDoor(cfg Config) *door {
	d := &door{grace: cfg.LoginGraceTime, maxStartups: cfg.MaxStartups, perAddr: cfg.MaxStartupsPerAddr,
		starting: list.New(), byAddr: map[string]int{}, penalty: map[string]*bucket{},
		logLast: map[string]time.Time{}, logSkipped: map[string]int{}}
	if d.grace == 0 {
		d.grace = DefaultLoginGraceTime
	}
	if d.maxStartups <= 0 {
		d.maxStartups = DefaultMaxStartups
	}
	if d.perAddr <= 0 {
		d.perAddr = DefaultMaxStartupsPerAddr
	}
	return d
}

// doorConn is one accepted connection.
type doorConn struct {
	net.Conn
	s    *Server
	host string // the client's IP address
	// Under door.mu: elem is the connection's place in door.starting (nil once its explorer
	// runs), active its running explorers, timer the grace timer, gone whether it is closed.
	elem   *list.Element
	active int
	timer  *time.Timer
	gone   bool
	authed atomic.Bool
	// session holds the connection's one session channel.
	session   chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Read says in the log when the idle timeout (the deadline the ssh library sets at each read
// and write) ends the connection.
func (c *doorConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	var ne net.Error
	if err != nil && c.s.cfg.IdleTimeout > 0 && errors.As(err, &ne) && ne.Timeout() {
		c.s.eventLimited("idle", c.RemoteAddr(), "closed: idle", "limit", fmt.Sprintf("%s (--idle-timeout)", c.s.cfg.IdleTimeout))
	}
	return n, err
}

func (c *doorConn) Close() error {
	c.closeOnce.Do(func() {
		c.s.door.forget(c)
		c.closeErr = c.Conn.Close()
	})
	return c.closeErr
}

// doorListener admits connections through the door.
type doorListener struct {
	net.Listener
	s *Server
}

func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

// Accept admits the next connection the door lets in. When the process is out of file
// descriptors it sheds a starting connection (the oldest of the address with the most) and
// accepts again: a student behind a flood of half-open connections still gets a place.
func (l *doorListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				if l.s.shed("the process is out of file descriptors") {
					l.s.door.shedFD.Add(1)
					time.Sleep(2 * time.Millisecond) // the shed connection's descriptor closes when its reader wakes
					continue
				}
			}
			return nil, err
		}
		if dc := l.s.admit(c); dc != nil {
			return dc, nil
		}
	}
}

// admit lets c in as a starting connection, or refuses it (closed, logged): nil then.
func (s *Server) admit(c net.Conn) *doorConn {
	d := s.door
	dc := &doorConn{Conn: c, s: s, host: hostOf(c.RemoteAddr()), session: make(chan struct{}, 1)}
	d.mu.Lock()
	if d.byAddr[dc.host] >= d.perAddr {
		d.mu.Unlock()
		d.refused.Add(1)
		s.eventLimited("perAddr "+dc.host, c.RemoteAddr(), "refused: too many connections not yet in a session from this address",
			"limit", fmt.Sprintf("%d (--max-startups-per-address)", d.perAddr))
		_ = c.Close()
		return nil
	}
	var victim *doorConn
	if d.starting.Len() >= d.maxStartups {
		victim = d.oldestOfBusiest()
		d.removeLocked(victim)
	}
	dc.elem = d.starting.PushBack(dc)
	d.byAddr[dc.host]++
	if d.grace > 0 {
		dc.timer = time.AfterFunc(d.grace, func() { s.graceOver(dc) })
	}
	d.mu.Unlock()
	if victim != nil {
		s.eventLimited("startups", victim.RemoteAddr(), "dropped: not yet in a session while the door is full",
			"limit", fmt.Sprintf("%d (--max-startups)", d.maxStartups))
		_ = victim.Close()
	}
	return dc
}

// oldestOfBusiest is the oldest starting connection of the address with the most (d.mu held,
// d.starting not empty).
func (d *door) oldestOfBusiest() *doorConn {
	busiest, n := "", 0
	for h, k := range d.byAddr {
		if k > n {
			busiest, n = h, k
		}
	}
	for e := d.starting.Front(); e != nil; e = e.Next() {
		if c := e.Value.(*doorConn); c.host == busiest {
			return c
		}
	}
	return d.starting.Front().Value.(*doorConn)
}

// removeLocked takes c out of the starting connections (d.mu held).
func (d *door) removeLocked(c *doorConn) {
	if c.elem == nil {
		return
	}
	d.starting.Remove(c.elem)
	c.elem = nil
	if d.byAddr[c.host]--; d.byAddr[c.host] <= 0 {
		delete(d.byAddr, c.host)
	}
}

func (d *door) forget(c *doorConn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.removeLocked(c)
	c.gone = true
	if c.timer != nil {
		c.timer.Stop()
	}
}

// shed closes one starting connection to make room; false if there is none.
func (s *Server) shed(why string) bool {
	d := s.door
	d.mu.Lock()
	if d.starting.Len() == 0 {
		d.mu.Unlock()
		return false
	}
	victim := d.oldestOfBusiest()
	d.removeLocked(victim)
	d.mu.Unlock()
	s.eventLimited("shed", victim.RemoteAddr(), "dropped: not yet in a session", "why", why)
	_ = victim.Close()
	return true
}

// startingLen is the number of starting connections.
func (d *door) startingLen() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.starting.Len()
}

// closeStarting closes every starting connection (the ssh server's Close knows only those
// that logged in).
func (s *Server) closeStarting() {
	d := s.door
	d.mu.Lock()
	var cs []*doorConn
	for e := d.starting.Front(); e != nil; e = e.Next() {
		cs = append(cs, e.Value.(*doorConn))
	}
	d.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
}

// graceOver closes c if no explorer runs on it, saying why.
func (s *Server) graceOver(c *doorConn) {
	s.door.mu.Lock()
	idle := c.active == 0 && !c.gone
	s.door.mu.Unlock()
	if !idle {
		return
	}
	s.door.graceClosed.Add(1)
	why := "not logged in"
	if c.authed.Load() {
		why = "logged in but no explorer (ssh -N, a bare channel, or a session over)"
	}
	s.eventLimited("grace "+why, c.RemoteAddr(), "closed: login grace time over", "limit",
		fmt.Sprintf("%s (--login-grace-time)", s.door.grace), "state", why)
	_ = c.Close()
}

// doorConnOf is the connection of a session's or connection's context.
func doorConnOf(ctx ssh.Context) *doorConn {
	c, _ := ctx.Value(doorConnKey{}).(*doorConn)
	return c
}

type doorConnKey struct{}

// setupDoor sets the ssh server's hooks: the connection in its context, the auth limits and
// log, the session channels' limits.
func (s *Server) setupDoor() {
	srv := s.srv
	srv.ConnCallback = func(ctx ssh.Context, c net.Conn) net.Conn {
		if dc, ok := c.(*doorConn); ok {
			ctx.SetValue(doorConnKey{}, dc)
		}
		return c
	}
	tries := s.cfg.MaxAuthTries
	if tries <= 0 {
		tries = DefaultMaxAuthTries
	}
	prev := srv.ServerConfigCallback
	srv.ServerConfigCallback = func(ctx ssh.Context) *gossh.ServerConfig {
		cfg := &gossh.ServerConfig{}
		if prev != nil {
			cfg = prev(ctx)
		}
		cfg.MaxAuthTries = tries
		cfg.AuthLogCallback = func(md gossh.ConnMetadata, method string, err error) {
			s.authLog(ctx, md, method, err, tries)
		}
		return cfg
	}
	srv.ConnectionFailedCallback = func(c net.Conn, err error) {
		if errors.Is(err, net.ErrClosed) {
			return // closed by the door, which said why
		}
		s.eventLimited("failed "+hostOf(c.RemoteAddr()), c.RemoteAddr(), "closed before login", "err", err)
	}
	next := srv.ChannelHandlers["session"]
	if next == nil {
		next = ssh.DefaultSessionHandler
	}
	if srv.ChannelHandlers == nil {
		srv.ChannelHandlers = map[string]ssh.ChannelHandler{}
	}
	srv.ChannelHandlers["session"] = s.doorSession(next)
}

// authLog logs a failed attempt (not the first "none" a client sends to learn the methods)
// and marks the connection logged in on success.
func (s *Server) authLog(ctx ssh.Context, md gossh.ConnMetadata, method string, err error, tries int) {
	if err == nil {
		if c := doorConnOf(ctx); c != nil {
			c.authed.Store(true)
		}
		return
	}
	if method == "none" {
		return
	}
	s.event(md.RemoteAddr(), "auth failed", "method", method, "user", md.User(), "err", err)
}

// guess runs check (a password's) after its address's penalty: past authFailBurst wrong
// guesses the address gets one each 1/authFailRate seconds, waited for here (until ctx ends:
// the grace time closes a waiting connection). A right guess gives its place back.
func (s *Server) guess(ctx ssh.Context, check func() bool) bool {
	host := hostOf(ctx.RemoteAddr())
	d := s.door
	d.mu.Lock()
	b := d.penalty[host]
	if b == nil {
		if len(d.penalty) >= maxPenalized {
			d.prunePenalties()
		}
		b = &bucket{tokens: authFailBurst, last: time.Now()}
		d.penalty[host] = b
	}
	wait := b.take(time.Now())
	d.mu.Unlock()
	if wait > 0 {
		s.eventLimited("throttled "+host, ctx.RemoteAddr(), "auth throttled: too many wrong passwords from this address",
			"wait", wait.Round(time.Millisecond), "user", ctx.User())
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			d.mu.Lock()
			b.give()
			d.mu.Unlock()
			return false
		}
	}
	ok := check()
	if ok {
		d.mu.Lock()
		b.give()
		d.mu.Unlock()
	}
	return ok
}

// prunePenalties forgets the addresses whose penalty has run out, or all of them if none has
// (d.mu held): the map stays bounded whatever the addresses.
func (d *door) prunePenalties() {
	now := time.Now()
	for h, b := range d.penalty {
		if b.refill(now); b.tokens >= authFailBurst {
			delete(d.penalty, h)
		}
	}
	if len(d.penalty) >= maxPenalized {
		clear(d.penalty)
	}
}

// bucket is an address's wrong-guess allowance: a token bucket that may go below zero, each
// token under zero a guess waiting its turn.
type bucket struct {
	tokens float64
	last   time.Time
}

func (b *bucket) refill(now time.Time) {
	b.tokens = min(authFailBurst, b.tokens+now.Sub(b.last).Seconds()*authFailRate)
	b.last = now
}

// take reserves a guess and says how long to wait for it.
func (b *bucket) take(now time.Time) time.Duration {
	b.refill(now)
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / authFailRate * float64(time.Second))
}

func (b *bucket) give() { b.tokens = min(authFailBurst, b.tokens+1) }

// sessionWait is how long a second session on a connection waits for the first to end.
const sessionWait = time.Second

// doorSession wraps the session channel handler: one session at a time per connection, and
// its env requests filtered (envNameAllowed, bounded in size and number).
func (s *Server) doorSession(next ssh.ChannelHandler) ssh.ChannelHandler {
	return func(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
		c := doorConnOf(ctx)
		if c == nil {
			next(srv, conn, nc, ctx)
			return
		}
		// The session before may be ending still: the client has closed it, its handler has
		// not returned yet. A moment's wait tells that apart from two at once.
		t := time.NewTimer(sessionWait)
		select {
		case c.session <- struct{}{}:
			t.Stop()
		case <-t.C:
			s.event(conn.RemoteAddr(), "refused: a second session on one connection", "user", conn.User())
			_ = nc.Reject(gossh.Prohibited, "one session per connection")
			return
		}
		defer func() { <-c.session }()
		next(srv, conn, &envFilter{NewChannel: nc, s: s, addr: conn.RemoteAddr()}, ctx)
	}
}

// envFilter is a session channel whose env requests are filtered before the session sees them.
type envFilter struct {
	gossh.NewChannel
	s    *Server
	addr net.Addr
}

func (f *envFilter) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := f.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		kept, refused := 0, 0
		for r := range reqs {
			if r.Type == "env" {
				var kv struct{ Key, Value string }
				why := ""
				switch {
				case gossh.Unmarshal(r.Payload, &kv) != nil:
					why = "malformed"
				case !envNameAllowed(kv.Key):
					why = "not one the explorer reads (LANG, LC_*, TERM, COLORTERM, NO_COLOR, CLICOLOR*, COLORFGBG, TERM_PROGRAM)"
				case len(kv.Key) > maxEnvName || len(kv.Value) > maxEnvValue:
					why = fmt.Sprintf("longer than %d bytes (name) or %d (value)", maxEnvName, maxEnvValue)
				case kept >= maxEnvVars:
					why = fmt.Sprintf("more than %d variables", maxEnvVars)
				}
				if why != "" {
					if refused++; refused == 1 {
						f.s.event(f.addr, "refused: env", "name", shorten(kv.Key, 64), "bytes", len(kv.Value), "why", why)
					}
					_ = r.Reply(false, nil)
					continue
				}
				kept++
			}
			out <- r
		}
		if refused > 1 {
			f.s.event(f.addr, "refused: env", "requests", refused)
		}
	}()
	return ch, out, nil
}

// shorten cuts s to n bytes for the log.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// inSession marks the connection in a session while the handler runs: not starting any more
// (the door's caps and grace time let go of it); when the session ends, the grace time runs
// again, so a client that keeps the connection open after its session is closed. It logs the
// session's connect and disconnect.
func (s *Server) inSession(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		start := time.Now()
		pty, _, _ := sess.Pty()
		s.event(sess.RemoteAddr(), "connect", "user", sess.User(), "key", sess.PublicKey() != nil,
			"command", sess.RawCommand(), "term", pty.Term,
			"size", fmt.Sprintf("%dx%d", pty.Window.Width, pty.Window.Height), "client", sess.Context().ClientVersion())
		c := doorConnOf(sess.Context())
		if c != nil {
			d := s.door
			d.mu.Lock()
			d.removeLocked(c)
			c.active++
			d.mu.Unlock()
			defer func() {
				d.mu.Lock()
				if c.active--; c.active == 0 && c.timer != nil && !c.gone {
					c.timer.Reset(d.grace)
				}
				d.mu.Unlock()
			}()
		}
		next(sess)
		s.event(sess.RemoteAddr(), "disconnect", "after", time.Since(start).Round(time.Second))
	}
}

// serveDoor serves ln through the door.
func (s *Server) serveDoor(ln net.Listener) error {
	return s.srv.Serve(&doorListener{Listener: ln, s: s})
}

// limitRate is wish's ratelimiter middleware, the refusal logged: sessions from one address
// past rl's rate are refused with its line.
func (s *Server) limitRate(rl ratelimiter.RateLimiter) wish.Middleware {
	return func(next ssh.Handler) ssh.Handler {
		return func(sess ssh.Session) {
			if err := rl.Allow(sess); err != nil {
				s.eventLimited("rate "+hostOf(sess.RemoteAddr()), sess.RemoteAddr(), "refused: sessions from this address too fast",
					"user", sess.User(), "err", err)
				wish.Fatal(sess, err)
				return
			}
			next(sess)
		}
	}
}

// needPTY is wish's activeterm middleware, the refusal logged: a session without a PTY gets
// one line and exit 1.
func (s *Server) needPTY(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if _, _, ok := sess.Pty(); ok {
			next(sess)
			return
		}
		s.eventLimited("pty "+hostOf(sess.RemoteAddr()), sess.RemoteAddr(), "refused: no PTY", "user", sess.User(),
			"command", sess.RawCommand())
		wish.Println(sess, "Requires an active PTY")
		_ = sess.Exit(1)
	}
}
