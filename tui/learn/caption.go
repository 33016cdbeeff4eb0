package learn

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Caption is a tour step's title and its caption wrapped to w cells, with the live numbers of
// the facts; "tour.evaluating" stands in while the step's scenario is being evaluated (ready
// false).
func Caption(t *Texts, step string, f Facts, ready bool, w int) (title string, lines []string, err error) {
	title, err = t.Exec("tour."+step+".title", f)
	if err != nil {
		return "", nil, err
	}
	key := "tour." + step + ".caption"
	if !ready {
		key = "tour.evaluating"
	}
	body, err := t.Exec(key, f)
	if err != nil {
		return "", nil, err
	}
	for _, p := range paragraphs(body) {
		lines = append(lines, Wrap(p.Text, w)...)
	}
	return strings.TrimSpace(title), lines, nil
}

// Wrap word-wraps text to w cells at its spaces, keeping numbers with their units (a
// non-breaking space, which becomes a space here) and hyphenated words whole; a word wider than
// w is cut.
func Wrap(text string, w int) []string {
	w = max(w, 8)
	var lines []string
	cur, curW := "", 0
	// Split at plain spaces only: strings.Fields would split at the non-breaking ones too.
	for _, word := range strings.Split(strings.ReplaceAll(text, "\n", " "), " ") {
		if word == "" {
			continue
		}
		word = strings.ReplaceAll(word, "\u00a0", " ")
		ww := ansi.StringWidth(word)
		for ww > w { // a word wider than a line: cut it
			if cur != "" {
				lines = append(lines, cur)
				cur, curW = "", 0
			}
			head := ansi.Truncate(word, w, "")
			lines = append(lines, head)
			word = strings.TrimPrefix(word, head)
			ww = ansi.StringWidth(word)
		}
		switch {
		case cur == "":
			cur, curW = word, ww
		case curW+1+ww <= w:
			cur += " " + word
			curW += 1 + ww
		default:
			lines = append(lines, cur)
			cur, curW = word, ww
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}
