package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// maxKeyFile bounds what is read of a host key or authorized_keys file: both are small, and a
// mistaken path (a log, /dev/zero) must not fill the memory.
const maxKeyFile = 1 << 20

// DefaultHostKeyPath is where the host key lives when --host-key is not given: the user's state
// directory ($XDG_STATE_HOME, else ~/.local/state), splitscope/ssh_host_ed25519_key.
func DefaultHostKeyPath() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory for the host key (give --host-key): %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "splitscope", "ssh_host_ed25519_key"), nil
}

// ModeError is a private file (a host key, a password file) that its group or others may
// read: refused, as OpenSSH refuses such a key.
type ModeError struct {
	Path string
	Mode fs.FileMode
}

func (e *ModeError) Error() string {
	return fmt.Sprintf("mode %04o lets its group or others read it; it must be its owner's alone, as OpenSSH requires (chmod 600 %s)",
		e.Mode.Perm(), e.Path)
}

// CheckPrivate refuses a file that its group or others can read (a *ModeError).
func CheckPrivate(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o077 != 0 {
		return &ModeError{Path: path, Mode: fi.Mode()}
	}
	return nil
}

// readBounded reads a regular file of at most maxKeyFile bytes; a private one only its owner
// may read.
func readBounded(path string, private bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: must be a regular file", path)
	} else if private {
		if err := CheckPrivate(path, fi); err != nil {
			return nil, err
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxKeyFile {
		return nil, fmt.Errorf("%s: larger than %d bytes, not a key file", path, maxKeyFile)
	}
	return b, nil
}

// LoadHostKey reads the host key at path (PEM, as ssh-keygen writes it). With create, a missing
// file is made: a new ed25519 key, mode 0600, in a directory of mode 0700, created exclusively
// so that no file the user has is ever overwritten. It reports whether it created the key. A
// key its group or others can read is refused (a *ModeError).
func LoadHostKey(path string, create bool) (pemKey []byte, created bool, err error) {
	b, err := readBounded(path, true)
	if errors.Is(err, os.ErrNotExist) && create {
		b, err = newHostKey(path)
		created = err == nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	if _, err := gossh.ParsePrivateKey(b); err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	return b, created, nil
}

func newHostKey(path string) ([]byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	blk, err := gossh.MarshalPrivateKey(priv, "splitscope serve host key")
	if err != nil {
		return nil, err
	}
	b := pem.EncodeToMemory(blk)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return nil, err
	}
	return b, nil
}

// LoadAuthorizedKeys reads an authorized_keys file: one public key a line, # comments and
// blank lines skipped. A line that does not parse is an error naming the file and the line; a
// file with no key is one too (it would let nobody in).
func LoadAuthorizedKeys(path string) ([]gossh.PublicKey, error) {
	return loadKeys("authorized keys", path)
}

// LoadTeacherKeys reads the teacher's keys (--teacher-key), an authorized_keys file too: a
// session that logs in with one leads the class.
func LoadTeacherKeys(path string) ([]gossh.PublicKey, error) {
	return loadKeys("teacher keys", path)
}

// loadKeys reads an authorized_keys file; what names the file in its errors.
func loadKeys(what, path string) ([]gossh.PublicKey, error) {
	b, err := readBounded(path, false)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	var keys []gossh.PublicKey
	for n, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("%s %s line %d: %w", what, path, n+1, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s %s: no key in the file", what, path)
	}
	return keys, nil
}
