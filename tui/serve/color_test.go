package serve

import (
	"bytes"
	"testing"
)

// TestColourPerSession: each session draws with its own terminal's colours: 256 colours for an
// xterm-256color client, none for one that sends NO_COLOR, on the same server at once.
func TestColourPerSession(t *testing.T) {
	_, addr := start(t, nil, nil)
	colour := open(t, addr, nil, "")
	plain := open(t, addr, map[string]string{"NO_COLOR": "1"}, "")
	colour.see(0, "Pipeline", "step ")
	plain.see(0, "Pipeline", "step ")
	raw := func(tm *term) []byte {
		tm.mu.Lock()
		defer tm.mu.Unlock()
		return bytes.Clone(tm.out.Bytes())
	}
	if c := raw(colour); !bytes.Contains(c, []byte("\x1b[38;5;")) {
		t.Errorf("the xterm-256color session drew no 256-colour text")
	}
	if p := raw(plain); bytes.Contains(p, []byte("\x1b[38;")) || bytes.Contains(p, []byte("\x1b[48;")) {
		t.Errorf("the NO_COLOR session drew colours")
	}
	colour.send("q")
	plain.send("q")
	if err := colour.exit(); err != nil {
		t.Errorf("colour session: %v", err)
	}
	if err := plain.exit(); err != nil {
		t.Errorf("plain session: %v", err)
	}
}
