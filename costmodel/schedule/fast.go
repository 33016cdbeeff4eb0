package schedule

// The steady-state shortcut's loop runs each order compiled (cop): what the engine's loop
// decodes from an op's ref at every op — where its end time lies, its input's and the send
// before it, its cost — worked out once per shape and kept with the order (sharedOrder).

// cop is one op of a compiled order.
type cop struct {
	slot int32 // its end time's index in engine.end: 3·(micro·nvs + position) + kind
	in   int32 // the end time's index of its input from another position, or −1 when none
	cost int32 // its cost's index in engine.cost3 (kind·nvs + position)
	send int32 // the send before its input, an index in engine.p2p (when in ≥ 0)
	kind Kind
	fuse bool // runs together with the op after it (fuse)
}

// compile is order (p ranks of per ops, for in's shape) compiled.
func compile(in *Train, order []ref) []cop {
	nvs := in.Stages * in.Chunks
	head2, tail2 := 0, nvs-1
	if b := ChainBreak(in.Schedule, in.Stages); b > 0 {
		head2, tail2 = b, b-1
	}
	ops := make([]cop, len(order))
	for i, x := range order {
		vs, k := x.vs(), x.kind()
		slot := 3*(x.micro()*nvs+vs) + int(k)
		c := cop{slot: int32(slot), in: -1, cost: int32(int(k)*nvs + vs), kind: k, fuse: x&fuse != 0}
		switch k {
		case F:
			if vs != 0 && vs != head2 {
				c.in, c.send = int32(slot-3), int32(vs-1)
			}
		case B:
			if vs != nvs-1 && vs != tail2 {
				c.in, c.send = int32(slot+3), int32(vs)
			}
		}
		ops[i] = c
	}
	return ops
}

// runFast is run on the compiled order e.ops: the same times. It trusts each rank's order to run
// an op's own forward before its backward and its backward before its W (the built-in orders
// do: TestOrdersOwnFirst), which run checks, so that the steady-state shortcut may leave the
// end times of the ops it skips unwritten (jump).
func (e *engine) runFast() {
	p, end, ops := e.in.Stages, e.end, e.ops
	p2p, cost3, cov3, per := e.p2p, e.cost3, e.cov3, e.per // in registers, not reloaded through e
	// When each rank is free: at the end, when its last op ends.
	free := e.res.Finish
	for e.n > 0 {
		r := e.queue[e.head]
		if e.head++; e.head == p {
			e.head = 0
		}
		e.n--
		e.queued[r] = 0
		k, t := e.pos[r], free[r]
		busy, fly, peak := e.res.Busy[r], e.inflight[r], e.res.PeakInFlight[r]
		seq := ops[r*per : r*per+e.limit[r]]
	run:
		for ; k < len(seq); k++ {
			c := &seq[k]
			if c.fuse {
				// A group: where it ends, when its latest input arrived, and its cost (the sum,
				// or with a forward and a backward overlapped, the longer of their compute and
				// their communication), as run takes them.
				ready, sum, comm, kinds := 0.0, 0.0, 0.0, 0
				g := k
				for {
					if g == len(seq) { // cut inside the group
						break run
					}
					y := &seq[g]
					g++
					if y.in >= 0 {
						d := end[y.in]
						if d < 0 {
							break run
						}
						if rd := d + p2p[y.send]; rd > ready { // no NaN or −0 to care for
							ready = rd
						}
					}
					sum += cost3[y.cost]
					if y.kind != W {
						kinds |= 1 << y.kind
						if cov3 != nil {
							comm += cov3[y.cost]
						}
					}
					if !y.fuse {
						break
					}
				}
				cost := sum
				if kinds == 3 {
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
				for _, y := range seq[k:g] {
					end[y.slot] = t
					switch y.kind {
					case F:
						fly++
						peak = max(peak, fly)
					case B:
						fly--
					}
				}
				k = g - 1
				continue
			}
			start := t // max(t, ready) without the builtin's NaN and ±0 care: costs are validated
			if c.in >= 0 {
				d := end[c.in]
				if d < 0 {
					break run
				}
				if ready := d + p2p[c.send]; ready > t {
					start = ready
				}
			}
			cost := cost3[c.cost]
			t = start + cost
			busy += cost
			end[c.slot] = t
			switch c.kind {
			case F:
				fly++
				peak = max(peak, fly)
			case B:
				fly--
			}
		}
		if k > e.pos[r] {
			e.pos[r], free[r] = k, t
			e.res.Busy[r], e.inflight[r], e.res.PeakInFlight[r] = busy, fly, peak
			// What r just finished can unblock only its neighbours.
			next, prev := r+1, r-1
			if next == p {
				next = 0
			}
			if prev < 0 {
				prev = p - 1
			}
			e.push(next)
			e.push(prev)
		}
	}
}
