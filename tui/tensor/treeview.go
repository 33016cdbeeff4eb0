package tensor

import (
	"fmt"
	"math/bits"
	"strconv"
)

// The tree all-reduce NCCL runs across nodes: inside each node a chain of its l GPUs, between the
// nodes a binary tree (node i's parent is (i−1)/2). The partial sums run down every chain to the
// node's first GPU, climb the tree level by level to the root, and the total comes back down the
// tree and along the chains. Drawn as an outline, one row per node and one cell per GPU.

// maxTreeRows bounds the rows of the outline; more nodes fold into a last line.
const maxTreeRows = 8

// treeRows is the outline's height for a tree of nodes.
func treeRows(nodes int) int {
	if nodes <= maxTreeRows {
		return nodes
	}
	return maxTreeRows
}

// heapLevel is node i's level in the binary tree, the root's being 0.
func heapLevel(i int) int { return bits.Len(uint(i+1)) - 1 }

// subtreeSize is the nodes in node i's subtree of a binary tree of n nodes.
func subtreeSize(i, n int) int {
	size := 0
	for lo, hi := i, i; lo < n; lo, hi = 2*lo+1, 2*hi+2 {
		size += min(hi, n-1) - lo + 1
	}
	return size
}

// treeOrder lists the nodes depth first (the outline's order), at most limit of them.
func treeOrder(n, limit int) []int {
	var out []int
	var walk func(i int)
	walk = func(i int) {
		if i >= n || len(out) >= limit {
			return
		}
		out = append(out, i)
		walk(2*i + 1)
		walk(2*i + 2)
	}
	walk(0)
	return out
}

// treeShares is how many GPUs' shares GPU g of node i holds after the first k steps of the tree:
// 1 (its own) … l·N (the total).
func (c *coll) treeShares(i, g, k int) int {
	l, n, depth := c.local, c.nodes, c.depth
	total := l * n
	k = max(k, 0)
	chainUpDone := min(k, l-1)
	upDone := min(max(k-(l-1), 0), depth)
	downDone := min(max(k-(l-1)-depth, 0), depth)
	chainDownDone := min(max(k-(l-1)-2*depth, 0), l-1)
	// The node's first GPU holds its node's sum once the chain is done, its subtree's once its
	// children sent theirs up (tree step j moves level depth−j to depth−j−1), the total once it
	// came down to its level.
	lv := heapLevel(i)
	node := l
	if lv >= depth-upDone {
		node = l * subtreeSize(i, n)
	}
	if downDone > 0 && lv <= downDone {
		node = total
	}
	switch {
	case g == 0 && chainUpDone == l-1:
		return node
	case node == total && g <= chainDownDone:
		return total
	case g >= l-1-chainUpDone:
		return l - g
	}
	return 1
}

// drawTree draws the outline from line y.
func (m *Model) drawTree(cv *canvas, f frame, x0, y int, rows int) {
	c := &m.coll
	n := c.nodes
	shownNodes := rows
	if n > rows {
		shownNodes = rows - 1
	}
	order := treeOrder(n, shownNodes)
	ph, j := c.treeStep(f.k)
	cells := min(c.local, 16)
	w := cv.w
	for r, i := range order {
		x := x0
		// The prefix: for each ancestor, whether more siblings follow under it.
		lv := heapLevel(i)
		anc := make([]int, lv+1)
		for a, p := lv, i; a >= 0; a, p = a-1, (p-1)/2 {
			anc[a] = p
		}
		for a := 1; a <= lv; a++ {
			node := anc[a]
			last := node%2 == 0 || node+1 >= n // a right child, or a left child without a sibling
			st := stAxis
			if a == lv {
				// The edge from this node to its parent: busy when this level moves.
				if (ph == treeUp && lv == c.depth-j) || (ph == treeDown && lv == j+1) {
					st = stHighlight
				}
				if last {
					x = cv.text(x, y+r, "└─ ", st)
				} else {
					x = cv.text(x, y+r, "├─ ", st)
				}
				continue
			}
			if last {
				x = cv.text(x, y+r, "   ", stAxis)
			} else {
				x = cv.text(x, y+r, "│  ", stAxis)
			}
		}
		x = cv.text(x, y+r, fmt.Sprintf("node %d ", i), stBold)
		for g := 0; g < cells; g++ {
			gpu := g * c.local / cells
			sh := c.treeShares(i, gpu, f.k)
			st := stValue
			switch {
			case sh >= c.t:
				st = stOK
			case ph == chainUp && gpu == c.local-2-j:
				st = stHighlight
			case ph == chainDown && gpu == j+1 && c.treeShares(i, 0, f.k) >= c.t:
				st = stHighlight
			}
			cv.set(x+g, y+r, levelGlyph(float64(sh), c.t), st)
		}
		x += cells
		first := i * c.local
		gpus := fmt.Sprintf(" G%d–G%d", first, first+c.local-1)
		if c.local == 1 {
			gpus = " G" + strconv.Itoa(first)
		}
		var note span
		switch {
		case ph == treeUp && lv == c.depth-j && lv > 0:
			note = span{fmt.Sprintf("  ⇐ its sum to node %d", (i-1)/2), stHighlight}
		case ph == treeDown && lv == j+1:
			note = span{fmt.Sprintf("  ⇒ the total from node %d", (i-1)/2), stHighlight}
		}
		cv.spans(x, y+r, fitSpans(w-x, []span{{gpus, stLabel}, note}, []span{{gpus, stLabel}}, nil)...)
	}
	if n > shownNodes {
		cv.text(x0, y+shownNodes, fit(w-x0, fmt.Sprintf("… and %d more nodes, the same", n-shownNodes), fmt.Sprintf("… +%d nodes", n-shownNodes)), stSub)
	}
}
