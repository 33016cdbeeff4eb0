package tui

import "testing"

func TestComputeLayout(t *testing.T) {
	for _, tc := range []struct {
		w, h, footer int
		present      bool
		tooSmall     bool
		paramsW      int
	}{
		{79, 24, 2, false, true, 0},
		{80, 23, 2, false, true, 0},
		{80, 24, 2, false, false, 28},
		{120, 40, 2, false, false, 32},
		{160, 48, 5, false, false, 36},
		{200, 60, 2, true, false, 0},
		{80, 24, 10, false, false, 28}, // the tour's caption grown: the body keeps minBodyH lines
		{80, 24, 20, false, false, 28},
	} {
		l := computeLayout(tc.w, tc.h, tc.footer, tc.present)
		if l.TooSmall != tc.tooSmall {
			t.Fatalf("%d×%d: TooSmall %v", tc.w, tc.h, l.TooSmall)
		}
		if l.TooSmall {
			continue
		}
		if l.Params.W != tc.paramsW {
			t.Errorf("%d×%d: params width %d, want %d", tc.w, tc.h, l.Params.W, tc.paramsW)
		}
		// The regions tile the screen: title, strip, body (params | main), footer.
		if l.Title.H+l.Strip.H+l.Main.H+l.Footer.H != tc.h || l.Strip.Y != l.Title.H || l.Main.Y != l.Strip.Y+l.Strip.H ||
			l.Footer.Y != l.Main.Y+l.Main.H {
			t.Errorf("%d×%d: title %+v strip %+v main %+v footer %+v do not tile the height", tc.w, tc.h, l.Title, l.Strip, l.Main, l.Footer)
		}
		if want := 1 + min(tc.h/30, 1); l.Strip.H != want {
			t.Errorf("%d×%d: strip %d lines, want %d", tc.w, tc.h, l.Strip.H, want)
		}
		if l.Params.W+l.Main.W != tc.w || l.Main.X != l.Params.W {
			t.Errorf("%d×%d: params %+v and main %+v do not tile the width", tc.w, tc.h, l.Params, l.Main)
		}
		if l.Footer.H != min(tc.footer, tc.h-l.Title.H-l.Strip.H-minBodyH) {
			t.Errorf("%d×%d: footer %d lines", tc.w, tc.h, l.Footer.H)
		}
		// Content sits inside the main pane's border, under the tab line.
		if l.Content.W != l.Main.W-2 || l.Content.H != l.Main.H-3 || l.Content.Y != l.Tabs.Y+1 {
			t.Errorf("%d×%d: content %+v in main %+v", tc.w, tc.h, l.Content, l.Main)
		}
		if l.Content.H < 8 {
			t.Errorf("%d×%d: only %d content lines", tc.w, tc.h, l.Content.H)
		}
	}
}

func TestTabAt(t *testing.T) {
	titles := []string{"1 Pipeline", "2 Tensor"} // 10 + 2 and 8 + 2 cells
	for _, tc := range []struct{ x, want int }{{0, 0}, {11, 0}, {12, 1}, {21, 1}, {22, -1}} {
		if got := tabAt(titles, tc.x); got != tc.want {
			t.Errorf("tabAt(%d) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

func TestMoveSel(t *testing.T) {
	vis := []int{0, 2, 5}
	for _, tc := range []struct{ sel, dir, want int }{{0, -1, 0}, {0, 1, 2}, {2, 1, 5}, {5, 1, 5}, {5, -1, 2}} {
		if got := moveSel(vis, tc.sel, tc.dir); got != tc.want {
			t.Errorf("moveSel(%d, %+d) = %d, want %d", tc.sel, tc.dir, got, tc.want)
		}
	}
}
