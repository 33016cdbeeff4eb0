package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/tui/serve"
)

// TestServeBadInput: serve refuses what it cannot use before it listens, naming the flag (exit
// 2): a session limit below one, a negative idle timeout, an address without a port, an
// authorized_keys or --teacher-key file that is missing, a directory or holds no key, a host key file that is not a key, and
// --json.
func TestServeBadInput(t *testing.T) {
	dir := t.TempDir()
	notKeys := filepath.Join(dir, "keys")
	if err := os.WriteFile(notKeys, []byte("this is not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 8<<10)), 0o600); err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(dir, "host_key")
	if err := os.WriteFile(notPEM, []byte("not a PEM block\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--max-sessions", "0"}, "--max-sessions 0: must be at least 1"},
		{[]string{"serve", "--idle-timeout", "-1s"}, "--idle-timeout -1s: must be 0"},
		{[]string{"serve", "--write-timeout", "0s"}, "--write-timeout 0s: must be more than 0"},
		{[]string{"serve", "--listen", "localhost"}, "--listen localhost: must be HOST:PORT"},
		{[]string{"serve", "--authorized-keys", filepath.Join(dir, "missing")}, "--authorized-keys"},
		{[]string{"serve", "--authorized-keys", notKeys}, "--authorized-keys"},
		{[]string{"serve", "--teacher-key", filepath.Join(dir, "missing")}, "--teacher-key: teacher keys " + filepath.Join(dir, "missing")},
		{[]string{"serve", "--teacher-key", notKeys}, "--teacher-key: teacher keys " + notKeys + " line 1"},
		{[]string{"serve", "--teacher-key", dir}, "must be a regular file"},
		{[]string{"serve", "--host-key", notPEM, "--listen", "127.0.0.1:0"}, "--host-key"},
		{[]string{"serve", "--json"}, "--json"},
		{[]string{"serve", "--password", "a", "--password-file", notKeys}, "--password and --password-file: give one of them"},
		{[]string{"serve", "--password-file", filepath.Join(dir, "missing")}, "--password-file " + filepath.Join(dir, "missing")},
		{[]string{"serve", "--password-file", dir}, "must be a regular file"},
		{[]string{"serve", "--password-file", empty}, "this one's is empty"},
		{[]string{"serve", "--password-file", big}, "is 8.0 KiB: larger than 4 KiB, the limit for a password file"},
	} {
		code, out, errs := runArgs(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Contains(out, "listening") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 naming %q", tc.args, code, out, errs, tc.want)
		}
	}
	if b, err := os.ReadFile(notPEM); err != nil || string(b) != "not a PEM block\n" {
		t.Errorf("the user's host key file changed: %q, %v", b, err)
	}
}

// The password comes from --password, else the first line of --password-file (without its line
// ending), else $SPLITSCOPE_PASSWORD.
func TestServePassword(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte("s3cret word\r\nnot this\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(passwordEnv, "from-env")
	for _, tc := range []struct {
		f    serveFlags
		want string
	}{
		{serveFlags{password: "flag"}, "flag"},
		{serveFlags{passwordFile: file}, "s3cret word"},
		{serveFlags{}, "from-env"},
	} {
		got, err := servePassword(&tc.f)
		if err != nil || got != tc.want {
			t.Errorf("%+v: %q, %v; want %q", tc.f, got, err, tc.want)
		}
	}
	t.Setenv(passwordEnv, "")
	if got, err := servePassword(&serveFlags{}); err != nil || got != "" {
		t.Errorf("nothing given: %q, %v; want open", got, err)
	}
}

// A malformed --listen is bad input (exit 2) said before anything listens: a port that is no
// number or out of range, a host that is no IP address or host name. One that is well formed
// but cannot be bound stays a failure (exit 1).
func TestServeBadListen(t *testing.T) {
	for _, tc := range []struct{ listen, want string }{
		{"nope:port", "--listen nope:port: the port port must be a number from 0 to 65535"},
		{":99999", "--listen :99999: the port 99999 must be a number from 0 to 65535"},
		{":-1", "--listen :-1: the port -1 must be"},
		{"[::1]:70000", "the port 70000 must be"},
		{":2222x", "the port 2222x must be"},
		{"bad host:2222", `the host "bad host" must be an IP address or a host name`},
		{"999.1.1.1:2222", "the host 999.1.1.1 is no IP address"},
		{"a..b:2222", `the host "a..b" must be`},
	} {
		code, out, errs := runArgs(t, "serve", "--password", "x", "--listen", tc.listen)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Contains(out, "listening") {
			t.Errorf("--listen %q: exit %d, stdout %q, stderr %q; want exit 2 naming %q", tc.listen, code, out, errs, tc.want)
		}
	}
	for _, ok := range []string{":2222", "0.0.0.0:0", "[::1]:2222", "localhost:65535", "node-1.example.org:22"} {
		if err := checkListen(ok); err != nil {
			t.Errorf("--listen %q refused: %v", ok, err)
		}
	}
}

// A host key (given, or the default one under the state directory) or a password file that
// its group or others can read is refused before anything listens, exit 2, naming the file and
// its mode. The port given is taken: a key that was accepted would fail there instead (exit 1).
func TestServeKeyFileModes(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	listen := taken.Addr().String()
	dir := t.TempDir()
	key := filepath.Join(dir, "host_key")
	if _, _, err := serve.LoadHostKey(key, true); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	t.Setenv("XDG_STATE_HOME", state)
	defKey, err := serve.DefaultHostKeyPath()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := serve.LoadHostKey(defKey, true); err != nil {
		t.Fatal(err)
	}
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		mode os.FileMode
		args []string
	}{
		{key, 0o644, []string{"--host-key", key}},
		{defKey, 0o640, nil},
		{pw, 0o604, []string{"--host-key", key, "--password-file", pw}},
	} {
		for _, f := range []string{key, defKey, pw} {
			if err := os.Chmod(f, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(tc.file, tc.mode); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runArgs(t, append([]string{"serve", "--listen", listen}, tc.args...)...)
		want := fmt.Sprintf("%s: mode %04o lets its group or others read it", tc.file, tc.mode)
		if code != 2 || !strings.Contains(errs, want) || strings.Contains(out, "listening") {
			t.Errorf("%s at %04o: exit %d, stderr %q; want exit 2 saying %q", tc.file, tc.mode, code, errs, want)
		}
	}
	if fi, err := os.Stat(filepath.Dir(defKey)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the state directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
}
