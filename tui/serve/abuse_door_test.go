package serve

// The door under abuse: a Go SSH client drives each attack of issue 21 on the door against an
// in-process server (the fd-exhaustion one against a child process with a low descriptor
// limit). Every wait is bounded (wait, or a few of them); no test asserts how fast anything
// was, only what the server let happen.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// from dials addr from the loopback source address 127.0.0.b (b ≥ 2 for an address other
// than the attacks' 127.0.0.1), with every wait bounded.
func from(t *testing.T, addr string, b byte, user string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	t.Helper()
	d := net.Dialer{Timeout: wait, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, b)}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(wait))
	cc, chans, reqs, err := gossh.NewClientConn(conn, addr, &gossh.ClientConfig{User: user, Auth: auth,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait})
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return gossh.NewClient(cc, chans, reqs), nil
}

// rawConns opens n TCP connections from 127.0.0.b that never say a word.
func rawConns(t *testing.T, addr string, b byte, n int) []net.Conn {
	t.Helper()
	var cs []net.Conn
	for range n {
		d := net.Dialer{Timeout: wait, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, b)}}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("flood connection %d from 127.0.0.%d: %v", len(cs), b, err)
		}
		cs = append(cs, c)
	}
	t.Cleanup(func() {
		for _, c := range cs {
			_ = c.Close()
		}
	})
	return cs
}

// closedWithin reads c until the server closes it or d passes: true if it closed.
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// keepalive sends OpenSSH's keepalive on c every 100 ms (as ssh -o ServerAliveInterval does)
// until c is closed.
func keepalive(c *gossh.Client) {
	for {
		if _, _, err := c.SendRequest("keepalive@openssh.com", true, nil); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ended waits, at most d, for the server to close c.
func ended(c *gossh.Client, d time.Duration) bool {
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// Brute force: wrong passwords from one address, from many connections at once, get about
// authFailRate answers a second past the first authFailBurst (the issue measured about 1,900 a
// second); each connection has DefaultMaxAuthTries; every failure is logged with the address,
// the method and the user; another address's right password still gets in.
func TestDoorBruteForceThrottled(t *testing.T) {
	var logs syncBuf
	defer func() {
		if t.Failed() {
			t.Log(tail(logs.String(), 3000))
		}
	}()
	_, addr := start(t, func(c *Config) { c.Password = "right"; c.Log = &logs }, nil)

	guess := func(n *atomic.Int64) gossh.AuthMethod {
		return gossh.RetryableAuthMethod(gossh.PasswordCallback(func() (string, error) {
			n.Add(1)
			return "wrong", nil
		}), 100)
	}
	// One connection: six tries, then the server hangs up. The address's allowance starts
	// here: its refill is counted from begin.
	begin := time.Now()
	var one atomic.Int64
	if c, err := from(t, addr, 1, "root", guess(&one)); err == nil {
		c.Close()
		t.Fatal("a wrong password got in")
	}
	if one.Load() != DefaultMaxAuthTries {
		t.Errorf("one connection had %d password tries; want %d", one.Load(), DefaultMaxAuthTries)
	}

	// Eight connections at a time until two seconds from begin.
	const workers, attack = 8, 2 * time.Second
	var guesses atomic.Int64
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				conn, err := net.DialTimeout("tcp", addr, wait)
				if err != nil {
					return
				}
				mu.Lock()
				open[conn] = true
				mu.Unlock()
				_, _, _, err = gossh.NewClientConn(conn, addr, &gossh.ClientConfig{User: "root",
					Auth: []gossh.AuthMethod{guess(&guesses)}, HostKeyCallback: gossh.InsecureIgnoreHostKey()})
				if err == nil {
					t.Error("a wrong password got in")
				}
				_ = conn.Close()
				mu.Lock()
				delete(open, conn)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(attack - time.Since(begin))
	close(stop)
	n, elapsed := guesses.Load(), time.Since(begin)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for stopped := false; !stopped; {
		mu.Lock()
		for c := range open {
			_ = c.Close()
		}
		mu.Unlock()
		select {
		case <-done:
			stopped = true
		case <-time.After(50 * time.Millisecond):
		}
	}
	// The allowance left after the one connection's six, the refill over the attack, and one
	// guess in flight on each connection.
	bound := int64(authFailBurst-DefaultMaxAuthTries) + int64(math.Ceil(elapsed.Seconds()*authFailRate)) + workers + 1
	t.Logf("%d wrong passwords sent in %.1f s from one address (%.1f a second); bound %d", n, elapsed.Seconds(),
		float64(n)/elapsed.Seconds(), bound)
	if n > bound {
		t.Errorf("%d guesses in %.1f s from one address; want at most %d", n, elapsed.Seconds(), bound)
	}
	if c, err := from(t, addr, 2, "student", gossh.Password("right")); err != nil {
		t.Errorf("the right password from another address during the penalty: %v", err)
	} else {
		c.Close()
	}
	l := logs.String()
	for _, want := range []string{`127.0.0.1:`, `auth failed method="password" user="root"`, "auth throttled"} {
		if !strings.Contains(l, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
}

// Env flood: only the variables the explorer reads are taken (LANG, LC_*, the colour ones),
// each bounded in size and in number; a thousand 32 KiB env requests before the shell leave
// the server's heap where it was (the 20,000 took it from 67 MB to 1.04 GB).
func TestDoorEnvFlood(t *testing.T) {
	var logs syncBuf
	_, addr := start(t, func(c *Config) { c.Log = &logs }, nil)
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"LANG", "LC_MESSAGES", "NO_COLOR", "COLORTERM"} {
		if err := s.Setenv(k, "fr_FR.UTF-8"); err != nil {
			t.Errorf("env %s refused: %v", k, err)
		}
	}
	for _, kv := range [][2]string{{"LD_PRELOAD", "/tmp/x.so"}, {"PATH", "/tmp"}, {"EVIL\nserve: forged", "x"},
		{"LC_ALL", strings.Repeat("x", 32<<10)}, {"LC_" + strings.Repeat("X", 100), "C"}} {
		if err := s.Setenv(kv[0], kv[1]); err == nil {
			t.Errorf("env %q (%d bytes) accepted", kv[0], len(kv[1]))
		}
	}
	taken := 4
	for i := range 2 * maxEnvVars {
		if s.Setenv(fmt.Sprintf("LC_X%d", i), "C") == nil {
			taken++
		}
	}
	if taken != maxEnvVars {
		t.Errorf("%d env variables taken; want %d", taken, maxEnvVars)
	}

	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	big := strings.Repeat("x", 32<<10)
	for i := range 1000 {
		k := fmt.Sprintf("X%d", i)
		if i%2 == 0 {
			k = "LC_ALL"
		}
		_ = s.Setenv(k, big)
	}
	after := heap()
	grew := int64(after) - int64(before)
	t.Logf("heap %.1f MB before a thousand 32 KiB env requests, %.1f MB after", float64(before)/1e6, float64(after)/1e6)
	if grew > 8<<20 {
		t.Errorf("a thousand 32 KiB env requests grew the heap by %.1f MB; want under 8", float64(grew)/1e6)
	}
	if l := logs.String(); !strings.Contains(l, `refused: env name="LD_PRELOAD"`) {
		t.Errorf("the log lacks the env refusal: %s", tail(l, 1000))
	}
}

// A flood of connections that never log in: past MaxStartupsPerAddr from one address they
// are refused at once, past MaxStartups the busiest address's oldest is shed, and the login
// grace time closes the rest; a student from another address gets in all along.
func TestDoorPreAuthFlood(t *testing.T) {
	var logs syncBuf
	defer func() {
		if t.Failed() {
			t.Log(tail(logs.String(), 3000))
		}
	}()
	srv, addr := start(t, func(c *Config) {
		c.Log = &logs
		c.LoginGraceTime = time.Second
		c.MaxStartupsPerAddr = 10
		c.MaxStartups = 25
	}, nil)
	flood := rawConns(t, addr, 1, 30)
	flood = append(flood, rawConns(t, addr, 3, 10)...)
	flood = append(flood, rawConns(t, addr, 4, 10)...)
	c, err := from(t, addr, 2, "student")
	if err != nil {
		t.Fatalf("a student behind the flood: %v", err)
	}
	tm := openOn(t, c, nil, "")
	tm.see(0, "Pipeline")
	for i, fc := range flood {
		if !closedWithin(fc, wait) {
			t.Errorf("flood connection %d (from %s) still open after %s", i, fc.LocalAddr(), wait)
		}
	}
	if n := srv.door.refused.Load(); n < 20 {
		t.Errorf("%d connections refused at the door; want the 20 past 10 from 127.0.0.1", n)
	}
	// The student's session, in its explorer, is not the grace time's.
	m := tm.mark()
	tm.send("\t")
	tm.see(m, "Tensor")
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Errorf("the student's session: %v", err)
	}
	l := logs.String()
	for _, want := range []string{"refused: too many connections not yet in a session from this address",
		"dropped: not yet in a session while the door is full", "closed: login grace time over", `state="not logged in"`,
		`more="19 more like the last, not logged one by one"`} {
		if !strings.Contains(l, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
}

// One session per connection: a second one opened beside a running explorer is refused.
func TestDoorOneSessionPerConnection(t *testing.T) {
	var logs syncBuf
	_, addr := start(t, func(c *Config) { c.Log = &logs }, nil)
	tm := open(t, addr, nil, "")
	tm.see(0, "Pipeline")
	if s, err := tm.c.NewSession(); err == nil {
		s.Close()
		t.Error("a second session on one connection opened")
	} else if !strings.Contains(err.Error(), "one session per connection") {
		t.Errorf("second session: %v; want it refused saying why", err)
	}
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Error(err)
	}
	if !strings.Contains(logs.String(), "refused: a second session on one connection") {
		t.Errorf("the log lacks the refusal: %s", tail(logs.String(), 1000))
	}
}

// Keepalive-only connections end: one logged in with no session (ssh -N), one with a session
// channel that never asks for a shell (a bare channel), one whose explorer ended; each sends
// keepalives every 100 ms, which the idle timeout alone counts as traffic.
func TestDoorBareConnectionsEnd(t *testing.T) {
	var logs syncBuf
	_, addr := start(t, func(c *Config) {
		c.Log = &logs
		c.LoginGraceTime = 500 * time.Millisecond
		c.IdleTimeout = time.Second
	}, nil)
	n, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	bare, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	s, err := bare.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	tm := open(t, addr, nil, "")
	tm.see(0, "Pipeline")
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*gossh.Client{"ssh -N": n, "a bare channel": bare, "a session over": tm.c} {
		go keepalive(c)
		if !ended(c, 3*wait) {
			t.Errorf("%s with keepalives still open after %s", name, 3*wait)
		}
	}
	if l := logs.String(); !strings.Contains(l, `closed: login grace time over limit="500ms (--login-grace-time)" state="logged in but no explorer`) {
		t.Errorf("the log lacks the grace time's close: %s", tail(l, 2000))
	}
}

// Every connection's goroutines end with it, while the attacker still holds its side: bare and
// keepalive connections, silent TCP connections, an env flood, a refused second session.
func TestDoorGoroutinesBackToBaseline(t *testing.T) {
	_, addr := start(t, func(c *Config) { c.LoginGraceTime = 500 * time.Millisecond }, nil)
	warm := open(t, addr, nil, "")
	warm.see(0, "Pipeline")
	warm.send("q")
	if err := warm.exit(); err != nil {
		t.Fatal(err)
	}
	warm.c.Close()
	// settle waits (at most 3*wait) for the goroutines to be at most limit, or with limit 0
	// for their number to hold still for 300 ms; it returns their number.
	settle := func(limit int) int {
		n, still := runtime.NumGoroutine(), 0
		for deadline := time.Now().Add(3 * wait); time.Now().Before(deadline); {
			if limit > 0 && n <= limit || limit == 0 && still >= 6 {
				break
			}
			time.Sleep(50 * time.Millisecond)
			m := runtime.NumGoroutine()
			if m == n {
				still++
			} else {
				still = 0
			}
			n = m
		}
		return n
	}
	before := settle(0)

	for range 3 {
		c, err := dial(t, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go keepalive(c)
	}
	rawConns(t, addr, 1, 5)
	flood, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer flood.Close()
	s, err := flood.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		_ = s.Setenv(fmt.Sprintf("X%d", i), "x")
	}
	tm := open(t, addr, nil, "")
	tm.see(0, "Pipeline")
	if s2, err := tm.c.NewSession(); err == nil {
		s2.Close()
	}
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Fatal(err)
	}
	go keepalive(tm.c)

	if n := settle(before + 2); n > before+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after the connections' grace time:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// Log lines carry what a client chose quoted: a newline in a user name, a TERM or a password
// user cannot begin a line of its own (the issue forged a "teacher connect" line).
func TestDoorLogEscaped(t *testing.T) {
	var logs syncBuf
	_, addr := start(t, func(c *Config) { c.Log = &logs }, nil)
	const forged = "serve: 2001/01/01 00:00:00 127.0.0.1:1 teacher connect"
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "eve\n" + forged,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait})
	if err != nil {
		t.Fatal(err)
	}
	tm := openOn(t, c, nil, "")
	tm.see(0, "Pipeline")
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Fatal(err)
	}
	_, paddr := start(t, func(c *Config) { c.Log = &logs; c.Password = "right" }, nil)
	if c, err := gossh.Dial("tcp", paddr, &gossh.ClientConfig{User: "mallory\r\n" + forged, Auth: []gossh.AuthMethod{gossh.Password("no")},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait}); err == nil {
		c.Close()
		t.Fatal("a wrong password got in")
	}
	l := logs.String()
	for _, line := range strings.Split(strings.TrimSuffix(l, "\n"), "\n") {
		if !strings.HasPrefix(line, "serve: ") || strings.HasPrefix(line, forged) {
			t.Errorf("a log line a client wrote: %q", line)
		}
	}
	for _, want := range []string{`user="eve\nserve: 2001/01/01`, `auth failed method="password" user="mallory\r\nserve: 2001`} {
		if !strings.Contains(l, want) {
			t.Errorf("the log lacks %q:\n%s", want, l)
		}
	}
}

// The log helper quotes what could break a line.
func TestFormatEvent(t *testing.T) {
	a := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 22}
	for _, tc := range []struct {
		kv   []any
		want string
	}{
		{[]any{"user", "bob"}, `10.0.0.1:22 x user="bob"`},
		{[]any{"user", "a\nb", "n", 3}, `10.0.0.1:22 x user="a\nb" n=3`},
		{[]any{"cmd", []string{"ls", "-l"}, "err", errors.New("no\rway")}, `10.0.0.1:22 x cmd=["ls" "-l"] err="no\rway"`},
		{[]any{"after", time.Second, "v", fmt.Stringer(addrString("a b\n"))}, `10.0.0.1:22 x after=1s v="a b\n"`},
	} {
		if got := formatEvent(a, "x", tc.kv...); got != tc.want {
			t.Errorf("formatEvent(%q) = %q; want %q", tc.kv, got, tc.want)
		}
	}
}

type addrString string

func (a addrString) String() string { return string(a) }

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// fdChildEnv makes TestDoorFDExhaustion's process the server's: it serves with a descriptor
// limit of fdChildLimit and prints its address.
const (
	fdChildEnv   = "SPLITSCOPE_DOOR_FD_CHILD"
	fdChildLimit = 64
)

// The process out of file descriptors: a flood of silent connections from four addresses
// holds every descriptor a server limited to 64 has, and a student from a fifth still gets in
// (the accept loop sheds connections not yet in a session; the student waited 16 s).
// The server runs in a child process, this test binary again, so that its limit is its own.
func TestDoorFDExhaustion(t *testing.T) {
	if os.Getenv(fdChildEnv) != "" {
		fdChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDoorFDExhaustion$", "-test.count=1")
	cmd.Env = append(os.Environ(), fdChildEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuf
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(wait):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Log("the server's log:\n" + tail(stderr.String(), 4000))
		}
	}()
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
				addrc <- a
			}
		}
		close(addrc)
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(3 * wait):
	}
	if addr == "" {
		t.Fatal("the server process gave no address")
	}
	for b := byte(10); b < 14; b++ {
		rawConns(t, addr, b, 30)
	}
	c, err := from(t, addr, 2, "student")
	if err != nil {
		t.Fatalf("a student with the server out of descriptors: %v", err)
	}
	tm := openOn(t, c, nil, "")
	tm.see(0, "Pipeline")
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Error(err)
	}
	if l := stderr.String(); !strings.Contains(l, `dropped: not yet in a session why="the process is out of file descriptors"`) {
		t.Error("the server never ran out of descriptors: the test tested nothing")
	}
}

// fdChild serves, limited to fdChildLimit descriptors, until its input ends.
func fdChild(t *testing.T) {
	_, addr := start(t, func(c *Config) { c.Log = os.Stderr }, nil)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur = fdChildLimit
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ADDR %s\n", addr)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// A host key its group or others can read is refused, naming the file and its mode, as OpenSSH
// refuses one; a new one is made 0600 in a 0700 directory.
func TestHostKeyMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "splitscope")
	path := filepath.Join(dir, "key")
	if _, created, err := LoadHostKey(path, true); err != nil || !created {
		t.Fatalf("new key: %v, created %v", err, created)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want mode %04o", p, fi.Mode(), err, want)
		}
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, _, err := LoadHostKey(path, true)
		var me *ModeError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("%s: mode %04o lets", path, mode)) {
			t.Errorf("a %04o host key: %v; want it refused naming the file and the mode", mode, err)
		}
	}
}

// Every refusal of a session is logged with its reason: a command, no PTY, the class full,
// sessions from one address too fast.
func TestDoorRefusalsLogged(t *testing.T) {
	var logs syncBuf
	run := func(c *gossh.Client, cmd string, pty bool) {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if pty {
			if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = s.CombinedOutput(cmd)
	}
	_, addr := start(t, func(c *Config) { c.Log = &logs }, nil)
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run(c, "cat /etc/passwd\nserve: forged", false)
	run(c, "", false)
	for range connBurst {
		run(c, "", false)
	}
	// A class of one, full.
	_, addr1 := start(t, func(c *Config) { c.Log = &logs; c.MaxSessions = 1 }, nil)
	tm := open(t, addr1, nil, "")
	tm.see(0, "Pipeline")
	c1, err := dial(t, addr1)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	run(c1, "", true)
	l := logs.String()
	for _, want := range []string{`refused: a command command="cat /etc/passwd\nserve: forged"`, "refused: no PTY",
		`refused: the class is full limit="1 (--max-sessions)"`, "refused: sessions from this address too fast"} {
		if !strings.Contains(l, want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(l)
	}
	tm.send("q")
	if err := tm.exit(); err != nil {
		t.Error(err)
	}
}

// An idle close says so in the log.
func TestDoorIdleCloseLogged(t *testing.T) {
	var logs syncBuf
	_, addr := start(t, func(c *Config) { c.Log = &logs; c.IdleTimeout = 300 * time.Millisecond }, nil)
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !ended(c, wait) {
		t.Fatalf("an idle connection still open after %s", wait)
	}
	deadline := time.Now().Add(wait)
	for !strings.Contains(logs.String(), `closed: idle limit="300ms (--idle-timeout)"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the log lacks the idle close: %s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Close closes the connections that have not logged in too.
func TestDoorCloseClosesStarting(t *testing.T) {
	srv, addr := start(t, nil, nil)
	flood := rawConns(t, addr, 1, 5)
	deadline := time.Now().Add(wait)
	for srv.door.startingLen() < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_ = srv.Close()
	for i, c := range flood {
		if !closedWithin(c, wait) {
			t.Errorf("connection %d still open after Close", i)
		}
	}
}
