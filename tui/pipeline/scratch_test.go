package pipeline

import (
	"fmt"
	"testing"
)

func TestScratch(t *testing.T) {
	for _, f := range fixtures {
		for _, sz := range [][2]int{{56, 16}, {120, 34}} {
			m := newPane(t, evaluate(t, f.edit), sz[0], sz[1])
			m.seek(m.ix.span * 0.45)
			m.playing = false
			fmt.Printf("=== %s %dx%d\n%s\n", f.name, sz[0], sz[1], m.View())
		}
	}
}
