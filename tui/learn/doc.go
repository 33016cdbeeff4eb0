package learn

import (
	"fmt"
	"strings"
	"text/template"
	"unicode"
)

// Section is one explanation of the Learn tab.
type Section int

// Sections, in the order the tab shows them.
const (
	SecServe Section = iota // prefill and decode (serving only; a pointer to infer mode in training)
	SecSpec                 // speculative decoding: why it helps at low load and hurts at high (serving only)
	SecBubble
	SecAllReduce
	SecAlgos // which all-reduce algorithm, and why: NVLS, no peer-to-peer, the engine's one-shot
	SecMemory
	SecWinner
	SecExperts // experts across GPUs (a MoE model only)
	SecMLA     // why MLA shrinks the KV cache (an MLA model only)
	numSections
)

var sectionNames = [numSections]string{"serve", "spec", "bubble", "allreduce", "algos", "memory", "winner", "experts", "mla"}

func (s Section) String() string {
	if s < 0 || s >= numSections {
		return "unknown"
	}
	return sectionNames[s]
}

// Block is one section of the tab: its heading and its paragraphs (after the templates ran).
type Block struct {
	Section Section
	Title   string
	Paras   []Para
}

// Para is a paragraph of running text, a bullet item or a formula line that is not wrapped.
type Para struct {
	Kind ParaKind
	Text string
}

// ParaKind tells paragraphs apart.
type ParaKind uint8

// Paragraph kinds: running text, a bullet ("- " in the texts), a formula (indented by two spaces).
const (
	ParaText ParaKind = iota
	ParaBullet
	ParaFormula
)

// funcs are the helpers the texts may call: cap upper-cases the first letter (a contender's name
// starting a sentence), plural picks a word for a count ({{plural .P "stage" "stages"}}).
var funcs = template.FuncMap{
	"cap": func(s string) string {
		r := []rune(s)
		if len(r) > 0 {
			r[0] = unicode.ToUpper(r[0])
		}
		return string(r)
	},
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
}

// Texts are the templates of one language (assets.Texts), parsed on first use.
type Texts struct {
	src    map[string]string
	parsed map[string]*template.Template
	nums   numberFormat // how the language writes numbers (numbers.go)
}

// NewTexts wraps the templates of one language.
func NewTexts(src map[string]string) *Texts {
	return &Texts{src: src, parsed: map[string]*template.Template{}, nums: newNumberFormat(src)}
}

// Exec runs the template named key over data, its numbers written as the language writes them.
func (t *Texts) Exec(key string, data any) (string, error) {
	if t == nil {
		return "", fmt.Errorf("learn: no texts")
	}
	tp, ok := t.parsed[key]
	if !ok {
		src, found := t.src[key]
		if !found {
			return "", fmt.Errorf("learn: no text %q", key)
		}
		var err error
		tp, err = template.New(key).Option("missingkey=error").Funcs(funcs).Parse(src)
		if err != nil {
			return "", fmt.Errorf("learn: text %q: %w", key, err)
		}
		t.parsed[key] = tp
	}
	var b strings.Builder
	if err := tp.Execute(&b, data); err != nil {
		return "", fmt.Errorf("learn: text %q: %w", key, err)
	}
	return t.nums.apply(b.String()), nil
}

// Keys lists the template keys the tab and the tour may use, for a test that both languages
// have them all.
func Keys(tourSteps []string) []string {
	keys := []string{"learn.intro", "learn.stale", "learn.more"}
	for _, s := range sectionNames {
		keys = append(keys, "learn."+s+".title")
	}
	keys = append(keys,
		"learn.bubble.none", "learn.bubble.train", "learn.bubble.infer",
		"learn.allreduce.none", "learn.allreduce.train", "learn.allreduce.infer", "learn.allreduce.how",
		"learn.algos.none", "learn.algos.body",
		"learn.memory.train", "learn.memory.infer",
		"learn.winner.wait", "learn.winner.error", "learn.winner.none", "learn.winner.body",
		"learn.experts.body", "learn.mla.body", "learn.spec.none", "learn.spec.body",
		"tour.evaluating", "tour.predict.title", "tour.predict.alone", "tour.predict.class", "tour.predict.teacher",
		"tour.quiz.choose", "tour.quiz.type", "tour.quiz.wait", "tour.quiz.said", "tour.quiz.model")
	for _, s := range tourSteps {
		keys = append(keys, "tour."+s+".title", "tour."+s+".caption")
	}
	return keys
}

// bodyKey chooses the template of a section for these facts.
func bodyKey(s Section, f *Facts) string {
	mode := "train"
	if f.Infer {
		mode = "infer"
	}
	switch s {
	case SecServe:
		if !f.Infer {
			return "learn.serve.none"
		}
		return "learn.serve.infer"
	case SecBubble:
		if f.P <= 1 {
			return "learn.bubble.none"
		}
		return "learn.bubble." + mode
	case SecAllReduce:
		if f.T <= 1 {
			return "learn.allreduce.none"
		}
		return "learn.allreduce." + mode
	case SecAlgos:
		if !f.Algos.On {
			return "learn.algos.none"
		}
		return "learn.algos.body"
	case SecMemory:
		return "learn.memory." + mode
	case SecSpec:
		if !f.Infer {
			return "learn.spec.none"
		}
		return "learn.spec.body"
	case SecExperts:
		if !f.Experts.On {
			return ""
		}
		return "learn.experts.body"
	case SecMLA:
		if !f.MLA.On {
			return ""
		}
		return "learn.mla.body"
	}
	switch {
	case !f.Cmp.Ready:
		return "learn.winner.wait"
	case f.Cmp.Err != "":
		return "learn.winner.error"
	case f.Cmp.Winner == nil:
		return "learn.winner.none"
	}
	return "learn.winner.body"
}

// Document runs the Learn tab's templates over the facts: the introduction (Section −1), then one
// block per section.
func Document(t *Texts, f Facts) ([]Block, error) {
	var out []Block
	if f.Coll.On {
		how, err := t.Exec("learn.allreduce.how", f)
		if err != nil {
			return nil, err
		}
		f.Coll.How = strings.TrimRight(how, "\n")
	}
	intro, err := t.Exec("learn.intro", f)
	if err != nil {
		return nil, err
	}
	out = append(out, Block{Section: -1, Paras: paragraphs(intro)})
	for s := range numSections {
		key := bodyKey(s, &f)
		if key == "" {
			continue // a section for another kind of model
		}
		title, err := t.Exec("learn."+s.String()+".title", f)
		if err != nil {
			return nil, err
		}
		body, err := t.Exec(key, f)
		if err != nil {
			return nil, err
		}
		out = append(out, Block{Section: s, Title: strings.TrimSpace(title), Paras: paragraphs(body)})
	}
	return out, nil
}

// paragraphs splits a rendered text: blank lines end a paragraph, "- " starts a bullet (whose
// next lines are indented by two spaces), another line indented by two spaces is a formula kept
// as is, and other lines join the paragraph they are in.
func paragraphs(text string) []Para {
	var out []Para
	var cur *Para
	flush := func() {
		if cur != nil && strings.TrimSpace(cur.Text) != "" {
			cur.Text = strings.TrimSpace(cur.Text)
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case cur != nil && cur.Kind == ParaBullet && strings.HasPrefix(line, "  "):
			cur.Text += " " + strings.TrimSpace(line) // a bullet's next line
		case strings.HasPrefix(line, "  "):
			flush()
			out = append(out, Para{Kind: ParaFormula, Text: strings.TrimRight(line[2:], " ")})
		case strings.HasPrefix(line, "- "):
			flush()
			cur = &Para{Kind: ParaBullet, Text: line[2:]}
		case cur == nil:
			cur = &Para{Kind: ParaText, Text: line}
		default:
			cur.Text += " " + strings.TrimSpace(line)
		}
	}
	flush()
	return out
}

// PlainText is a document as text without wrapping, with spaces for the non-breaking ones: what
// a test searches for the Report's numbers.
func PlainText(doc []Block) string {
	var b strings.Builder
	for _, bl := range doc {
		if bl.Title != "" {
			b.WriteString(bl.Title + "\n")
		}
		for _, p := range bl.Paras {
			b.WriteString(p.Text + "\n")
		}
	}
	return strings.ReplaceAll(b.String(), "\u00a0", " ")
}
