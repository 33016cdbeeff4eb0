package tui

// Layout arithmetic, pure and table-tested: where the title, the parameter panel, the main pane
// and the footer go for a terminal size.

// Minimum terminal size; below it the explorer shows a polite message instead.
const (
	MinWidth  = 80
	MinHeight = 24
)

// rect is a region of the screen.
type rect struct{ X, Y, W, H int }

// contains reports whether the cell (x, y) is inside.
func (r rect) contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// layout is the screen split into regions. Params and Main include their borders.
type layout struct {
	TooSmall bool
	Title    rect // one line
	Strip    rect // the TP-vs-PP strip under the title
	Params   rect
	Main     rect
	Tabs     rect // first line inside Main's border
	Content  rect // the pane's area inside Main's border, under the tabs
	Footer   rect // help line(s) and the verdict
}

// paramsWidth is the parameter panel's width (borders included) for a terminal width.
func paramsWidth(w int) int {
	switch {
	case w >= 160:
		return 36
	case w >= 120:
		return 32
	default:
		return 28
	}
}

// stripLines is the TP-vs-PP strip's height: two lines, one on short screens.
func stripLines(h int) int {
	if h < 30 {
		return 1
	}
	return 2
}

// computeLayout splits a w×h terminal; footerLines is the help's height plus the verdict line
// (and the tour's caption box);
// presentation hides the parameter panel.
func computeLayout(w, h, footerLines int, presentation bool) layout {
	if w < MinWidth || h < MinHeight {
		return layout{TooSmall: true}
	}
	var l layout
	l.Title = rect{0, 0, w, 1}
	l.Strip = rect{0, 1, w, stripLines(h)}
	top := l.Title.H + l.Strip.H
	// The footer (with the tour's caption) may grow until the body keeps minBodyH lines.
	footerLines = max(min(footerLines, h-top-minBodyH), 1)
	bodyH := h - top - footerLines
	pw := paramsWidth(w)
	if presentation {
		pw = 0
	}
	l.Params = rect{0, top, pw, bodyH}
	l.Main = rect{pw, top, w - pw, bodyH}
	// Inside the main pane's rounded border: one line of tabs, then the content.
	l.Tabs = rect{l.Main.X + 1, l.Main.Y + 1, l.Main.W - 2, 1}
	l.Content = rect{l.Main.X + 1, l.Main.Y + 2, l.Main.W - 2, l.Main.H - 3}
	l.Footer = rect{0, top + bodyH, w, footerLines}
	return l
}
