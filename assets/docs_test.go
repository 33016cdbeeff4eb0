package assets

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The repository carries its own docs (docs/*.md): these tests keep every citation of the presets
// and the cost model resolvable there, every link of README.md and docs/ pointing at something
// that exists, and every file free of paths outside the repository. The tag rule is the one
// docs/references.md states under "The tag rule".

// repoRoot is the repository, seen from this package's directory (where go test runs).
const repoRoot = ".."

const referencesFile = "docs/references.md"

var (
	// familyTag is a tag with a suffix: GK-A100, WEB-mullet, WEB-manuals.plus, ISS nccl#1530.
	familyTag = regexp.MustCompile(`\b(?:GK|WEB)-[A-Za-z0-9.]*[A-Za-z0-9]|\bISS [A-Za-z0-9._-]+#[0-9]+`)
	// capsWord is a word of two or more capital letters and nothing else: SN, CAL, GPU.
	capsWord = regexp.MustCompile(`\b[A-Z]{2,}\b`)
	// sectionRef is a section reference such as §4.1; the group is the number.
	sectionRef = regexp.MustCompile(`§\s?([0-9]+(?:\.[0-9]+)?)`)
	// sectionHeading is a heading of references.md that holds a section: "### §4.1 …".
	sectionHeading = regexp.MustCompile(`^#{2,6} §([0-9]+(?:\.[0-9]+)?) `)
	// tagRow is a row of a tag table: "| **SN** | …".
	tagRow = regexp.MustCompile(`^\| \*\*([^*]+)\*\* \|`)
	// mdLink is an inline Markdown link; the group is its target.
	mdLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// codeSpan is inline code.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// repoPath is inline code that looks like a path: assets/presets/*.yaml, .ci/run.
	repoPath = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.*/-]*$`)
	// bracketCitation is a bracketed citation in a comment: [SN §3.3], [ZB, DP].
	bracketCitation = regexp.MustCompile(`\[([^\]]*)\]`)
)

// references is what docs/references.md resolves.
type references struct {
	tags     map[string]bool // tag -> its row has a link
	glossary map[string]bool // capitalised words that are not tags
	sections map[string]bool // "4.1" -> a heading holds §4.1
}

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

func parseReferences(text string) (references, []string) {
	refs := references{tags: map[string]bool{}, glossary: map[string]bool{}, sections: map[string]bool{}}
	var problems []string
	inGlossary := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			inGlossary = line == "## Glossary"
		}
		if m := sectionHeading.FindStringSubmatch(line); m != nil {
			refs.sections[m[1]] = true
		}
		if m := tagRow.FindStringSubmatch(line); m != nil {
			tag := m[1]
			if _, dup := refs.tags[tag]; dup {
				problems = append(problems, "tag "+tag+" has two rows")
			}
			refs.tags[tag] = strings.Contains(line, "https://") || strings.Contains(line, "http://")
			continue
		}
		if inGlossary && strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| Term ") {
			term := strings.TrimSpace(strings.SplitN(line[1:], "|", 2)[0])
			refs.glossary[term] = true
		}
	}
	for term := range refs.glossary {
		if _, ok := refs.tags[term]; ok {
			problems = append(problems, term+" is both a tag and a glossary term")
		}
	}
	return refs, problems
}

func loadReferences(t *testing.T) references {
	t.Helper()
	refs, problems := parseReferences(readRepoFile(t, referencesFile))
	for _, p := range problems {
		t.Errorf("%s: %s", referencesFile, p)
	}
	if len(refs.tags) == 0 || len(refs.glossary) == 0 || len(refs.sections) == 0 {
		t.Fatalf("%s: found %d tags, %d glossary terms, %d sections: the file's format changed",
			referencesFile, len(refs.tags), len(refs.glossary), len(refs.sections))
	}
	return refs
}

// citedTags extracts the source tags of text by the tag rule: family tags first, then words in
// capitals that the glossary does not list.
func citedTags(text string, glossary map[string]bool) []string {
	tags := familyTag.FindAllString(text, -1)
	for _, w := range capsWord.FindAllString(familyTag.ReplaceAllString(text, " "), -1) {
		if !glossary[w] {
			tags = append(tags, w)
		}
	}
	return tags
}

// unresolved lists what text cites that refs does not resolve: tags without a row with a link,
// section references without a heading.
func (refs references) unresolved(text string) []string {
	var out []string
	for _, tag := range citedTags(text, refs.glossary) {
		if !refs.tags[tag] {
			out = append(out, "tag "+tag)
		}
	}
	for _, m := range sectionRef.FindAllStringSubmatch(text, -1) {
		if !refs.sections[m[1]] {
			out = append(out, "§"+m[1])
		}
	}
	return out
}

func TestTagRule(t *testing.T) {
	refs := references{
		tags:     map[string]bool{"SN": true, "GK-A100": true, "WEB-manuals.plus": true, "ISS nccl#1530": true, "NOLINK": false},
		glossary: map[string]bool{"GPU": true, "TDP": true},
		sections: map[string]bool{"4": true, "4.1": true},
	}
	cases := []struct {
		text string
		want []string
	}{
		{"SN NVLink table; GK-A100 (\"400 W\"); WEB-manuals.plus copy; ISS nccl#1530: 42.6 µs", nil},
		{"BF16 on the A100 GPU at 400 W TDP (U, derived; C/D)", nil},
		{"SN §4.1, reference §4", nil},
		{"XQZ measured it", []string{"tag XQZ"}},
		{"GK-Z999 and WEB-nowhere", []string{"tag GK-Z999", "tag WEB-nowhere"}},
		{"ISS nccl#1 and a bare ISS", []string{"tag ISS nccl#1", "tag ISS"}},
		{"NOLINK has a row but no link", []string{"tag NOLINK"}},
		{"see \u00a79.9", []string{"\u00a79.9"}}, // escaped: this file is walked too
	}
	for _, c := range cases {
		if got := refs.unresolved(c.text); !slices.Equal(got, c.want) {
			t.Errorf("unresolved(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestReferencesFormat(t *testing.T) {
	refs := loadReferences(t)
	for tag, linked := range refs.tags {
		if !linked {
			t.Errorf("%s: tag %s has no link in its row", referencesFile, tag)
		}
	}
	// The rule must find tags in practice, not only skip everything.
	if got := citedTags("SN, CAL and GK-H100 (GPU)", refs.glossary); !slices.Equal(got, []string{"GK-H100", "SN", "CAL"}) {
		t.Errorf("citedTags = %q, want [GK-H100 SN CAL]", got)
	}
}

// TestPresetSourcesResolve: every tag and section a preset's source field cites resolves in
// docs/references.md, with a link.
func TestPresetSourcesResolve(t *testing.T) {
	refs := loadReferences(t)
	p := mustLoad(t)
	check := func(file, id, source string) {
		for _, u := range refs.unresolved(source) {
			t.Errorf("%s %s: source cites %s, which %s does not resolve (add a row with a link to its §0 tables, a heading, or the word to its glossary)",
				file, id, u, referencesFile)
		}
	}
	for _, m := range p.Models {
		check("assets/"+ModelsFile, m.ID, m.Source)
	}
	for _, g := range p.GPUs {
		check("assets/"+GPUsFile, g.ID, g.Source)
	}
	for _, l := range p.Links {
		check("assets/"+LinksFile, l.ID, l.Source)
	}
}

// TestCodeCitationsResolve: bracketed citations in the comments of the cost model and the domain
// types ([SN §3.3], [ZB, DP], [reference §4.1]) resolve.
func TestCodeCitationsResolve(t *testing.T) {
	refs := loadReferences(t)
	n := 0
	for _, dir := range []string{"costmodel", "model"} {
		walkRepo(t, dir, func(rel string, data []byte) {
			if !strings.HasSuffix(rel, ".go") {
				return
			}
			forLines(data, func(line int, text string) {
				i := strings.Index(text, "//")
				if i < 0 {
					return
				}
				for _, m := range bracketCitation.FindAllStringSubmatch(text[i:], -1) {
					n++
					for _, u := range refs.unresolved(m[1]) {
						t.Errorf("%s:%d: [%s] cites %s, which %s does not resolve", rel, line, m[1], u, referencesFile)
					}
				}
			})
		})
	}
	if n == 0 {
		t.Fatal("no bracketed comment found in costmodel/ and model/: the walk is broken")
	}
}

// TestFamilyTagsResolve: the tags that cannot be mistaken for ordinary words (GK-…, WEB-…,
// ISS repo#n) resolve wherever they appear in the embedded data (presets with their comments,
// scenarios, teaching texts) and in the code of the cost model and the domain types. Words in
// capitals are only read as tags in source fields and bracketed citations: elsewhere TP, PP and
// DP are the parallelisms.
func TestFamilyTagsResolve(t *testing.T) {
	refs := loadReferences(t)
	n := 0
	for _, dir := range []string{"assets", "costmodel", "model"} {
		walkRepo(t, dir, func(rel string, data []byte) {
			if ext := filepath.Ext(rel); ext != ".yaml" && ext != ".go" || strings.HasSuffix(rel, "docs_test.go") {
				return
			}
			forLines(data, func(line int, text string) {
				for _, tag := range familyTag.FindAllString(text, -1) {
					n++
					if !refs.tags[tag] {
						t.Errorf("%s:%d cites %s, which %s does not resolve", rel, line, tag, referencesFile)
					}
				}
			})
		})
	}
	if n == 0 {
		t.Fatal("no GK-, WEB- or ISS tag found: the walk is broken")
	}
}

// TestSectionReferencesResolve: every §N.M anywhere in the code, the presets, scenarios, texts,
// scripts and docs is a section of docs/references.md.
func TestSectionReferencesResolve(t *testing.T) {
	refs := loadReferences(t)
	n := 0
	walkRepo(t, ".", func(rel string, data []byte) {
		switch filepath.Ext(rel) {
		case ".go", ".yaml", ".yml", ".md", ".sh":
		default:
			return
		}
		forLines(data, func(line int, text string) {
			for _, m := range sectionRef.FindAllStringSubmatch(text, -1) {
				n++
				if !refs.sections[m[1]] {
					t.Errorf("%s:%d: §%s is not a section of %s", rel, line, m[1], referencesFile)
				}
			}
		})
	})
	if n == 0 {
		t.Fatal("no § reference found in the repository: the walk is broken")
	}
}

// TestDocLinksResolve: every relative link of README.md and docs/*.md names a file or folder of
// the repository (and a heading, for an anchor), and every path they quote as inline code under
// one of the repository's top-level folders exists. references.md quotes paths inside other
// repositories, so only its links are checked.
func TestDocLinksResolve(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(docs) < 3 {
		t.Fatalf("docs/*.md: %d files (%v); want architecture.md, costmodel.md, references.md", len(docs), err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		rel, _ := filepath.Rel(repoRoot, d)
		files = append(files, filepath.ToSlash(rel))
	}
	for _, want := range []string{"docs/architecture.md", "docs/costmodel.md", referencesFile} {
		if !slices.Contains(files, want) {
			t.Errorf("%s is missing", want)
		}
	}
	for _, rel := range files {
		prose := stripFences(readRepoFile(t, rel))
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(prose, ""), -1) {
			if msg := checkLink(t, rel, m[1]); msg != "" {
				t.Errorf("%s: link %s: %s", rel, m[1], msg)
			}
		}
		if rel == referencesFile {
			continue
		}
		for _, span := range codeSpan.FindAllString(prose, -1) {
			p := strings.Trim(span, "`")
			if !repoPath.MatchString(p) || !isTopDir(strings.SplitN(p, "/", 2)[0]) {
				continue
			}
			if matches, _ := filepath.Glob(filepath.Join(repoRoot, filepath.FromSlash(strings.TrimSuffix(p, "/")))); len(matches) == 0 {
				t.Errorf("%s: `%s` names nothing in the repository", rel, p)
			}
		}
	}
}

// checkLink says what is wrong with a link target in file rel, or "".
func checkLink(t *testing.T, rel, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	dest := rel
	if path != "" {
		dest = filepath.ToSlash(filepath.Join(filepath.Dir(rel), path))
		if strings.HasPrefix(dest, "../") || filepath.IsAbs(path) {
			return "points outside the repository"
		}
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(dest))); err != nil {
			return "no such file in the repository"
		}
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(dest, ".md") {
		return "an anchor into a file that is not Markdown"
	}
	if !slices.Contains(headingSlugs(readRepoFile(t, dest)), anchor) {
		return "no heading of " + dest + " has the anchor #" + anchor
	}
	return ""
}

// headingSlugs lists the anchors GitHub gives the headings of a Markdown text: lower case,
// letters, digits, '-' and '_' kept, spaces to '-', everything else dropped; a repeated anchor
// gets -1, -2, ….
func headingSlugs(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range strings.Split(stripFences(text), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimLeft(line, "#")
		if h == "" || h[0] != ' ' {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(h)) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		s := b.String()
		if k := seen[s]; k > 0 {
			seen[s]++
			s += "-" + strconv.Itoa(k)
		} else {
			seen[s] = 1
		}
		out = append(out, s)
	}
	return out
}

func TestHeadingSlugs(t *testing.T) {
	got := headingSlugs("# References\n## §4.1 Narayanan et al. 2021, Table 1\n```\n# not a heading\n```\n### §3.3 Message-size sweep, 8×A100\n## Notes\n## Notes\n#hashtag\n")
	want := []string{"references", "41-narayanan-et-al-2021-table-1", "33-message-size-sweep-8a100", "notes", "notes-1"}
	if !slices.Equal(got, want) {
		t.Errorf("headingSlugs = %q, want %q", got, want)
	}
}

// stripFences blanks fenced code blocks, keeping the line count.
func stripFences(text string) string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

func isTopDir(name string) bool {
	fi, err := os.Stat(filepath.Join(repoRoot, name))
	return err == nil && fi.IsDir() && name != "." && name != ".."
}

// TestNoPathOutsideRepository: no file refers to the design folder the project was built from,
// which readers of the repository do not have.
func TestNoPathOutsideRepository(t *testing.T) {
	needles := []string{"shared" + "/", "work" + "/" + "shared"}
	n := 0
	walkRepo(t, ".", func(rel string, data []byte) {
		n++
		forLines(data, func(line int, text string) {
			for _, needle := range needles {
				if strings.Contains(text, needle) {
					t.Errorf("%s:%d refers to %q, outside the repository: %s", rel, line, needle, strings.TrimSpace(text))
				}
			}
		})
	})
	if n < 50 {
		t.Fatalf("walked %d text files: the walk is broken", n)
	}
}

// walkRepo calls fn with every text file under dir (relative to the repository), skipping .git
// and binary files (a NUL byte in the first 8000 bytes).
func walkRepo(t *testing.T, dir string, fn func(rel string, data []byte)) {
	t.Helper()
	root := filepath.Join(repoRoot, dir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			return nil
		}
		rel, err := filepath.Rel(repoRoot, path)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
}

// forLines calls fn with each line of data and its number (from 1).
func forLines(data []byte, fn func(line int, text string)) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for i := 1; sc.Scan(); i++ {
		fn(i, sc.Text())
	}
}
