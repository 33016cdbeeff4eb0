package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// firstLine runs args, requires exit 2 and nothing on stdout, and returns stderr's first line
// and the whole of stderr.
func firstLine(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, out, errs := runArgs(t, args...)
	if code != 2 {
		t.Errorf("%v: exit %d, want 2; stderr:\n%s", args, code, errs)
	}
	if out != "" {
		t.Errorf("%v: stdout not empty on bad input:\n%.300s", args, out)
	}
	first, _, _ := strings.Cut(errs, "\n")
	return first, errs
}

// compactBox is a box file of n GPUs named name with mem bytes each, on one line, no matrices:
// 100k GPUs named "x" of 1 byte fit in 3.6 MB, under the 4 MiB limit.
func compactBox(n int, name string, mem int64) string {
	var b strings.Builder
	b.WriteString(`{"gpus":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":%q,"memory_total_bytes":%d}`, name, mem)
	}
	b.WriteString("]}\n")
	return b.String()
}

// TestErrorsNameWhatWasWritten: each bad input gives exit 2 and a first line of stderr that
// names what the user wrote: the flag typed, the scenario file's line and key, the box file and
// field, or, when nothing given is wrong, how a derived value was derived.
func TestErrorsNameWhatWasWritten(t *testing.T) {
	const head = "model: llama-3-70b\ngpu: h100-sxm\n"
	tp3 := writeFile(t, "tp3.yaml", head+"tp: 3\n")
	reserve := writeFile(t, "reserve.yaml", head+"reserve_gib: 1e300\n")
	nan := writeFile(t, "nan.yaml", head+"compute_eff: .nan\n")
	gpus := writeFile(t, "gpus.yaml", head+"\ngpus: 1000000000\n")
	huge := writeFile(t, "huge.json", compactBox(100_000, "x", 1))
	for _, tc := range []struct {
		args []string
		want string   // the first line of stderr, without "splitscope: "
		not  []string // texts stderr must not hold: fields the user did not write
	}{
		{[]string{"report", "--gpus", "1000000000"}, "--gpus 1000000000: must be between 1 and 1048576", []string{"batch", "dp"}},
		{[]string{"report", "--gpus", "99999999999999999999"}, "--gpus 99999999999999999999: must be a whole number between 1 and 1048576", []string{"strconv"}},
		{[]string{"report", "--gpus", "eight"}, "--gpus eight: must be a whole number between 1 and 1048576", nil},
		{[]string{"report", "--tp", "2.5"}, "--tp 2.5: must be a whole number between 1 and 1048576", nil},
		{[]string{"report", "--zero", "-99999999999999999999"}, "--zero -99999999999999999999: must be a whole number between 0 and 3", nil},
		{[]string{"search", "--top", "1e3"}, "--top 1e3: must be a whole number of 0 or more", nil},
		{[]string{"report", "--json=maybe"}, "--json maybe: must be true or false", nil},
		{[]string{"report", "--reserve-gib", "1e300"}, "--reserve-gib 1e+300: must be a number of GiB from 0 to 1048576 (0: the default, 1 GiB)", []string{"reserve +Inf"}},
		{[]string{"report", "--reserve-gib", "NaN"}, "--reserve-gib NaN: must be a number of GiB from 0 to 1048576 (0: the default, 1 GiB)", nil},
		{[]string{"report", "--reserve-gib", "-1"}, "--reserve-gib -1: must be a number of GiB from 0 to 1048576 (0: the default, 1 GiB)", nil},
		{[]string{"report", "--compute-eff", "1e309"}, "--compute-eff 1e309: must be a fraction in (0, 1], or 0 for the GPU preset's", []string{"strconv"}},
		{[]string{"report", "--compute-eff", "NaN"}, "--compute-eff NaN: must be a fraction in (0, 1], or 0 for the GPU preset's", nil},
		{[]string{"report", "--memory-eff", "Inf"}, "--memory-eff +Inf: must be a fraction in (0, 1], or 0 for the GPU preset's", nil},
		{[]string{"report", "--intra-eff", "-Inf"}, "--intra-eff -Inf: must be a fraction in (0, 1], or 0 for the link preset's", nil},
		{[]string{"report", "--inter-eff", "1.5"}, "--inter-eff 1.5: must be a fraction in (0, 1], or 0 for the link preset's", nil},
		{[]string{"search", "--tp", "3", "--gpus", "0"}, "--gpus 0: must be between 1 and 1048576", nil}, // search keeps a typed --tp: it is the user's
		// From a scenario file: the file, the line and the key, never a flag.
		{[]string{"report", "--scenario", tp3}, tp3 + " line 3: tp = 3: must divide heads (64): one of 1, 2, 4, 8, 16, 32, 64", []string{"--tp"}},
		{[]string{"report", "--scenario", reserve}, reserve + " line 3: reserve_gib = 1e+300: must be a number of GiB from 0 to 1048576 (0: the default, 1 GiB)", []string{"--reserve"}},
		{[]string{"report", "--scenario", nan}, nan + " line 3: compute_eff = NaN: must be a fraction in (0, 1], or 0 for the GPU preset's", []string{"--compute"}},
		{[]string{"report", "--scenario", gpus}, gpus + " line 4: gpus = 1000000000: must be between 1 and 1048576", []string{"--gpus", "batch", "dp"}},
		// A flag typed over the file's key is the flag.
		{[]string{"report", "--scenario", tp3, "--tp", "5"}, "--tp 5: must divide heads (64): one of 1, 2, 4, 8, 16, 32, 64", []string{"line 3"}},
		// Derived values, said as derived when nothing given is wrong.
		{[]string{"report", "--mode", "infer", "--prompt", "4194304"}, "gen = 256 (default): prompt + gen must be at most 4194304 tokens", nil},
		// From a box file: the file and the field.
		{[]string{"report", "--box", huge}, huge + ":1: gpus: lists 100000 GPUs: a box is one node, at most 1024 GPUs (one file per node: probe --save on each)", []string{"--gpus-per-node", "--nics"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			first, errs := firstLine(t, tc.args...)
			if want := "splitscope: " + tc.want; first != want {
				t.Errorf("first line\n got %s\nwant %s", first, want)
			}
			for _, n := range tc.not {
				if strings.Contains(errs, n) {
					t.Errorf("stderr names %q, which was not written:\n%s", n, errs)
				}
			}
		})
	}
}

// TestInputFileLimits: a scenario or box file larger than 4 MiB, or a directory, is refused
// with exit 2 naming the flag and the file; the file just under the limit is read.
func TestInputFileLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, bytes.Repeat([]byte("# padding\n"), (5<<20)/10), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--scenario", "--box"} {
		for path, why := range map[string]string{
			big: "is 5.0 MiB: larger than 4 MiB, the limit for a scenario or box file",
			dir: "must be a regular file, not a directory",
		} {
			first, _ := firstLine(t, "report", flag, path)
			if want := fmt.Sprintf("splitscope: %s %s: %s", flag, path, why); first != want {
				t.Errorf("got  %s\nwant %s", first, want)
			}
		}
	}
	// Just under the limit: a comment-padded scenario is read whole.
	pad := bytes.Repeat([]byte("#\n"), (maxInputBytes-64)/2)
	ok := writeFile(t, "ok.yaml", string(pad)+"model: llama-2-7b\ngpu: h100-sxm\n")
	if code, _, errs := runArgs(t, "report", "--scenario", ok); code != 0 {
		t.Errorf("a scenario of %d bytes: exit %d\n%s", len(pad), code, errs)
	}
	if _, err := readInputFile("box", big); err == nil {
		t.Error("readInputFile read a 5 MiB file")
	}
}

// A value of 10,000 characters is echoed cut, with its length, wherever the command line
// shows a value back: a flag of each kind, a path, a command, a flag name, an argument.
func TestLongValuesCut(t *testing.T) {
	long := strings.Repeat("x", 10000)
	spaced := strings.Repeat("a ", 5000)
	for _, args := range [][]string{
		{"report", "--model", long}, {"report", "--model", spaced}, {"report", "--gpu", long},
		{"report", "--tp", long}, {"report", "--schedule", long}, {"report", "--precision", long},
		{"comm", "--op", long}, {"comm", "--min-bytes", long}, {"serve", "--listen", long},
		{"report", "--box", long}, {"report", "--scenario", long}, {"export", "--svg", "/tmp/" + long},
		{"report", "--lang", long}, {long}, {"report", "--nope" + long}, {"report", "extra" + long},
		{spaced},
	} {
		code, _, errs := runArgs(t, args...)
		label := strings.Join(args, " ")[:min(40, len(strings.Join(args, " ")))]
		if code != 2 {
			t.Errorf("%s…: exit %d", label, code)
		}
		if !strings.Contains(errs, "characters)") {
			t.Errorf("%s…: no length said: %.300s", label, errs)
		}
		for _, l := range strings.Split(errs, "\n") {
			if n := len([]rune(l)); n > 1100 {
				t.Errorf("%s…: a line of %d characters: %.200s", label, n, l)
			}
		}
	}
}
