package assets

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"text/template"
)

// textFuncs stand for the helpers tui/learn gives the templates (cap, plural): parsing needs
// their names only.
var textFuncs = template.FuncMap{
	"cap":    func(s string) string { return s },
	"plural": func(n int, one, many string) string { return many },
}

// Every language's file defines exactly the keys English defines, and every text parses as a
// template.
func TestTextsCompleteAndParse(t *testing.T) {
	en, err := TextLang("en")
	if err != nil {
		t.Fatal(err)
	}
	if len(en) < 20 {
		t.Fatalf("only %d English texts", len(en))
	}
	for _, lang := range Langs {
		own, err := TextLang(lang)
		if err != nil {
			t.Fatal(err)
		}
		for k := range en {
			if _, ok := own[k]; !ok {
				t.Errorf("%s lacks %s", lang, k)
			}
		}
		for k, v := range own {
			if _, ok := en[k]; !ok {
				t.Errorf("%s has %s, which English does not", lang, k)
			}
			if _, err := template.New(k).Funcs(textFuncs).Parse(v); err != nil {
				t.Errorf("%s: %v", lang, err)
			}
		}
	}
}

func TestTextsLanguages(t *testing.T) {
	en, err := Texts("")
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "C", "POSIX", "en_GB.UTF-8"} {
		got, err := Texts(lang)
		if err != nil || !maps.Equal(got, en) {
			t.Errorf("Texts(%q): not English (%v)", lang, err)
		}
	}
	fr, err := Texts("fr_FR.UTF-8")
	if err != nil {
		t.Fatal(err)
	}
	if fr["learn.bubble.title"] == en["learn.bubble.title"] {
		t.Error("French bubble title is the English one")
	}
	if _, err := Texts("de"); !errors.Is(err, ErrUnknownLang) {
		t.Errorf("Texts(de): %v, want ErrUnknownLang", err)
	}
	// Callers get their own copy.
	fr["learn.bubble.title"] = "x"
	again, _ := Texts("fr")
	if again["learn.bubble.title"] == "x" {
		t.Error("Texts returned a shared map")
	}
	for in, want := range map[string]string{"fr_FR.UTF-8": "fr", "FR": "fr", "en-US": "en", "": "en", "C": "en", "de_DE@euro": "de"} {
		if got := NormalizeLang(in); got != want {
			t.Errorf("NormalizeLang(%q) = %q, want %q", in, got, want)
		}
	}
	if !slices.Contains(Langs, DefaultLang) {
		t.Error("the default language is not listed")
	}
}
