package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/costmodel"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/learn"
)

// maxLessonFileBytes bounds each file of a --lesson folder: a step is a scenario and a few
// paragraphs.
const maxLessonFileBytes = 64 << 10

// loadLesson reads --lesson DIR: its *.yaml files in name order (at most assets.MaxLessonSteps,
// each at most maxLessonFileBytes, regular files only), each a lesson step (assets.ParseLesson),
// and checks every caption by running it over its own step's evaluation in every language it
// is written in, so that a mistyped {{.Fact}} is refused here, naming the file, rather than
// shown in the middle of a class.
func loadLesson(dir string, p *assets.Presets) ([]assets.ScenarioFile, error) {
	refuse := func(why string) error { return &model.FieldError{Field: "lesson", Value: dir, Allowed: why} }
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, refuse("cannot read the folder: " + pathErr(err))
	}
	if !fi.IsDir() {
		return nil, refuse("must be a folder of scenario files (*.yaml), one a step")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, refuse("cannot read the folder: " + pathErr(err))
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	if len(names) > assets.MaxLessonSteps {
		return nil, refuse(fmt.Sprintf("holds %d scenario files: a lesson has at most %d steps", len(names), assets.MaxLessonSteps))
	}
	var files []assets.LessonFile
	for _, n := range names {
		data, err := readBoundedFile("lesson", filepath.Join(dir, n), maxLessonFileBytes, "a lesson step")
		if err != nil {
			return nil, err
		}
		files = append(files, assets.LessonFile{Name: filepath.Join(dir, n), Data: data})
	}
	steps, err := assets.ParseLesson(files, p)
	if err != nil {
		var es assets.Errors
		if errors.As(err, &es) {
			return nil, &inputError{err: err}
		}
		return nil, refuse(err.Error())
	}
	for i, st := range steps {
		r, err := costmodel.Evaluate(st.Scenario)
		if err != nil {
			return nil, &inputError{err: fmt.Errorf("%s: %w", files[i].Name, err)}
		}
		facts := learn.NewFacts(common.Data{Scenario: st.Scenario, Report: r}, common.Compare{}, false)
		texts := map[string]string{"title": st.Title}
		for lang, text := range st.Caption {
			texts["caption."+lang] = text
		}
		for _, key := range append([]string{"title"}, captionKeys(st.Caption)...) {
			if _, err := learn.NewTexts(texts).Exec(key, facts); err != nil {
				return nil, &inputError{err: fmt.Errorf("%s: %s: %w", files[i].Name, key, err)}
			}
		}
	}
	return steps, nil
}

// captionKeys are "caption.en", "caption.fr", … for the languages a caption is written in.
func captionKeys(c map[string]string) []string {
	var out []string
	for _, l := range assets.Langs {
		if _, ok := c[l]; ok {
			out = append(out, "caption."+l)
		}
	}
	return out
}
