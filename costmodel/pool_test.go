package costmodel

import (
	"reflect"
	"testing"

	"github.com/splitscope/splitscope/model"
)

// TestEvaluateFastPooledPlan: the fast path takes its plan and the schedule engine's buffers
// from pools that other evaluations filled. A report is the same whatever ran before it, and a
// report already returned is not changed by the evaluations after it (it holds none of the
// pooled buffers).
func TestEvaluateFastPooledPlan(t *testing.T) {
	p := presets(t)
	a, _ := p.Model("gpt3-175b")
	small, _ := p.Model("llama-3-8b")
	var scenarios []model.Scenario
	for _, sched := range model.Schedules() {
		s := seleneScenario(t, p, a, 8, 8, 512, 1536)
		s.Layout.Schedule = sched
		if sched == model.Interleaved {
			s.Layout.Chunks = 2
		}
		scenarios = append(scenarios, s)
	}
	// Another shape between them: fewer stages, no sends across nodes, another model.
	o := seleneScenario(t, p, small, 2, 2, 8, 64)
	o.Layout.Schedule = model.ZBV
	scenarios = append(scenarios, o)

	first := make([]Report, len(scenarios))
	kept := make([]Report, len(scenarios))
	for i, s := range scenarios {
		r, err := EvaluateFast(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Layout.Schedule, err)
		}
		first[i] = r
		kept[i] = deepCopyReport(t, r)
	}
	// Again in the reverse order: every pool now holds another scenario's buffers.
	for i := len(scenarios) - 1; i >= 0; i-- {
		r, err := EvaluateFast(scenarios[i])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r, kept[i]) {
			t.Errorf("%s: the fast path's report differs after other evaluations (step %.9g s, first %.9g s)",
				scenarios[i].Layout.Schedule, r.StepTime, kept[i].StepTime)
		}
	}
	for i := range first {
		if !reflect.DeepEqual(first[i], kept[i]) {
			t.Errorf("%s: a report returned earlier was changed by later evaluations", scenarios[i].Layout.Schedule)
		}
	}
}

// deepCopyReport is r through a copy that shares no memory with it.
func deepCopyReport(t *testing.T, r Report) Report {
	t.Helper()
	var out Report
	copyDeep(reflect.ValueOf(&out).Elem(), reflect.ValueOf(r))
	return out
}

func copyDeep(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		n := reflect.New(src.Elem().Type())
		copyDeep(n.Elem(), src.Elem())
		dst.Set(n)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		n := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			copyDeep(n.Index(i), src.Index(i))
		}
		dst.Set(n)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		n := reflect.MakeMapWithSize(src.Type(), src.Len())
		for _, k := range src.MapKeys() {
			v := reflect.New(src.Type().Elem()).Elem()
			copyDeep(v, src.MapIndex(k))
			n.SetMapIndex(k, v)
		}
		dst.Set(n)
	case reflect.Struct:
		for i := range src.NumField() {
			if dst.Field(i).CanSet() {
				copyDeep(dst.Field(i), src.Field(i))
			}
		}
	default:
		if dst.CanSet() {
			dst.Set(src)
		}
	}
}
