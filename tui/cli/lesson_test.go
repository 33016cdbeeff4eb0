package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
)

const lessonOne = `title: One
caption:
  en: "{{.GPUs}} GPUs."
  fr: "{{.GPUs}} GPU."
model: llama-2-7b
gpu: h100-sxm
gpus: 8
tp: 8
`

// lessonDir writes files (name → content) in a new folder.
func lessonDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// --lesson DIR reads the folder's *.yaml in name order (other files left alone) and refuses, naming
// the flag or the file, what is not a lesson: a missing folder, a file, no steps, too many, a
// file too large, a step without its caption, a caption with a fact that does not exist.
func TestLoadLesson(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	good := lessonDir(t, map[string]string{"02-b.yaml": strings.Replace(lessonOne, "title: One", "title: Two", 1),
		"01-a.yaml": lessonOne, "notes.txt": "not a step"})
	steps, err := loadLesson(good, p)
	if err != nil || len(steps) != 2 || steps[0].Title != "One" || steps[1].Title != "Two" {
		t.Fatalf("%d steps, %v", len(steps), err)
	}
	many := map[string]string{}
	for i := range assets.MaxLessonSteps + 1 {
		many[fmt.Sprintf("%02d.yaml", i)] = lessonOne
	}
	file := filepath.Join(good, "01-a.yaml")
	for _, tc := range []struct{ dir, want string }{
		{filepath.Join(good, "missing"), "lesson = " + filepath.Join(good, "missing") + ": cannot read the folder"},
		{file, "must be a folder of scenario files"},
		{lessonDir(t, map[string]string{"x.txt": "x"}), "no lesson steps"},
		{lessonDir(t, many), "holds 41 scenario files: a lesson has at most 40 steps"},
		{lessonDir(t, map[string]string{"big.yaml": lessonOne + "# " + strings.Repeat("x", 70<<10) + "\n"}), "larger than 64 KiB, the limit for a lesson step"},
		{lessonDir(t, map[string]string{"nocap.yaml": "title: t\nmodel: llama-2-7b\ngpu: h100-sxm\ngpus: 8\ntp: 8\n"}), "nocap.yaml: caption: a lesson step needs a caption"},
		{lessonDir(t, map[string]string{"fact.yaml": strings.Replace(lessonOne, "{{.GPUs}} GPU.", "{{.Nope}}", 1)}), "fact.yaml: caption.fr: "},
	} {
		_, err := loadLesson(tc.dir, p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.dir, err, tc.want)
		}
	}
	// Not on a terminal the explorer prints the report: the lesson is checked, and said unused.
	if code, out, errs := runArgs(t, "--lesson", good); code != 0 || !strings.Contains(errs, "the lesson runs in the explorer") || !strings.Contains(out, "step") {
		t.Errorf("--lesson to a pipe: exit %d, %q", code, errs)
	}
	if code, _, errs := runArgs(t, "--lesson", file); code != 2 || !strings.Contains(errs, "must be a folder") {
		t.Errorf("--lesson FILE to a pipe: exit %d, %q", code, errs)
	}
	// Only the explorer and serve take it; bad ones exit 2 before anything runs.
	if code, _, errs := runArgs(t, "report", "--lesson", good); code != 2 || !strings.Contains(errs, "report runs no tour") {
		t.Errorf("report --lesson: exit %d, %q", code, errs)
	}
	if code, out, errs := runArgs(t, "serve", "--lesson", file, "--listen", "127.0.0.1:0"); code != 2 || !strings.Contains(errs, "must be a folder") || strings.Contains(out, "listening") {
		t.Errorf("serve --lesson FILE: exit %d, %q %q", code, out, errs)
	}
}

// The example lesson (docs/lesson-pcie, in README) loads, and its story holds: the model's own
// answers are the choices its captions build on (two thirds of the step on PCIe; PP about four
// times faster than TP there).
func TestExampleLesson(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	steps, err := loadLesson(filepath.Join("..", "..", "docs", "lesson-pcie"), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatalf("%d steps", len(steps))
	}
	want := []int{-1, 1, 1} // the right choice of each step's question (-1: a number)
	for i, st := range steps {
		r, err := costmodel.Evaluate(st.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		q := st.Question
		var x float64
		switch q.Answer {
		case "tp_comm_share":
			x = 100 * r.Breakdown.TPComm / r.StepTime
		case "step_s":
			x = r.StepTime
		default:
			t.Fatalf("step %d asks for %s", i+1, q.Answer)
		}
		if len(q.Choices) == 0 {
			continue
		}
		if got := q.RightChoice(x); got != want[i] {
			t.Errorf("step %d: the model's %s %.3g is choice %d (%s), the caption builds on %d", i+1, q.Answer, x, got+1,
				q.Choices[got].In("en"), want[i]+1)
		}
	}
}
