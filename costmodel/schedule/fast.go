package schedule

// The steady-state shortcut's loop runs each order compiled (cop): what the engine's loop
// decodes from an op's ref at every op — where its end time lies, where its input's lies and
// whether that has run, its cost — worked out once per shape and kept with the order
// (sharedOrder). An input has run when its rank has gone past it, so the end times need no −1
// for the ops still to run: the shortcut leaves them as its pooled buffer had them.

// cop is one op of a compiled order.
type cop struct {
	slot int32 // its end time's index in engine.end: 3·(micro·nvs + position) + kind
	in   int32 // its input's (when inPos ≥ 0): slot − 3 for an F, slot + 3 for a B
	cost int32 // its cost's index in engine.cost3 and the send's before its input in engine.send3
	// Its input from another position (F: the forward before it, 3 slots down; B: the backward
	// after it, 3 slots up): its place in its rank's order, or −1 when none, and its rank, or −1
	// when the same (earlier in the order: the V's turn).
	inPos, inRank int32
	kind          Kind
	// The group this op starts (fuse): its ops (1: the op alone; 0: inside a group, where the
	// loop never stops), whether it overlaps a forward with a backward, and the forwards in
	// flight it adds: the most on the way through its ops, and in all.
	glen    uint8
	paired  bool
	up, net int8
}

// compile is order (p ranks of per ops, for in's shape) compiled.
func compile(in *Train, order []ref, per int) compiled {
	p, nvs := in.Stages, in.Stages*in.Chunks
	head2, tail2 := 0, nvs-1
	if b := ChainBreak(in.Schedule, p); b > 0 {
		head2, tail2 = b, b-1
	}
	slot := func(x ref) int { return 3*(x.micro()*nvs+x.vs()) + int(x.kind()) }
	at := make([]int32, 3*nvs*chainMicro(in)) // each op's index in order, by its slot
	for i, x := range order {
		at[slot(x)] = int32(i)
	}
	ops := make([]cop, len(order))
	for i, x := range order {
		vs, k := x.vs(), x.kind()
		c := cop{slot: int32(slot(x)), cost: int32(int(k)*nvs + vs), inPos: -1, inRank: -1, kind: k}
		from := -1
		switch k {
		case F:
			if vs != 0 && vs != head2 {
				from = int(at[c.slot-3])
			}
		case B:
			if vs != nvs-1 && vs != tail2 {
				from = int(at[c.slot+3])
			}
		}
		if from >= 0 {
			c.in = c.slot + 6*int32(k) - 3 // F (0): 3 slots down; B (1): 3 up
			c.inPos = int32(from % per)
			if from/per != i/per {
				c.inRank = int32(from / per)
			}
		}
		ops[i] = c
	}
	for r := range in.Stages { // the groups, which lie within a rank's order
		seq := order[r*per : (r+1)*per]
		for k := 0; k < per; {
			g := k + 1
			if seq[k]&fuse != 0 {
				if g = groupEnd(seq, k); g < 0 {
					g = per // cut by the order's end: cannot happen
				}
			}
			c := &ops[r*per+k]
			c.glen, c.paired = uint8(g-k), paired(seq[k:g])
			fly := 0
			for _, y := range seq[k:g] {
				switch y.kind() {
				case F:
					fly++
					c.up = max(c.up, int8(fly))
				case B:
					fly--
				}
			}
			c.net = int8(fly)
			if c.up == 0 {
				c.up = c.net
			}
			k = g
		}
	}
	// The forwards in flight depend on the order alone: each rank's most, over its whole order
	// (the shortcut's jumps skip periods that go through the same counts as the ones run).
	peaks := make([]int, in.Stages)
	for r := range peaks {
		fly, peak := 0, 0
		for _, c := range ops[r*per : (r+1)*per] {
			if c.glen == 0 { // inside a group: counted at its first op
				continue
			}
			peak = max(peak, fly+int(c.up))
			fly += int(c.net)
		}
		peaks[r] = peak
	}
	return compiled{order, ops, peaks}
}

// runFast is run on the compiled order e.ops: the same times. It trusts each rank's order to run
// an op's own forward before its backward and its backward before its W (the built-in orders
// do: TestOrdersOwnFirst), which run checks, so that the steady-state shortcut may leave the
// end times of the ops it skips unwritten (jump).
func (e *engine) runFast() {
	p, end, ops, pos := e.in.Stages, e.end, e.ops, e.pos
	send3, cost3, cov3, per := e.send3, e.cost3, e.cov3, e.per // in registers, not reloaded through e
	// When each rank is free: at the end, when its last op ends.
	free, busies, limit := e.res.Finish, e.res.Busy, e.limit
	queue, queued, head, n := e.queue, e.queued, e.head, e.n // the ring in registers (push)
	push := func(r int) {
		if queued[r] == 0 {
			queued[r] = 1
			tail := head + n
			if tail >= p {
				tail -= p
			}
			queue[tail] = r
			n++
		}
	}
	for n > 0 {
		r := queue[head]
		if head++; head == p {
			head = 0
		}
		n--
		queued[r] = 0
		k, t := pos[r], free[r]
		busy := busies[r]
		seq := ops[r*per : r*per+limit[r]]
	run:
		for ; k < len(seq); k++ {
			c := &seq[k]
			if c.glen > 1 {
				// A group: when its latest input arrived, and its cost (the sum, or with a
				// forward and a backward overlapped, the longer of their compute and their
				// communication), as run takes them.
				g := k + int(c.glen)
				if g > len(seq) { // cut inside the group
					break run
				}
				ready, sum, comm := 0.0, 0.0, 0.0
				for i := k; i < g; i++ {
					y := &seq[i]
					if y.inPos >= 0 {
						if y.inRank >= 0 && pos[y.inRank] <= int(y.inPos) {
							break run
						}
						// No NaN or −0 to care for.
						if rd := end[y.in] + send3[y.cost]; rd > ready {
							ready = rd
						}
					}
					sum += cost3[y.cost]
					if cov3 != nil {
						comm += cov3[y.cost] // a W's is 0
					}
				}
				cost := sum
				if c.paired {
					if cost = sum - comm; comm > cost {
						cost = comm
					}
				}
				start := t
				if ready > t {
					start = ready
				}
				t = start + cost
				busy += cost
				for i := k; i < g; i++ {
					end[seq[i].slot] = t
				}
				k = g - 1
				continue
			}
			start := t // max(t, ready) without the builtin's NaN and ±0 care: costs are validated
			if c.inPos >= 0 {
				if c.inRank >= 0 && pos[c.inRank] <= int(c.inPos) {
					break run
				}
				if ready := end[c.in] + send3[c.cost]; ready > t {
					start = ready
				}
			}
			cost := cost3[c.cost]
			t = start + cost
			busy += cost
			end[c.slot] = t
		}
		if k > pos[r] {
			pos[r], free[r] = k, t
			busies[r] = busy
			// What r just finished can unblock only its neighbours.
			next, prev := r+1, r-1
			if next == p {
				next = 0
			}
			if prev < 0 {
				prev = p - 1
			}
			push(next)
			push(prev)
		}
	}
	e.head, e.n = head, n
}

// useCompiled makes c the order the compiled loop runs.
func (e *engine) useCompiled(c compiled) {
	e.ops, e.peaks = c.ops, c.peaks
}

// resultFast is result for a run of the compiled loop, which counts no forwards in flight: each
// rank's most over its order (compile).
func (e *engine) resultFast() (Result, error) {
	copy(e.res.PeakInFlight, e.peaks)
	return e.result()
}
