package tensor

import (
	"fmt"
	"strconv"

	"github.com/splitscope/splitscope/tui/static"
)

// The animation plays the algorithm the collective model picked for today's TP collective: the
// ring's 2(t−1) steps, the tree's chains and levels, NVLS's write to the switch and its multicast
// back, the engine's one-shot read of every peer or its two-shot slices. Each is a loop of
// steps (the integer part of Model.pos) plus the finished state, played at the modelled pace.

// animKind is the algorithm the animation draws.
type animKind uint8

const (
	animRing    animKind = iota // NCCL's ring (and anything without a drawing of its own)
	animTree                    // chains inside the nodes, a binary tree across them
	animNVLS                    // NVLink SHARP: the switch adds and multicasts (NVLS+tree: a tree between nodes)
	animOneShot                 // the engine reads every peer's whole buffer
	animTwoShot                 // the engine's reduce-scatter and all-gather by reads
)

// steps is the length of the animation, finished state excluded.
func (c *coll) steps() int {
	switch c.anim {
	case animTree:
		return 2*(c.local-1) + 2*c.depth
	case animNVLS:
		return 2 + 2*c.depth
	case animOneShot:
		return 1
	case animTwoShot:
		return 2
	}
	return ringSteps(c.t)
}

// treePhase is where step k of a tree (or NVLS+tree) animation is.
type treePhase uint8

const (
	chainUp   treePhase = iota // inside every node the partial sums run down the chain to its first GPU
	treeUp                     // the nodes' sums climb the tree, one level a step
	treeDown                   // the total comes back down
	chainDown                  // and along every chain
	treeDone
)

// treeStep maps step k of a tree to its phase and its index inside the phase. NVLS+tree has no
// chains: its first and last steps are the switch's write and multicast (chainUp, chainDown).
func (c *coll) treeStep(k int) (treePhase, int) {
	chain := c.local - 1
	if c.anim == animNVLS {
		chain = 1
	}
	switch {
	case k < 0:
		return chainUp, 0
	case k < chain:
		return chainUp, k
	case k < chain+c.depth:
		return treeUp, k - chain
	case k < chain+2*c.depth:
		return treeDown, k - chain - c.depth
	case k < 2*chain+2*c.depth:
		return chainDown, k - chain - 2*c.depth
	}
	return treeDone, 0
}

// animHeader names the algorithm, its step count, its pace on screen and the player's state.
func (m *Model) animHeader(t, w int) []span {
	c := &m.coll
	if c.anim == animRing {
		return m.ringHeader(t, w)
	}
	wall := m.wall()
	scale := "n/a"
	if s := m.data.Report.Detail.TPAllReduceS; s > 0 && wall > 0 {
		scale = static.Seconds(s / wall)
	}
	state, st := "playing", stOK
	if !m.playing {
		state, st = "paused", stWarn
	}
	speed := "×" + strconv.FormatFloat(speeds[m.speed], 'g', -1, 64)
	S := static.DecBytes(c.use.Bytes)
	var title, what string
	switch c.anim {
	case animNVLS:
		title = "NVLS all-reduce"
		what = fmt.Sprintf(" over %d GPUs: each sends S = %s to the NVSwitch, which adds, and gets the sum back", c.local, S)
		if c.nodes > 1 {
			title = "NVLS+tree all-reduce"
			what = fmt.Sprintf(" in each node of %d GPUs, a tree of %s between %d nodes", c.local, levels(c.depth), c.nodes)
		}
	case animTree:
		title = "Tree all-reduce"
		what = fmt.Sprintf(": chains of %d GPUs in %d nodes, a tree of %s, %d steps", c.local, c.nodes, levels(c.depth), c.steps())
	case animOneShot:
		title = "One-shot all-reduce"
		what = fmt.Sprintf(" over %d GPUs: each reads the %d peers' S = %s and adds, one kernel", t, t-1, S)
	case animTwoShot:
		title = "Two-shot all-reduce"
		what = fmt.Sprintf(" over %d GPUs: reduce-scatter then all-gather, each by reading peers", t)
	}
	if c.pair {
		title = "RS + AG as " + title
	}
	tail := []span{{" · ", stLabel}, {state + " " + speed, st}}
	return fitSpans(w,
		append([]span{{title, stBold}, {what, stLabel}, {" · 1 s on screen = " + scale, stPlain}}, tail...),
		append([]span{{title, stBold}, {" · 1 s on screen = " + scale, stPlain}}, tail...),
		append([]span{{static.AlgoName(c.res.Algo), stBold}, {" · 1 s = " + scale, stPlain}}, tail...),
		[]span{{static.AlgoName(c.res.Algo) + " · ", stPlain}, {state, st}},
		[]span{{state, st}},
	)
}

// levels is a tree's depth in words: "1 level", "3 levels".
func levels(n int) string {
	if n == 1 {
		return "1 level"
	}
	return strconv.Itoa(n) + " levels"
}

// animCaption says what the current step does.
func (m *Model) animCaption(f frame, w int) []span {
	c := &m.coll
	if c.anim == animRing {
		return caption(f, w)
	}
	n := c.steps()
	pos := fmt.Sprintf("step %d/%d", f.k+1, n)
	short := fmt.Sprintf("%d/%d ", f.k+1, n)
	done := func(long string) []span {
		return fitSpans(w,
			[]span{{"done", stOK}, {" · " + long + "; it starts over", stPlain}},
			[]span{{"done", stOK}, {" · " + long, stPlain}},
			[]span{{"done", stOK}},
		)
	}
	say := func(phase, long, mid string) []span {
		return fitSpans(w,
			[]span{{pos, stBold}, {" · " + phase, stWarn}, {" · " + long, stPlain}},
			[]span{{pos, stBold}, {" · " + phase, stWarn}, {" · " + mid, stPlain}},
			[]span{{pos, stBold}, {" · " + phase, stWarn}},
			[]span{{short, stBold}, {phase, stWarn}},
		)
	}
	pct := fmt.Sprintf("%d%%", int(f.frac*100))
	switch c.anim {
	case animOneShot:
		if f.k >= n {
			return done(fmt.Sprintf("every GPU holds the sum of all %d buffers (█)", f.t))
		}
		in := int(f.frac * float64(f.t-1))
		return say("read and add",
			fmt.Sprintf("every GPU reads the %d peers' buffers over NVLink and adds them as they come: %d of %d in", f.t-1, in, f.t-1),
			fmt.Sprintf("%d of %d peers read", in, f.t-1))
	case animTwoShot:
		switch f.k {
		case 0:
			return say("reduce-scatter", fmt.Sprintf("G i reads slice i from each of the %d peers and adds it (%s)", f.t-1, pct), "G i sums slice i")
		case 1:
			return say("all-gather", fmt.Sprintf("G i reads the %d other summed slices from their owners (%s)", f.t-1, pct), "G i reads the sums")
		}
		return done(fmt.Sprintf("every GPU holds all %d slices summed (█)", f.t))
	}
	ph, j := c.treeStep(f.k)
	switch {
	case ph == treeDone:
		return done(fmt.Sprintf("every GPU holds the sum of all %d (█)", f.t))
	case c.anim == animNVLS && ph == chainUp:
		return say("reduce in the switch", fmt.Sprintf("every GPU writes its S to the NVSwitch, which adds the %d as they arrive (%s sent)", c.local, pct), "GPUs → switch, Σ")
	case c.anim == animNVLS && ph == chainDown:
		return say("multicast", fmt.Sprintf("the NVSwitch sends the sum to all %d GPUs at once (%s)", c.local, pct), "switch → every GPU")
	case ph == chainUp:
		return say("chain up", fmt.Sprintf("in every node G i+1 adds its share and passes it to G i (%d of %d); G 0 ends with the node's sum", j+1, c.local-1), "partial sums down the chain")
	case ph == chainDown:
		return say("chain down", fmt.Sprintf("in every node the total passes from GPU to GPU (%d of %d)", j+1, c.local-1), "the total along the chain")
	case ph == treeUp:
		return say("tree up", fmt.Sprintf("level %d → %d: each node sends its subtree's sum to its parent over the network", c.depth-j, c.depth-j-1), fmt.Sprintf("level %d → %d", c.depth-j, c.depth-j-1))
	}
	return say("tree down", fmt.Sprintf("level %d → %d: each node sends the total to its children", j, j+1), fmt.Sprintf("level %d → %d", j, j+1))
}

// animLegend says how to read the drawing.
func (m *Model) animLegend(kind ringKind, w int) string {
	c := &m.coll
	t := m.tp()
	if c.anim == animRing {
		return legend(t, kind, w)
	}
	if kind == ringCompact {
		return fit(w, "▶ marks the phase under way", "")
	}
	switch c.anim {
	case animTree:
		return fit(w,
			fmt.Sprintf("one row per node, one cell per GPU: ▁ its own share … █ summed over all %d · ⇐ sends up, ⇒ sends down", t),
			"cells: ▁ own … █ total · ⇐ up, ⇒ down", "▁ own … █ total")
	case animNVLS:
		return fit(w,
			fmt.Sprintf("cells = the GPU's S in chunks: ▁ its own … █ the sum of all %d · ↓↑ S to the switch, Σ back", c.local),
			"▁ own … █ the sum · ↓↑ to the switch and back", "▁ own … █ sum")
	}
	return fit(w,
		fmt.Sprintf("cells = the GPU's buffer in slices: ▁ its own … █ summed over all %d · ↕ reads over NVLink", t),
		"▁ own … █ summed · ↕ reads", "▁ own … █ sum")
}

// animExplain is two lines on the algorithm, shown when there is room.
func (m *Model) animExplain(w int) (string, string) {
	c := &m.coll
	t := m.tp()
	switch c.anim {
	case animTree:
		return fit(w,
				fmt.Sprintf("latency grows with 2(l−1) + 2⌈log2 N⌉ = %d steps, not the ring's 2(t−1) = %d: why NCCL picks trees across many nodes", c.steps(), ringSteps(t)),
				fmt.Sprintf("%d steps, not the ring's %d", c.steps(), ringSteps(t)), ""),
			fit(w, "drawn as one tree: NCCL runs two complementary trees, each carrying half of S", "one of NCCL's two trees", "")
	case animNVLS:
		return fit(w,
				fmt.Sprintf("the switch does the adding: each GPU moves S out and S in, not 2(t−1)/t·S = %s·S each way over %d steps",
					coef(2*float64(c.local-1)/float64(c.local)), ringSteps(c.local)),
				"the switch adds: S out and S in per GPU", ""),
			fit(w, "drawn as two phases: NCCL pipelines them in 128 KiB chunks", "NCCL pipelines the two phases", "")
	case animOneShot:
		return fit(w,
				fmt.Sprintf("no steps and no handshakes: one kernel launch (6 µs) and %d·S read by each GPU, cheap while S is small", t-1),
				"one launch, (t−1)·S read per GPU", ""),
			fit(w, "the serving engine's own kernel (vLLM, TensorRT-LLM) for small all-reduces on NVLink; NCCL's floor is tens of µs",
				"the serving engine's kernel, not NCCL", "")
	case animTwoShot:
		return fit(w,
				"reduce-scatter and all-gather by direct reads: 2(t−1)/t·S per GPU like the ring, but 2 launches instead of 2(t−1) steps",
				"2 launches, 2(t−1)/t·S per GPU", ""),
			fit(w, "the serving engine's own kernel, chosen over one-shot once reading every whole buffer costs more than a second launch",
				"the serving engine's kernel, not NCCL", "")
	}
	return fit(w,
			fmt.Sprintf("reduce-scatter (steps 1–%d): G i sends chunk (i−s) mod %d to G i+1, which adds its own share; G i ends with chunk (i+1) mod %d reduced", t-1, t, t),
			fmt.Sprintf("reduce-scatter, steps 1–%d: receivers add; G i ends with chunk (i+1) mod %d", t-1, t),
			fmt.Sprintf("reduce-scatter 1–%d: add", t-1)),
		fit(w,
			fmt.Sprintf("all-gather (steps %d–%d): the reduced chunks go round once more, each receiver keeping a copy; all %d links busy every step", t, ringSteps(t), t),
			fmt.Sprintf("all-gather, steps %d–%d: receivers keep a copy; all links busy", t, ringSteps(t)),
			fmt.Sprintf("all-gather %d–%d: copy", t, ringSteps(t)))
}

// phaseStrip is the one-line form of an algorithm other than the ring: its phases in order, the
// one under way marked ▶ and highlighted.
func (m *Model) phaseStrip(f frame, w int) []span {
	c := &m.coll
	type ph struct {
		label string
		on    bool
	}
	var phases []ph
	k := f.k
	gpus := fmt.Sprintf("G0–G%d", f.t-1)
	switch c.anim {
	case animOneShot:
		phases = []ph{{fmt.Sprintf("every GPU reads %d peers, adds", f.t-1), k == 0}, {"done", k >= 1}}
	case animTwoShot:
		phases = []ph{{"reduce-scatter by reads", k == 0}, {"all-gather by reads", k == 1}, {"done", k >= 2}}
	case animNVLS:
		p, _ := c.treeStep(k)
		if c.nodes > 1 {
			gpus = fmt.Sprintf("G0–G%d", c.local-1)
		}
		phases = append(phases, ph{gpus + " → switch Σ", p == chainUp})
		if c.depth > 0 {
			phases = append(phases, ph{fmt.Sprintf("tree up ×%d", c.depth), p == treeUp}, ph{fmt.Sprintf("tree down ×%d", c.depth), p == treeDown})
		}
		phases = append(phases, ph{"switch → " + gpus, p == chainDown}, ph{"done", p == treeDone})
	case animTree:
		p, _ := c.treeStep(k)
		if c.local > 1 {
			phases = append(phases, ph{fmt.Sprintf("chains up ×%d", c.local-1), p == chainUp})
		}
		phases = append(phases, ph{fmt.Sprintf("tree up ×%d", c.depth), p == treeUp}, ph{fmt.Sprintf("tree down ×%d", c.depth), p == treeDown})
		if c.local > 1 {
			phases = append(phases, ph{fmt.Sprintf("chains down ×%d", c.local-1), p == chainDown})
		}
		phases = append(phases, ph{"done", p == treeDone})
	}
	build := func(short bool) []span {
		var out []span
		for i, p := range phases {
			if i > 0 {
				out = append(out, span{" │ ", stAxis})
			}
			l := p.label
			if short && !p.on {
				l = "·"
			}
			if p.on {
				out = append(out, span{"▶" + l, stHighlight})
			} else {
				out = append(out, span{l, stLabel})
			}
		}
		return out
	}
	return fitSpans(w, build(false), build(true))
}
