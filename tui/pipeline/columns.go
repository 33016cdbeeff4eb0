package pipeline

import (
	"strconv"

	"github.com/splitscope/splitscope/tui/theme"
)

// What one column of a lane shows. A column covers a slice of simulated time that may hold many
// ops; it shows the time each kind of op takes there, never one op picked to stand for others:
// a kind's letter only where that kind holds nearly all the busy time, a mixed glyph where kinds
// share it, and idle where idle holds half the column or more. So a row of columns can hide an op
// too short to see, but never shows an order of kinds that did not happen.

// colClass is what a column is drawn as.
type colClass uint8

const (
	colIdle  colClass = iota // idle holds at least half the column
	colWait                  // idle, and the first column of a wait for another stage (p2p)
	colOne                   // one kind holds at least pureShare of the busy time: its letter
	colMixed                 // kinds share the busy time, none holding pureShare: glyphMixed
)

// pureShare is the share of a column's busy time one kind must hold to be drawn as its letter.
// Above one half, so that two columns in a row drawn with two letters keep their order; well
// below one, so that an op boundary inside a column does not make every column mixed.
const pureShare = 0.75

// glyphMixed marks a column where ops of two or more kinds share the busy time: the kinds
// alternate faster than a column can show. In colour it is drawn in the colour of the largest
// share on the background of the second.
const glyphMixed = '▚'

// column is one column of a lane, as computed once per timeline and width.
type column struct {
	class colClass
	// major and minor are the kinds with the largest and second-largest time in the column
	// (minor only for colMixed).
	major, minor opKind
	// op is the longest op of kind major in the column: its chunk picks the letter's case, its
	// label names a run of columns, and where it stands to the playhead sets the colour; -1 idle.
	op int32
}

// glyphPaired underlines, on a lane's bottom row, the columns whose op ran in an overlapped
// forward–backward pair (DualPipe, DualPipeV): the two ops share the time, one's all-to-all
// under the other's compute.
const glyphPaired = '═'

// laneCols is a lane drawn at one width: its columns and their glyphs, plain and with labels.
type laneCols struct {
	cols []column
	base []rune // the glyph of each column
	top  []rune // base with op labels written over runs of one op
	// low is base with the columns of paired ops drawn glyphPaired (the lane's bottom row when
	// it has two rows or more); nil when no op of the lane is paired.
	low []rune
}

// colCache holds every lane's columns for one index and width, so that a frame only colours
// them for the playhead.
type colCache struct {
	ix    *index
	n     int
	lanes []laneCols
	// mixed is the set of kinds (bit k for kind k) that share some mixed column: the legend
	// explains glyphMixed with them.
	mixed uint8
	// paired: some lane has a paired op's column (laneCols.low): the legend explains glyphPaired.
	paired bool
}

// columnsFor returns the cache for ix at n columns, building it when the data or the width
// changed since the last call.
func (cc *colCache) columnsFor(ix *index, n int) *colCache {
	if cc.ix == ix && cc.n == n && cc.lanes != nil {
		return cc
	}
	*cc = colCache{ix: ix, n: n, lanes: make([]laneCols, len(ix.lanes))}
	var sc shares
	for i := range ix.lanes {
		lc := &cc.lanes[i]
		lc.cols = summarize(&ix.lanes[i], n, ix.span, &sc)
		lc.base, lc.top = glyphs(&ix.lanes[i], lc.cols, ix.chunks > 1)
		lc.low = pairedRow(&ix.lanes[i], lc.cols, lc.base)
		cc.paired = cc.paired || lc.low != nil
		for _, c := range lc.cols {
			if c.class == colMixed {
				cc.mixed |= 1<<c.major | 1<<c.minor
			}
		}
	}
	return cc
}

// shares is the scratch of summarize: per column and kind, the time spent and the longest op.
type shares struct {
	time    [][numKinds]float64
	best    [][numKinds]int32
	bestDur [][numKinds]float64
}

func (s *shares) reset(n int) {
	if cap(s.time) < n {
		s.time = make([][numKinds]float64, n)
		s.best = make([][numKinds]int32, n)
		s.bestDur = make([][numKinds]float64, n)
	}
	s.time, s.best, s.bestDur = s.time[:n], s.best[:n], s.bestDur[:n]
	clear(s.time)
	clear(s.bestDur)
	for i := range s.best {
		s.best[i] = [numKinds]int32{-1, -1, -1, -1, -1}
	}
}

// summarize computes the n columns of ln over [0, span]: one pass over the ops, each adding its
// overlap with every column it touches, then a rule per column (see colClass).
func summarize(ln *lane, n int, span float64, sc *shares) []column {
	sc.reset(n)
	for k := range ln.ops {
		s, e := ln.starts[k], ln.ends[k]
		kind := ln.ops[k].Kind
		for c := timeToCol(s, span, n); c < n; c++ {
			a, b := colSlice(c, n, span)
			if a >= e {
				break
			}
			over := min(e, b) - max(s, a)
			if !(over > 0) {
				continue
			}
			sc.time[c][kind] += over
			if over > sc.bestDur[c][kind] {
				sc.best[c][kind], sc.bestDur[c][kind] = int32(k), over
			}
		}
	}
	out := make([]column, n)
	width := span / float64(n)
	gap := 0
	for c := range out {
		t := &sc.time[c]
		busy := 0.0
		major, minor := opKind(0), opKind(numKinds)
		for k := range numKinds {
			busy += t[k]
			if t[k] > t[major] {
				major = k
			}
		}
		for k := range numKinds {
			if k != major && t[k] > 0 && (minor == numKinds || t[k] > t[minor]) {
				minor = k
			}
		}
		if 2*busy < width {
			out[c] = column{class: colIdle, op: -1}
			a, b := colSlice(c, n, span)
			if ln.gapAtFrom(a, b, c > 0 && out[c-1].class <= colWait, &gap) {
				out[c].class = colWait
			}
			continue
		}
		col := column{class: colOne, major: major, op: sc.best[c][major]}
		if t[major] < pureShare*busy {
			col.class, col.minor = colMixed, minor
		}
		out[c] = col
	}
	return out
}

// glyphs draws the columns' glyphs: idle, a p2p mark, an op's letter or the mixed glyph; top
// adds labels ("F3", "F3c1", "D12") over runs of columns that one op names, where they fit.
func glyphs(ln *lane, cols []column, chunks bool) (base, top []rune) {
	base, top = make([]rune, len(cols)), make([]rune, len(cols))
	for c, col := range cols {
		switch col.class {
		case colIdle:
			base[c] = theme.GlyphBubble
		case colWait:
			base[c] = theme.GlyphP2P
		case colOne:
			base[c] = glyphOf(&ln.ops[col.op])
		default:
			base[c] = glyphMixed
		}
	}
	copy(top, base)
	var buf []byte
	for c := 0; c < len(cols); {
		e := c + 1
		if cols[c].class != colOne {
			c = e
			continue
		}
		for e < len(cols) && cols[e].class == colOne && cols[e].op == cols[c].op {
			e++
		}
		buf = label(buf[:0], &ln.ops[cols[c].op], e-c, chunks)
		for i, r := range buf {
			top[c+i] = rune(r)
		}
		c = e
	}
	return base, top
}

// pairedRow is base with glyphPaired in the columns whose op (the longest of the column's main
// kind) ran paired; nil when none did.
func pairedRow(ln *lane, cols []column, base []rune) []rune {
	var low []rune
	for c, col := range cols {
		if col.class < colOne || !ln.ops[col.op].Paired {
			continue
		}
		if low == nil {
			low = append([]rune(nil), base...)
		}
		low[c] = glyphPaired
	}
	return low
}

// label appends to b the longest of an op's labels that fits in width cells ("F3c1", "F3",
// "D12"), or nothing.
func label(b []byte, op *span, width int, chunks bool) []byte {
	if width < 2 {
		return b
	}
	b = append(b, byte(glyphOf(op)))
	switch op.Kind {
	case kindDecode:
		b = strconv.AppendInt(b, int64(op.Token), 10)
	default:
		b = strconv.AppendInt(b, int64(op.Micro), 10)
	}
	short := len(b)
	if chunks && op.Kind != kindPrefill && op.Kind != kindDecode {
		b = append(b, 'c')
		b = strconv.AppendInt(b, int64(op.Chunk), 10)
	}
	switch {
	case len(b) <= width:
		return b
	case short <= width:
		return b[:short]
	}
	return b[:0]
}

// glyphOf is the op's kind glyph, in lower case for odd chunks of an interleaved schedule so
// that neighbouring virtual stages tell apart without colour.
func glyphOf(op *span) rune {
	g := kindGlyph[op.Kind]
	if op.Chunk%2 == 1 && op.Kind <= kindW {
		g += 'a' - 'A'
	}
	return g
}

var kindGlyph = [numKinds]rune{theme.GlyphF, theme.GlyphB, theme.GlyphW, theme.GlyphPrefill, theme.GlyphDecode}

// colour sets the class of each column for the playhead at time ph, in column pc: columns up
// to the playhead lit, the op under it highlighted, the future dimmed.
func (lc *laneCols) colour(out []cls, ops []span, ph float64, pc int) {
	for c, col := range lc.cols {
		switch col.class {
		case colIdle:
			out[c] = pick(c <= pc, cBubble, cBubbleDim)
		case colWait:
			out[c] = pick(c <= pc, cP2P, cP2PDim)
		default:
			op := &ops[col.op]
			state := stFuture
			switch {
			case op.Start <= ph && ph < op.End:
				state = stRunning
			case op.Start <= ph:
				state = stLit
			}
			out[c] = opCls(col.major, state)
			if col.class == colMixed {
				out[c] = mixCls(col.major, col.minor, state)
			}
		}
	}
}

var kindNames = [numKinds]string{"F", "B", "W", "prefill", "decode"}

// mixedText explains glyphMixed for the kinds in mixed (bit k for kind k): "F and B mixed
// within a column", "F, B and W mixed within a column".
func mixedText(mixed uint8) string {
	var names []string
	for k := range numKinds {
		if mixed&(1<<k) != 0 {
			names = append(names, kindNames[k])
		}
	}
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " and "
		default:
			s += ", "
		}
		s += n
	}
	return s + " mixed within a column"
}

// mixedLegendCls draws the legend's glyphMixed in the colours of the first two kinds in mixed.
func mixedLegendCls(mixed uint8) cls {
	var ks []opKind
	for k := range numKinds {
		if mixed&(1<<k) != 0 {
			ks = append(ks, k)
		}
	}
	if len(ks) < 2 {
		return cNote
	}
	return mixCls(ks[0], ks[1], stLit)
}

func pick(lit bool, a, b cls) cls {
	if lit {
		return a
	}
	return b
}
