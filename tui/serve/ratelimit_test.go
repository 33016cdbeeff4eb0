package serve

import (
	"bytes"
	"strings"
	"testing"
)

// TestRateLimitPerAddress: sessions from one address past the burst (40 at once, then one a
// second) are refused with the limiter's line and exit 1, before anything else runs; the
// first ones are not. Sessions without a PTY are used: each allowed one is then refused by
// activeterm with its own line, so the two refusals tell which check ended the session.
func TestRateLimitPerAddress(t *testing.T) {
	_, addr := start(t, nil, nil)
	c, err := dial(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const tries = connBurst + 10
	limited, firstLimited := 0, -1
	for i := range tries {
		s, err := c.NewSession()
		if err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		var stderr, stdout bytes.Buffer
		s.Stderr, s.Stdout = &stderr, &stdout
		err = s.Run("")
		_ = s.Close()
		if err == nil {
			t.Fatalf("session %d without a PTY ran", i)
		}
		if strings.Contains(stderr.String()+stdout.String(), "rate limit exceeded") {
			limited++
			if firstLimited < 0 {
				firstLimited = i
			}
		}
	}
	t.Logf("%d of %d sessions rate-limited, the first at %d", limited, tries, firstLimited)
	// The bucket refills at one a second: a slow run may let a few more through, never fewer
	// than the burst.
	if limited == 0 || firstLimited < connBurst {
		t.Errorf("%d of %d sessions rate-limited, the first at %d; want some, none before %d", limited, tries, firstLimited, connBurst)
	}
}
