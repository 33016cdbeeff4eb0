package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{[]string{"serve", "--listen", "localhost"}, "--listen localhost: must be HOST:PORT"},
		{[]string{"serve", "--authorized-keys", filepath.Join(dir, "missing")}, "--authorized-keys"},
		{[]string{"serve", "--authorized-keys", notKeys}, "--authorized-keys"},
		{[]string{"serve", "--teacher-key", filepath.Join(dir, "missing")}, "--teacher-key: teacher keys " + filepath.Join(dir, "missing")},
		{[]string{"serve", "--teacher-key", notKeys}, "--teacher-key: teacher keys " + notKeys + " line 1"},
		{[]string{"serve", "--teacher-key", dir}, "must be a regular file"},
		{[]string{"serve", "--host-key", notPEM, "--listen", "127.0.0.1:0"}, "--host-key"},
		{[]string{"serve", "--json"}, "--json"},
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
