package cli

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wellFormed fails the test unless data is XML with an <svg> root.
func wellFormed(t *testing.T, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
}

func TestExportSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.svg")
	code, out, errs := runArgs(t, "export", "--svg", path, "--model", "llama-2-7b", "--tp", "2", "--pp", "4", "--batch", "16")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	if out != "" {
		t.Errorf("stdout not empty: %q", out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, data)
	if n := bytes.Count(data, []byte(`<g class="lane" `)); n != 4 {
		t.Errorf("%d lanes, want 4 stages", n)
	}
	if !bytes.Contains(data, []byte("llama-2-7b")) {
		t.Error("the SVG does not name the model")
	}
}

// TestExportSVGTitle checks that a scenario file's title heads the picture.
func TestExportSVGTitle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pcie.svg")
	if code, _, errs := runArgs(t, "export", "--scenario", "tour/pcie", "--svg", path); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, data)
	if !bytes.Contains(data, []byte(`>NVLink against PCIe</text>`)) {
		t.Error("the SVG does not open with the scenario's title")
	}
}

func TestExportMarkdownAndBoth(t *testing.T) {
	dir := t.TempDir()
	svg, md := filepath.Join(dir, "a.svg"), filepath.Join(dir, "a.md")
	code, _, errs := runArgs(t, "export", "--svg", svg, "--markdown", md, "--gpus", "16", "--pp", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, data)
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"# splitscope report", "**TP only**", "**PP only**", "| **what is split** |"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("Markdown lacks %q", w)
		}
	}
}

func TestExportMarkdownStdout(t *testing.T) {
	code, out, errs := runArgs(t, "export", "--markdown", "-", "--mode", "infer")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	if !strings.HasPrefix(out, "# ") || !strings.Contains(out, "TTFT") {
		t.Errorf("stdout is not the inference report:\n%s", out)
	}
}

func TestExportBadInput(t *testing.T) {
	code, out, errs := runArgs(t, "export")
	if code != 2 {
		t.Errorf("no flags: exit %d, want 2", code)
	}
	if out != "" || !strings.Contains(errs, "export needs --svg FILE or --markdown FILE") {
		t.Errorf("no flags: stdout %q, stderr %q", out, errs)
	}
	path := filepath.Join(t.TempDir(), "x.svg")
	if code, _, errs := runArgs(t, "export", "--svg", path, "--tp", "3"); code != 2 || !strings.Contains(errs, "--tp 3: ") {
		t.Errorf("invalid scenario: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a file was written for an invalid scenario")
	}
	// Into a directory that does not exist: bad input (exit 2) naming the flag and the
	// directory, before anything is evaluated.
	tmp := t.TempDir()
	for _, flag := range []string{"--svg", "--markdown"} {
		missing := filepath.Join(tmp, "no", "such")
		code, out, errs := runArgs(t, "export", flag, filepath.Join(missing, "x"))
		if want := flag + " " + filepath.Join(missing, "x") + ": the directory " + missing + " does not exist"; code != 2 || out != "" || !strings.Contains(errs, want) {
			t.Errorf("%s into a missing directory: exit %d, stderr %q; want exit 2 with %q", flag, code, errs, want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "no")); err == nil {
		t.Error("export created the missing directory")
	}
}
