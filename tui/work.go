package tui

import (
	"fmt"
	"sync"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/common"
	"github.com/splitscope/splitscope/tui/compare"
)

// The explorer's heavy work, off the update loop: the evaluation of a scenario (the cost model
// with its timeline, the fit search, the knob savings) and its comparison (Search). Each runs
// for the session's newest revision only (Model.evaluateAll, restart); in a served class the
// sessions share places to compute in (WithWorkSlots) and the results themselves (WithMemo).

// evalCmd evaluates the current revision.
func (m *Model) evalCmd() tea.Cmd {
	rev, s, memo, work, newest := m.rev, m.cur, m.memo, m.work, m.newest
	var mm *memoMap[resultMsg]
	if memo != nil {
		mm = &memo.eval
	}
	return func() tea.Msg {
		out, ok := compute(work, newest, rev, mm, s, func() resultMsg { return evaluate(rev, s)().(resultMsg) })
		if !ok {
			return resultMsg{rev: rev, skipped: true}
		}
		out.rev = rev
		return out
	}
}

// cmpCmd compares the current revision's contenders.
func (m *Model) cmpCmd() tea.Cmd {
	rev, s, memo, work, newest := m.rev, m.cur, m.memo, m.work, m.newest
	var mm *memoMap[compareMsg]
	if memo != nil {
		mm = &memo.cmp
	}
	return func() tea.Msg {
		out, ok := compute(work, newest, rev, mm, s, func() compareMsg { return buildCompare(rev, s)().(compareMsg) })
		if !ok {
			return compareMsg{rev: rev, skipped: true}
		}
		out.rev = rev
		return out
	}
}

// seqMsg carries the Compare tab's sequence sweep back to Update, for the scenario key (compare.SeqKey).
type seqMsg struct {
	key     model.Scenario
	skipped bool
	sw      common.SeqSweep
}

// sweepState is the sequence sweeps made in this session, by compare.SeqKey, and the one being
// made; shared by the copies of the Model (Update's own goroutine alone touches it).
type sweepState struct {
	cache   map[model.Scenario]common.SeqSweep
	order   []model.Scenario // oldest first
	running bool
	at      model.Scenario
}

// sweepKeep bounds the sweeps a session keeps.
const sweepKeep = 16

func (s *sweepState) put(k model.Scenario, sw common.SeqSweep) {
	if _, ok := s.cache[k]; !ok {
		s.order = append(s.order, k)
	}
	s.cache[k] = sw
	if len(s.order) > sweepKeep {
		delete(s.cache, s.order[0])
		s.order = s.order[1:]
	}
}

// ensureSweep hands the Compare pane the sequence sweep of the current scenario when its page
// is on (and the scenario trains): kept from before, or computed now in a tea.Cmd, the pane
// saying "sweeping…" meanwhile. One sweep runs at a time; its result starts the next.
func (m *Model) ensureSweep() tea.Cmd {
	if m.tab != TabCompare || !m.compare.SeqView() || !compare.SeqSweepApplies(m.cur) || m.cur.Validate() != nil {
		return nil
	}
	k := compare.SeqKey(m.cur)
	if sw, ok := m.sweep.cache[k]; ok {
		m.compare.SetSweep(sw)
		return nil
	}
	m.compare.InvalidateSweep()
	if m.sweep.running {
		return nil
	}
	m.sweep.running, m.sweep.at = true, k
	rev, s, memo, work, newest := m.rev, m.cur, m.memo, m.work, m.newest
	var mm *memoMap[common.SeqSweep]
	if memo != nil {
		mm = &memo.seq
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = seqMsg{key: k, sw: common.SeqSweep{Err: fmt.Errorf("sweep panicked: %v", r)}}
			}
		}()
		sw, ok := compute(work, newest, rev, mm, k, func() common.SeqSweep { return compare.BuildSeq(s) })
		return seqMsg{key: k, skipped: !ok, sw: sw}
	}
}

// compute is run's result for s: from mm when it holds it (or computes it for another asker),
// else run in one of work's places; false when rev stopped being the newest before it ran.
func compute[V any](work chan struct{}, newest *atomic.Int64, rev int, mm *memoMap[V], s model.Scenario, run func() V) (V, bool) {
	once := func() (V, bool) {
		if !take(work, newest, rev) {
			var zero V
			return zero, false
		}
		defer release(work)
		return run(), true
	}
	if mm == nil {
		return once()
	}
	return mm.get(s, once)
}

// take waits for one of work's places (none to wait for without work) and reports whether rev
// is still the session's newest; a false take holds no place.
func take(work chan struct{}, newest *atomic.Int64, rev int) bool {
	if work == nil {
		return true
	}
	work <- struct{}{}
	if newest.Load() != int64(rev) {
		<-work
		return false
	}
	return true
}

func release(work chan struct{}) {
	if work != nil {
		<-work
	}
}

// Memo holds the evaluations and comparisons of the last memoSize scenarios, for every
// explorer given it (WithMemo): splitscope serve's sessions show the same scenarios (every
// student starts on the server's; every follower goes to the teacher's step), and each would
// compute the same search. One asked for while it computes waits for it, without a work place.
// The results are shared read-only; the explorers and panes only read them.
type Memo struct {
	eval memoMap[resultMsg]
	cmp  memoMap[compareMsg]
	seq  memoMap[common.SeqSweep] // by compare.SeqKey
}

// memoSize bounds a Memo: a lesson's steps and what a class tries around them.
const memoSize = 128

// NewMemo makes an empty Memo.
func NewMemo() *Memo {
	return &Memo{eval: memoMap[resultMsg]{m: map[model.Scenario]*memoEntry[resultMsg]{}},
		cmp: memoMap[compareMsg]{m: map[model.Scenario]*memoEntry[compareMsg]{}},
		seq: memoMap[common.SeqSweep]{m: map[model.Scenario]*memoEntry[common.SeqSweep]{}}}
}

// WithMemo shares results with the other explorers given the same Memo.
func WithMemo(m *Memo) Option { return func(o *options) { o.memo = m } }

type memoEntry[V any] struct {
	done chan struct{}
	v    V
	ok   bool
}

type memoMap[V any] struct {
	mu    sync.Mutex
	m     map[model.Scenario]*memoEntry[V]
	order []model.Scenario // oldest first
}

// get is s's value: kept, being computed (waited for), or computed now by run. A run that
// reports false (its session moved on) is kept by no one: whoever waited for it tries again.
func (mm *memoMap[V]) get(s model.Scenario, run func() (V, bool)) (V, bool) {
	for {
		mm.mu.Lock()
		if e, ok := mm.m[s]; ok {
			mm.mu.Unlock()
			<-e.done
			if e.ok {
				return e.v, true
			}
			continue // its run was skipped: run it here, or wait for whoever does
		}
		e := &memoEntry[V]{done: make(chan struct{})}
		mm.m[s] = e
		mm.order = append(mm.order, s)
		if len(mm.order) > memoSize {
			if old := mm.order[0]; mm.m[old] != e {
				delete(mm.m, old)
			}
			mm.order = mm.order[1:]
		}
		mm.mu.Unlock()
		v, ok := run()
		e.v, e.ok = v, ok
		if !ok {
			mm.mu.Lock()
			if mm.m[s] == e {
				delete(mm.m, s)
			}
			mm.mu.Unlock()
		}
		close(e.done)
		return v, ok
	}
}
