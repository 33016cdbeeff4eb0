package assets

import (
	"embed"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The explanations of the Learn tab and the captions of the guided tour, per language:
// text/<lang>.yaml maps keys to text/template sources (nested maps join their keys with dots:
// learn.bubble.train). English is complete; another language may leave keys out, which then
// read in English.
//
//go:embed text/*.yaml
var textFS embed.FS

// DefaultLang is the language of the texts when none is asked for.
const DefaultLang = "en"

// Langs are the languages of assets/text.
var Langs = []string{"en", "fr"}

// ErrUnknownLang is wrapped by Texts for a language that has no texts.
var ErrUnknownLang = errors.New("unknown language")

var textCache sync.Map // lang -> map[string]string

// Texts returns the templates of a language: "en", "fr", or a locale as LANG spells it
// ("fr_FR.UTF-8"); "", "C" and "POSIX" mean English. Each call returns its own copy.
func Texts(lang string) (map[string]string, error) {
	l := NormalizeLang(lang)
	if cached, ok := textCache.Load(l); ok {
		return maps.Clone(cached.(map[string]string)), nil
	}
	known := false
	for _, k := range Langs {
		known = known || k == l
	}
	if !known {
		return nil, fmt.Errorf("assets: texts for %q: %w (known: %s)", lang, ErrUnknownLang, strings.Join(Langs, ", "))
	}
	out, err := readTexts(DefaultLang)
	if err != nil {
		return nil, err
	}
	if l != DefaultLang {
		own, err := readTexts(l)
		if err != nil {
			return nil, err
		}
		maps.Copy(out, own)
	}
	textCache.Store(l, out)
	return maps.Clone(out), nil
}

// NormalizeLang reduces a locale to a language code: "fr_FR.UTF-8" → "fr", "" or "C" → "en".
func NormalizeLang(lang string) string {
	l := strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(l, "_-.@"); i >= 0 {
		l = l[:i]
	}
	if l == "" || l == "c" || l == "posix" {
		return DefaultLang
	}
	return l
}

// TextLang reads only the texts one language's file defines (no English fallback), for a test
// that every language is complete.
func TextLang(lang string) (map[string]string, error) { return readTexts(NormalizeLang(lang)) }

func readTexts(lang string) (map[string]string, error) {
	name := "text/" + lang + ".yaml"
	data, err := textFS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("assets: %s: %w", name, err)
	}
	var tree map[string]any
	if err := yaml.Unmarshal(data, &tree); err != nil {
		return nil, fmt.Errorf("assets: %s: %w", name, err)
	}
	out := map[string]string{}
	if err := flatten("", tree, out); err != nil {
		return nil, fmt.Errorf("assets: %s: %w", name, err)
	}
	return out, nil
}

// flatten joins nested keys with dots; every leaf must be a string.
func flatten(prefix string, tree map[string]any, out map[string]string) error {
	for k, v := range tree {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		switch v := v.(type) {
		case string:
			out[name] = v
		case map[string]any:
			if err := flatten(name, v, out); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: want text or a map, got %T", name, v)
		}
	}
	return nil
}
