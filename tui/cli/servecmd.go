package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/spf13/cobra"

	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui"
	"github.com/splitscope/splitscope/tui/serve"
)

// serveFlags are splitscope serve's own flags.
type serveFlags struct {
	listen, hostKey, password, passwordFile, authorizedKeys, teacherKey string
	maxSessions                                                         int
	idleTimeout                                                         time.Duration
	writeTimeout                                                        time.Duration
	shareBox                                                            bool
	// The door's limits (tui/serve/door.go).
	loginGraceTime                                time.Duration
	maxStartups, maxStartupsPerAddr, maxAuthTries int
}

func newServeCmd(stdout io.Writer, sf *scenarioFlags) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the explorer to every SSH client (a classroom: ssh -p 2222 HOST)",
		Long: `serve listens for SSH connections and gives every client its own explorer, at its own
terminal size, colours and language: students type ssh -p 2222 HOST (or ssh -p 2222 HOST -t fr
for the French texts; else the client's LANG decides). The scenario flags set every session's
starting scenario.

Without a password (--password, --password-file FILE, or $SPLITSCOPE_PASSWORD) or
--authorized-keys anyone who reaches the port gets in (a classroom on a trusted network); serve
says so when it starts. --password shows in the process list to other users of the machine;
the file and the variable do not.

Served sessions run the explorer only: no shell, no command, no port or agent forwarding, no
SFTP. s and x show the scenario file and the report on screen instead of writing on this
machine's disk; the Box tab shows this machine's GPUs only with --share-box (read-only).

--teacher-key FILE (an authorized_keys file) makes the session that logs in with one of its
keys the teacher's: its tour steps (g, ←/→, esc) and scenario changes reach every student, who
follows from the start (mid-lesson too). A student who changes a parameter or the tour step
stops following, and their footer says where the teacher is; F follows again. The teacher's
footer counts who follows and who is connected. The teacher's key gets in whatever else is set.

--lesson DIR makes every session's tour the teacher's own lesson: the folder's scenario
files, one a step (see README, "Your own lesson").

The door has OpenSSH's limits: a connection with no explorer running --login-grace-time after
it connected is closed (not logged in, ssh -N, a bare channel); at most --max-startups such
connections at once (--max-startups-per-address from one address); --max-auth-tries attempts a
connection; past 10 wrong passwords an address gets one guess a second; env limited to LANG,
LC_* and the terminal's colour variables; one session per connection. Failed logins and every
refusal are logged on stderr with the client's address and reason.

The host key is --host-key FILE, or one generated once under the state directory
($XDG_STATE_HOME or ~/.local/state)/splitscope (mode 0700), the key mode 0600. A host key or
--password-file that its group or others can read is refused (exit 2), as OpenSSH refuses one.`,
		Example: `  splitscope serve
  splitscope serve --listen 0.0.0.0:2222 --password lesson --model llama-2-70b --gpu l40s --gpus 8
  splitscope serve --authorized-keys ~/class_keys --scenario tour/pcie
  splitscope serve --password-file ~/class_password --teacher-key ~/.ssh/id_ed25519.pub
  splitscope serve --teacher-key ~/.ssh/id_ed25519.pub --lesson docs/lesson-pcie
  SPLITSCOPE_PASSWORD=lesson splitscope serve`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), stdout, cmd.ErrOrStderr(), sf, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", serve.DefaultListen, "address to listen on, HOST:PORT")
	fl.StringVar(&f.hostKey, "host-key", "", "host key file (PEM); default: generated once under the state directory")
	fl.IntVar(&f.maxSessions, "max-sessions", serve.DefaultMaxSessions, "most concurrent sessions; one more is refused politely")
	fl.DurationVar(&f.idleTimeout, "idle-timeout", serve.DefaultIdleTimeout, "close a connection idle this long (0: never)")
	fl.DurationVar(&f.writeTimeout, "write-timeout", serve.DefaultWriteTimeout, "close a session that cannot be written to this long (a client that stopped reading)")
	fl.StringVar(&f.password, "password", "", "password every client must give (default: none, open; other users of this machine can read it in the process list: --password-file or $"+passwordEnv+" cannot be)")
	fl.StringVar(&f.passwordFile, "password-file", "", "file whose first line is the password (not in the process list)")
	fl.StringVar(&f.authorizedKeys, "authorized-keys", "", "authorized_keys file: only these public keys get in")
	fl.StringVar(&f.teacherKey, "teacher-key", "", "authorized_keys file of the teacher: a session logging in with one leads the class")
	fl.DurationVar(&f.loginGraceTime, "login-grace-time", serve.DefaultLoginGraceTime, "close a connection with no explorer running this long after it connected: not logged in, ssh -N, a bare channel (0: never)")
	fl.IntVar(&f.maxStartups, "max-startups", serve.DefaultMaxStartups, "most connections not yet in an explorer, all addresses together; one more sheds the oldest of the busiest address")
	fl.IntVar(&f.maxStartupsPerAddr, "max-startups-per-address", serve.DefaultMaxStartupsPerAddr, "most connections not yet in an explorer from one address; one more is refused")
	fl.IntVar(&f.maxAuthTries, "max-auth-tries", serve.DefaultMaxAuthTries, "authentication attempts a connection has")
	fl.BoolVar(&f.shareBox, "share-box", false, "show this machine's GPUs (probed once, read-only) on every session's Box tab")
	fl.SortFlags = false
	return cmd
}

// passwordEnv names the variable serve takes the password from when no flag gives one.
const passwordEnv = "SPLITSCOPE_PASSWORD"

// maxPasswordBytes bounds --password-file: a password is a line, not a file.
const maxPasswordBytes = 4 << 10

// servePassword is the password clients must give: --password, the first line of
// --password-file (one of the two), else $SPLITSCOPE_PASSWORD; "" for none.
func servePassword(f *serveFlags) (string, error) {
	switch {
	case f.password != "" && f.passwordFile != "":
		return "", usagef("--password and --password-file: give one of them")
	case f.password != "":
		return f.password, nil
	case f.passwordFile != "":
		data, err := readBoundedFile("password-file", f.passwordFile, maxPasswordBytes, "a password file")
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(f.passwordFile); err == nil {
			if err := serve.CheckPrivate(f.passwordFile, fi); err != nil {
				return "", &model.FieldError{Field: "password-file", Value: f.passwordFile, Allowed: err.Error()}
			}
		}
		line, _, _ := strings.Cut(string(data), "\n")
		if line = strings.TrimRight(line, "\r"); line == "" {
			return "", &model.FieldError{Field: "password-file", Value: f.passwordFile,
				Allowed: "a file whose first line is the password; this one's is empty"}
		}
		return line, nil
	}
	return os.Getenv(passwordEnv), nil
}

func runServe(ctx context.Context, stdout, errw io.Writer, sf *scenarioFlags, f *serveFlags) error {
	if f.maxSessions < 1 {
		return usagef("--max-sessions %d: must be at least 1", f.maxSessions)
	}
	if f.idleTimeout < 0 {
		return usagef("--idle-timeout %s: must be 0 (never) or more", f.idleTimeout)
	}
	if f.writeTimeout <= 0 {
		return usagef("--write-timeout %s: must be more than 0", f.writeTimeout)
	}
	if f.loginGraceTime < 0 {
		return usagef("--login-grace-time %s: must be 0 (never) or more", f.loginGraceTime)
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"max-startups", f.maxStartups}, {"max-startups-per-address", f.maxStartupsPerAddr}, {"max-auth-tries", f.maxAuthTries}} {
		if n.v < 1 {
			return usagef("--%s %d: must be at least 1", n.flag, n.v)
		}
	}
	if err := checkListen(f.listen); err != nil {
		return err
	}
	password, err := servePassword(f)
	if err != nil {
		return err
	}
	p, s, err := flagScenario(sf)
	if err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return err
	}
	writeWarnings(errw, sf)
	cfg := serve.Config{Scenario: s, Presets: p, MaxSessions: f.maxSessions, IdleTimeout: f.idleTimeout, WriteTimeout: f.writeTimeout,
		Password: password, Log: errw, LoginGraceTime: f.loginGraceTime, MaxStartups: f.maxStartups,
		MaxStartupsPerAddr: f.maxStartupsPerAddr, MaxAuthTries: f.maxAuthTries}
	if f.loginGraceTime == 0 {
		cfg.LoginGraceTime = -1 // never
	}
	if sf.lang != "" {
		cfg.Lang = sf.language()
	}
	if sf.calibration != "" {
		if sf.calib != nil {
			cfg.Options = append(cfg.Options, tui.WithCalibrationFile(filepath.Base(sf.calibration), *sf.calib))
		} else {
			cfg.Options = append(cfg.Options, tui.WithCalibration(filepath.Base(sf.calibration)))
		}
	}
	if sf.lesson != "" {
		steps, err := loadLesson(sf.lesson, p)
		if err != nil {
			return err
		}
		cfg.Options = append(cfg.Options, tui.WithLesson(steps))
	}
	if f.authorizedKeys != "" {
		keys, err := serve.LoadAuthorizedKeys(f.authorizedKeys)
		if err != nil {
			return &inputError{err: fmt.Errorf("--authorized-keys: %w", err)}
		}
		cfg.AuthorizedKeys = keys
	}
	if f.teacherKey != "" {
		keys, err := serve.LoadTeacherKeys(f.teacherKey)
		if err != nil {
			return &inputError{err: fmt.Errorf("--teacher-key: %w", err)}
		}
		cfg.TeacherKeys = keys
	}
	keyPath, create := f.hostKey, false
	if keyPath == "" {
		if keyPath, err = serve.DefaultHostKeyPath(); err != nil {
			return err
		}
		create = true
	}
	pem, created, err := serve.LoadHostKey(keyPath, create)
	if err != nil {
		if f.hostKey == "" {
			var me *serve.ModeError
			if errors.As(err, &me) {
				return &inputError{err: err}
			}
		} else {
			return &inputError{err: fmt.Errorf("--host-key: %w", err)}
		}
		return err
	}
	cfg.HostKey = pem
	if f.shareBox {
		b, err := gpu.Probe()
		if err != nil {
			fmt.Fprintf(errw, "splitscope: warning: --share-box: %v; the Box tab shares nothing\n", err)
		} else {
			cfg.Box = &b
		}
	}
	srv, err := serve.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", f.listen, err)
	}
	if created {
		fmt.Fprintf(errw, "splitscope: new host key %s\n", keyPath)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	fmt.Fprintf(stdout, "splitscope serve: listening on %s (host key %s); students type: ssh -p %d HOST (-t fr for French)\n",
		ln.Addr(), keyPath, port)
	var auth []string
	if password != "" {
		auth = append(auth, "the password")
	}
	if f.authorizedKeys != "" {
		auth = append(auth, fmt.Sprintf("a key of %s (%d)", f.authorizedKeys, len(cfg.AuthorizedKeys)))
	}
	if f.teacherKey != "" {
		fmt.Fprintf(stdout, "splitscope serve: the teacher leads: a session with a key of %s (%d); students follow its tour, F follows again\n",
			f.teacherKey, len(cfg.TeacherKeys))
		if !srv.Open() {
			auth = append(auth, "a teacher's key")
		}
	}
	if srv.Open() {
		fmt.Fprintln(stdout, "splitscope serve: WARNING: OPEN: anyone who can reach this port gets in, no password, no key (--password-file or --authorized-keys close it)")
	} else {
		fmt.Fprintf(stdout, "splitscope serve: clients need %s\n", strings.Join(auth, " or "))
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		if errors.Is(err, ssh.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "splitscope serve: stopping: the sessions end now")
	_ = srv.Close()
	<-done
	return nil
}

// checkListen refuses a --listen address that is not well formed (exit 2) before anything
// listens: HOST:PORT or :PORT, the port a number from 0 to 65535 (0: any free port), the host an
// IP address or a host name (letters, digits, hyphens and dots). A well-formed address that
// cannot be bound (in use, not this machine's, a name that does not resolve) fails when
// listening, exit 1.
func checkListen(addr string) error {
	bad := func(why string) error {
		return &model.FieldError{Field: "listen", Value: addr, Allowed: why}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		why := err.Error()
		var ae *net.AddrError
		if errors.As(err, &ae) {
			why = ae.Err
		}
		return bad("must be HOST:PORT or :PORT (" + why + ")")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 || strings.TrimLeft(port, "0123456789") != "" {
		return bad(fmt.Sprintf("the port %s must be a number from 0 to 65535 (0: any free port)", model.Shorten(port)))
	}
	if host == "" || net.ParseIP(host) != nil {
		return nil
	}
	if strings.Trim(host, "0123456789.") == "" {
		return bad(fmt.Sprintf("the host %s is no IP address", model.Shorten(host)))
	}
	if !hostName(host) {
		return bad(fmt.Sprintf("the host %q must be an IP address or a host name (letters, digits, hyphens, dots)", model.Shorten(host)))
	}
	return nil
}

// hostName says s is a DNS host name: labels of 1 to 63 letters, digits and hyphens, not
// starting or ending with a hyphen, 253 characters in all at most.
func hostName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
