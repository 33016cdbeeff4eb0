package tui

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/splitscope/splitscope/model"
)

// Many asking for one scenario at once compute it once and all get it; a run whose session
// moved on (false) is kept by no one, and one waiting for it computes it instead; the memo
// keeps at most memoSize scenarios.
func TestMemo(t *testing.T) {
	var mm memoMap[int]
	mm.m = map[model.Scenario]*memoEntry[int]{}
	var s model.Scenario
	var runs, asked atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]int, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			asked.Add(1)
			got[i], _ = mm.get(s, func() (int, bool) { runs.Add(1); <-release; return 42, true })
		}()
	}
	for asked.Load() < int32(len(got)) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // all in get: one runs, the others wait for it
	close(release)
	wg.Wait()
	if runs.Load() != 1 {
		t.Errorf("%d runs for one scenario asked 20 times at once", runs.Load())
	}
	for i, v := range got {
		if v != 42 {
			t.Errorf("asker %d got %d", i, v)
		}
	}

	s.Cluster.GPUs = 2
	started, skip := make(chan struct{}), make(chan struct{})
	var second int
	wg.Add(1)
	go func() {
		defer wg.Done()
		mm.get(s, func() (int, bool) { close(started); <-skip; return 0, false })
	}()
	<-started
	wg.Add(1)
	go func() {
		defer wg.Done()
		second, _ = mm.get(s, func() (int, bool) { return 7, true })
	}()
	close(skip)
	wg.Wait()
	if second != 7 {
		t.Errorf("the asker behind a skipped run got %d, want its own 7", second)
	}

	for i := range 3 * memoSize {
		s.Cluster.GPUs = 100 + i
		mm.get(s, func() (int, bool) { return i, true })
	}
	if n := len(mm.m); n > memoSize {
		t.Errorf("%d scenarios kept, want at most %d", n, memoSize)
	}
}
