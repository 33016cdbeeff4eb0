package pipeline

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/splitscope/splitscope/tui/theme"
)

// cls is a drawing class: the style a cell or a piece of text takes.
type cls uint8

const (
	cPlain cls = iota
	cLabel
	cAxis
	cNote // fold markers, hints
	cWarn
	cBubble
	cBubbleDim
	cP2P
	cP2PDim
	cPlay
	cOvCompute // a measured or modelled overlay cell: compute
	cOvComm    // communication, or both at once
	cOp        // cOp + kind·3 + state: the op classes
)

// Op states relative to the playhead.
const (
	stLit     = iota // started
	stFuture         // not started yet: dimmed
	stRunning        // under the playhead: highlighted
	numStates
)

// cMix is the first class of mixed columns: cMix + (major·numKinds + minor)·numStates + state.
const cMix = cOp + cls(numKinds*numStates)

const numCls = int(cMix) + int(numKinds)*int(numKinds)*numStates

func opCls(k opKind, state int) cls { return cOp + cls(int(k)*numStates+state) }

// mixCls is the class of a mixed column whose largest share is major and second minor.
func mixCls(major, minor opKind, state int) cls {
	return cMix + cls((int(major)*int(numKinds)+int(minor))*numStates+state)
}

// cell is one terminal cell of the chart.
type cell struct {
	r rune
	c cls
}

// seg is a piece of text in one class.
type seg struct {
	s string
	c cls
}

// painter turns classes into escape sequences. Rendering a style once per class and View, then
// wrapping runs of cells in its prefix and suffix, keeps lipgloss out of the per-cell loop.
type painter struct {
	styles   [numCls]lipgloss.Style
	dim      lipgloss.Style
	pre, suf [numCls]string
	ready    bool
	profile  termenv.Profile
	stale    bool
}

func (p *painter) init(s theme.Styles) {
	p.styles[cPlain] = s.Plain
	p.styles[cLabel] = s.Label
	p.styles[cAxis] = s.Axis
	p.styles[cNote] = s.Dim
	p.styles[cWarn] = s.Warn
	p.styles[cBubble] = s.Bubble
	p.styles[cBubbleDim] = s.Bubble.Faint(true)
	p.styles[cP2P] = s.P2P
	p.styles[cP2PDim] = s.P2P.Faint(true)
	p.styles[cPlay] = s.Playhead
	p.styles[cOvCompute] = s.ComputeFill
	p.styles[cOvComm] = s.Comm
	kinds := [numKinds]lipgloss.Style{s.F, s.B, s.W, s.Prefill, s.Decode}
	for k, st := range kinds {
		p.styles[opCls(opKind(k), stLit)] = st
		// Future ops keep their colour as text on the terminal's background, faint.
		p.styles[opCls(opKind(k), stFuture)] = s.Plain.Foreground(st.GetBackground()).Faint(true)
		p.styles[opCls(opKind(k), stRunning)] = s.Highlight
		// A mixed column: the largest share's colour on the second's, so both show; in the
		// future, faint like an op of the larger share.
		for j, minor := range kinds {
			p.styles[mixCls(opKind(k), opKind(j), stLit)] = st.Foreground(st.GetBackground()).Background(minor.GetBackground())
			p.styles[mixCls(opKind(k), opKind(j), stFuture)] = p.styles[opCls(opKind(k), stFuture)]
			p.styles[mixCls(opKind(k), opKind(j), stRunning)] = s.Highlight
		}
	}
	p.dim = s.Dim
}

// prepare renders each class's prefix and suffix for the current colour profile; stale renders
// everything but warnings dimmed.
func (p *painter) prepare(stale bool) {
	prof := lipgloss.ColorProfile()
	if p.ready && p.profile == prof && p.stale == stale {
		return
	}
	for i := range numCls {
		st := p.styles[i]
		if stale && cls(i) != cWarn {
			st = p.dim
		}
		p.pre[i], p.suf[i], _ = strings.Cut(st.Render("X"), "X")
	}
	p.ready, p.profile, p.stale = true, prof, stale
}

// cells writes cells, one escape sequence per run of a class; trailing plain blanks are dropped.
func (p *painter) cells(b *strings.Builder, cs []cell) {
	n := len(cs)
	for n > 0 && cs[n-1].c == cPlain && cs[n-1].r == ' ' {
		n--
	}
	for i := 0; i < n; {
		c := cs[i].c
		b.WriteString(p.pre[c])
		j := i
		for ; j < n && cs[j].c == c; j++ {
			b.WriteRune(cs[j].r)
		}
		b.WriteString(p.suf[c])
		i = j
	}
}

// segs writes pieces of text in at most w cells, cutting the last one that does not fit with "…".
func (p *painter) segs(b *strings.Builder, ss []seg, w int) {
	used := 0
	for _, s := range ss {
		if used >= w {
			return
		}
		t := s.s
		if n := cellWidth(t); used+n > w {
			r := []rune(t)
			t = string(r[:max(w-used-1, 0)]) + "…"
		}
		b.WriteString(p.pre[s.c])
		b.WriteString(t)
		b.WriteString(p.suf[s.c])
		used += cellWidth(t)
	}
}

// line is segs as a string.
func (p *painter) line(ss []seg, w int) string {
	var b strings.Builder
	p.segs(&b, ss, w)
	return b.String()
}
