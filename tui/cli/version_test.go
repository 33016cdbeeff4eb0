package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionText(t *testing.T) {
	goLine := "built with go1.26.0 for " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	setting := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"release, clean", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"},
			Settings: setting("vcs", "git", "vcs.revision", "0123456789abcdef0123456789abcdef01234567", "vcs.time", "2025-11-30T12:00:00Z", "vcs.modified", "false")},
			"splitscope v1.2.3\nrevision 0123456789abcdef0123456789abcdef01234567 (2025-11-30T12:00:00Z), clean tree\n" + goLine},
		{"pseudo-version, modified", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20251130120000-0123456789ab+dirty"},
			Settings: setting("vcs.revision", "0123456789ab", "vcs.modified", "true")},
			"splitscope v0.0.0-20251130120000-0123456789ab+dirty\nrevision 0123456789ab, with uncommitted changes\n" + goLine},
		{"go run: devel, no VCS", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			"splitscope (devel): a development build, without a module version\n" +
				"revision unknown: built without version control information (go run, go test, -buildvcs=false or no .git)\n" + goLine},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionText(tc.bi, true); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	if got := versionText(nil, false); !strings.HasPrefix(got, "splitscope: version unknown (no build information in this binary)\n") ||
		!strings.Contains(got, runtime.Version()) {
		t.Errorf("no build info: %q", got)
	}
}

// --version and -v print this binary's version (under go test: the test binary's build
// information) on stdout and exit 0, before any scenario is built.
func TestVersionFlag(t *testing.T) {
	want := buildVersion()
	for _, args := range [][]string{{"--version"}, {"-v"}, {"--version", "--gpus", "0"}} {
		code, out, errs := runArgs(t, args...)
		if code != 0 || out != want || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out, errs, want)
		}
	}
	if !strings.HasPrefix(want, "splitscope ") || !strings.Contains(want, "revision ") || !strings.Contains(want, "built with go") {
		t.Errorf("version text %q", want)
	}
}
