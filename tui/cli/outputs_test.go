package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/gpu"
	"github.com/splitscope/splitscope/model"
)

const precious = "precious notes, not to be lost\n"

// requireContents fails unless the file at path holds want.
func requireContents(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != want {
		t.Errorf("%s holds %.80q, want %.80q", path, data, want)
	}
}

func TestExportKeepsExistingFiles(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "precious.md")
	if err := os.WriteFile(md, []byte(precious), 0o600); err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(dir, "new.svg")

	// Without --force: exit 2, the file untouched, and the other output not written either.
	first, _ := firstLine(t, "export", "--svg", svg, "--markdown", md)
	if want := "splitscope: --markdown " + md + ": the file exists: pass --force to replace it"; first != want {
		t.Errorf("got  %s\nwant %s", first, want)
	}
	requireContents(t, md, precious)
	if _, err := os.Stat(svg); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--svg written although --markdown was refused: %v", err)
	}

	// With --force: replaced whole, its permissions kept, no temporary file left behind.
	if code, _, errs := runArgs(t, "export", "--svg", svg, "--markdown", md, "--force"); code != 0 {
		t.Fatalf("--force: exit %d\n%s", code, errs)
	}
	data, err := os.ReadFile(md)
	if err != nil || !strings.HasPrefix(string(data), "# splitscope report") {
		t.Errorf("--force did not replace the file: %.80q, %v", data, err)
	}
	if fi, err := os.Stat(md); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after --force: %v, %v", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left in the directory: %v", entries)
	}
}

func TestExportForceThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.md"), filepath.Join(dir, "link.md")
	if err := os.WriteFile(target, []byte(precious), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.md", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	first, _ := firstLine(t, "export", "--markdown", link)
	if want := "splitscope: --markdown " + link + ": the file exists: pass --force to replace it"; first != want {
		t.Errorf("got  %s\nwant %s", first, want)
	}
	requireContents(t, target, precious)
	if code, _, errs := runArgs(t, "export", "--markdown", link, "--force"); code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file: %v %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(target); !strings.HasPrefix(string(data), "# splitscope report") {
		t.Errorf("the link's target was not written: %.80q", data)
	}

	// A link to nothing is refused: writing through it would create a file elsewhere.
	dangling := filepath.Join(dir, "dangling.md")
	if err := os.Symlink("missing/none.md", dangling); err != nil {
		t.Fatal(err)
	}
	first, _ = firstLine(t, "export", "--markdown", dangling, "--force")
	if want := "splitscope: --markdown " + dangling + ": is a symbolic link to a missing file: name the file itself"; first != want {
		t.Errorf("got  %s\nwant %s", first, want)
	}
}

func TestExportOneFileTwice(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x")
	if err := os.WriteFile(filepath.Join(dir, "existing"), []byte(precious), 0o644); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "existing")
	if err := os.Symlink("existing", filepath.Join(dir, "alias")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Link(existing, filepath.Join(dir, "hard")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for _, tc := range []struct {
		svg, md string
		extra   []string
		want    string
	}{
		{x, x, nil, "--markdown " + x + ": the same file as --svg " + x + ": give each its own file"},
		{x, dir + "/sub/../x", nil, "--markdown " + dir + "/sub/../x: the same file as --svg " + x + ": give each its own file"},
		{x, dir + "/./x", nil, "--markdown " + dir + "/./x: the same file as --svg " + x + ": give each its own file"},
		{existing, filepath.Join(dir, "alias"), []string{"--force"}, "--markdown " + filepath.Join(dir, "alias") + ": the same file as --svg " + existing + ": give each its own file"},
		{existing, filepath.Join(dir, "hard"), []string{"--force"}, "--markdown " + filepath.Join(dir, "hard") + ": the same file as --svg " + existing + ": give each its own file"},
		{"-", "-", nil, "--markdown -: --svg writes to standard output already: give one of them a file"},
	} {
		args := append([]string{"export", "--svg", tc.svg, "--markdown", tc.md}, tc.extra...)
		first, _ := firstLine(t, args...)
		if want := "splitscope: " + tc.want; first != want {
			t.Errorf("%v:\n got %s\nwant %s", args, first, want)
		}
	}
	if _, err := os.Stat(x); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused export wrote %s", x)
	}
	requireContents(t, existing, precious)

	// One to standard output and one to a file is fine.
	md := filepath.Join(dir, "out.md")
	code, out, errs := runArgs(t, "export", "--svg", "-", "--markdown", md)
	if code != 0 || !strings.Contains(out, "<svg") {
		t.Errorf("--svg - --markdown FILE: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(md); err != nil {
		t.Error(err)
	}
}

func TestExportToDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, force := range []bool{false, true} {
		args := []string{"export", "--markdown", dir}
		if force {
			args = append(args, "--force")
		}
		first, _ := firstLine(t, args...)
		if want := "splitscope: --markdown " + dir + ": is a directory: name a file"; first != want {
			t.Errorf("%v:\n got %s\nwant %s", args, first, want)
		}
	}
}

// writeOutput creates new files exclusively: a file that appeared after the check is not
// clobbered (the race checkOutputs alone would lose).
func TestWriteOutputNeverClobbers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "race.md")
	o := output{"markdown", path}
	if err := checkOutputs(false, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(precious), 0o644); err != nil { // another program, meanwhile
		t.Fatal(err)
	}
	err := writeOutput(nil, o, []byte("new"), false)
	var fe *model.FieldError
	if !errors.As(err, &fe) || fe.Allowed != "the file exists: pass --force to replace it" {
		t.Errorf("err = %v", err)
	}
	requireContents(t, path, precious)
	if err := writeOutput(nil, o, []byte("new"), true); err != nil {
		t.Fatal(err)
	}
	requireContents(t, path, "new")
}

func TestProbeSaveKeepsExistingFiles(t *testing.T) {
	fakeProbe(t, parseFixtureBox(t), nil)
	path := filepath.Join(t.TempDir(), "node.json")
	if err := os.WriteFile(path, []byte(precious), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"probe", "--save", path}, {"probe", "--save", path, "--json"}} {
		first, _ := firstLine(t, args...)
		if want := "splitscope: --save " + path + ": the file exists: pass --force to replace it"; first != want {
			t.Errorf("%v:\n got %s\nwant %s", args, first, want)
		}
		requireContents(t, path, precious)
	}
	code, out, errs := runArgs(t, "probe", "--save", path, "--force")
	if code != 0 || !strings.Contains(out, "saved the box to "+path) {
		t.Fatalf("--force: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gpu.ParseBox(path, data); err != nil {
		t.Errorf("the saved box does not parse: %v", err)
	}

	first, _ := firstLine(t, "probe", "--save", "-")
	if want := "splitscope: --save -: must name a file: the report goes to standard output"; first != want {
		t.Errorf("got  %s\nwant %s", first, want)
	}
}
