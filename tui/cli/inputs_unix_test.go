//go:build unix

package cli

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
)

// TestInputFileNotRegular: a device or a FIFO with no writer is refused at once (reading
// /dev/zero grew without end; opening a FIFO blocked until a writer came).
func TestInputFileNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "scenario.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--scenario", "--box"} {
		for path, what := range map[string]string{
			"/dev/zero": "a character device",
			"/dev/null": "a character device",
			fifo:        "a FIFO (named pipe)",
		} {
			first, _ := firstLine(t, "report", flag, path)
			if want := fmt.Sprintf("splitscope: %s %s: must be a regular file, not %s", flag, path, what); first != want {
				t.Errorf("got  %s\nwant %s", first, want)
			}
		}
	}
}

// Writing to a device is not overwriting a file: export --svg /dev/null needs no --force.
func TestExportToDevice(t *testing.T) {
	if code, _, errs := runArgs(t, "export", "--svg", "/dev/null"); code != 0 {
		t.Errorf("export --svg /dev/null: exit %d\n%s", code, errs)
	}
}
