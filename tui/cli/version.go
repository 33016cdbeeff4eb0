package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// versionText is what --version prints: the module version, the VCS revision it was built
// from (with its time and whether the tree had uncommitted changes) and the Go toolchain, all
// from the build information the Go linker records. A build without a module version (go build
// in a checkout before Go stamped one, go run) says "(devel)"; one without VCS information
// (go run, go test, -buildvcs=false, a tree without .git) says the revision is unknown and why.
func versionText(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return fmt.Sprintf("splitscope: version unknown (no build information in this binary)\nbuilt with %s for %s/%s\n",
			runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	var b strings.Builder
	switch v := bi.Main.Version; v {
	case "", "(devel)":
		b.WriteString("splitscope (devel): a development build, without a module version\n")
	default:
		fmt.Fprintf(&b, "splitscope %s\n", v)
	}
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	if rev := vcs["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "revision %s", rev)
		if t := vcs["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		switch vcs["vcs.modified"] {
		case "true":
			b.WriteString(", with uncommitted changes")
		case "false":
			b.WriteString(", clean tree")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("revision unknown: built without version control information (go run, go test, -buildvcs=false or no .git)\n")
	}
	goVersion := bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	fmt.Fprintf(&b, "built with %s for %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// buildVersion is versionText for this binary.
func buildVersion() string { return versionText(debug.ReadBuildInfo()) }
