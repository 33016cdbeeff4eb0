package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
	"github.com/splitscope/splitscope/tui/learn"
	"github.com/splitscope/splitscope/tui/theme"
)

// The explorer on a MoE model at 80×24 and 160×48: DeepSeek-V3 served on 8 H200s as the tour's
// experts step has it (attention DP 8, EP 8), each new panel: the panel's architecture rows
// beside the Memory tab's weights by part and latent KV, the Tensor tab's all-to-all, the
// Compare tab's EP column, and the Learn tab's two sections (English and French documents).
func TestGoldenMoE(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	f, err := assets.TourScenario("experts", p)
	if err != nil {
		t.Fatal(err)
	}
	use := func(s *model.Scenario) { *s = f.Scenario }
	for _, size := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		for _, tab := range []struct {
			i    int
			name string
		}{{TabTensor, "tensor"}, {TabCompare, "compare"}, {TabMemory, "memory"}, {TabLearn, "learn"}} {
			t.Run(fmt.Sprintf("%s_%dx%d", tab.name, size.w, size.h), func(t *testing.T) {
				m := ready(t, size.w, size.h, use)
				next, _ := m.setTab(tab.i)
				m = next.(Model)
				if tab.i == TabLearn {
					m.learn.ScrollTo(learn.SecExperts)
				}
				v := m.View()
				checkFrame(t, v, size.w, size.h)
				for _, w := range []string{"top-8 of 256", "MLA 512+64"} {
					if !strings.Contains(v, w) {
						t.Errorf("the panel lacks %q", w)
					}
				}
				golden.RequireEqual(t, []byte(v))
			})
		}
	}
	for _, lang := range assets.Langs {
		t.Run(lang+"_document", func(t *testing.T) {
			m := readyLang(t, 100, 30, lang, use)
			d := learn.New(theme.Default(), mustTexts(t, lang))
			d.SetSize(m.lay.Content.W, 400)
			d.SetData(m.data)
			d.SetCompare(m.cmp)
			v := strings.TrimRight(d.View(), "\n ")
			golden.RequireEqual(t, []byte(v+"\n"))
		})
	}
}
