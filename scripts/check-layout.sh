#!/usr/bin/env bash
# The layout of docs/architecture.md, checked: main.go is the only Go file at the top, and
# dependencies point inward (tui -> costmodel -> model, gpu -> model, assets -> model; only main
# imports the command line, tui/cli; nothing outside tui imports tui; model and costmodel import no
# UI, NVML, assets or os), model and costmodel read no files, not even through a reader: readers of
# files and of other tools' output (nccl-tests logs, YAML) live in assets, which hands them plain
# data in model's types (so neither imports io, bufio, embed, regexp, path, encoding/* or a YAML
# package), and costmodel's root holds the engine only: the published and measured
# figures and the checks on them live in costmodel/published, which may import the engine and is
# imported by no other part of costmodel (published -> costmodel, never back); the layer kinds
# (parameters, FLOPs, bytes and KV per kind) are costmodel/arch, which imports model alone. The explorer's
# classroom (class, quiz, tally, reveal) is one room, tui/classroom: tui imports it, and it imports
# only model, costmodel, assets, tui/common and tui/theme (never tui, tui/cli or another tab).
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
fail=0
bad() { echo "layout: $*"; fail=1; }
# reader PKG IMP: model and costmodel read no files and parse no other tool's output; assets does.
reader() {
  case "$2" in io|io/*|bufio|embed|regexp|path|path/*|encoding/*|*yaml*)
    bad "$1 imports $2: reading files and other tools' output (logs, YAML) is assets' work; it hands model's types to the engine";; esac
}

top=$(ls -- *.go)
[ "$top" = "main.go" ] || bad "the top level holds $(echo $top | tr '\n' ' '); only main.go belongs there"

# Every package with what its code imports (tests may use more: fixtures from assets, files), one
# line each: "pkg imp imp ...".
deps=$(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...)
while read -r pkg imports; do
  rel=${pkg#"$mod"}; rel=${rel#/}
  for imp in $imports; do
    case "$imp" in "$mod"/*|"$mod") irel=${imp#"$mod"}; irel=${irel#/} ;; *) irel="";; esac
    case "$rel" in
      model|model/*)
        case "$imp" in os|*charmbracelet*|*go-nvml*) bad "$rel imports $imp";; esac
        reader "$rel" "$imp"
        [ -n "$irel" ] && case "$irel" in model|model/*) ;; *) bad "$rel imports $irel";; esac ;;
      costmodel|costmodel/*)
        case "$imp" in os|*charmbracelet*|*go-nvml*) bad "$rel imports $imp";; esac
        reader "$rel" "$imp"
        case "$rel:$irel" in costmodel/published*:*) ;; *:costmodel/published|*:costmodel/published/*)
          bad "$rel imports $irel; the engine does not read the published figures, they read it";; esac
        # The layer kinds' room counts; it times nothing: it takes model alone.
        case "$rel" in costmodel/arch|costmodel/arch/*)
          [ -n "$irel" ] && case "$irel" in model|model/*) ;; *) bad "$rel imports $irel; the layer kinds (costmodel/arch) take model alone";; esac ;; esac
        [ -n "$irel" ] && case "$irel" in model|model/*|costmodel|costmodel/*) ;; *) bad "$rel imports $irel";; esac ;;
      gpu|gpu/*|assets|assets/*)
        [ -n "$irel" ] && case "$irel" in model|model/*|"${rel%%/*}"|"${rel%%/*}"/*) ;; *) bad "$rel imports $irel";; esac ;;
      "")
        [ -n "$irel" ] && [ "$irel" != "tui/cli" ] && bad "main imports $irel; it calls tui/cli only" ;;
      tui/cli|tui/cli/*) ;;
      tui/classroom|tui/classroom/*)
        [ -n "$irel" ] && case "$irel" in model|model/*|costmodel|costmodel/*|assets|assets/*|tui/common|tui/theme|tui/classroom|tui/classroom/*) ;;
          *) bad "$rel imports $irel; the classroom takes model, costmodel, assets, tui/common and tui/theme only";; esac ;;
      tui|tui/*)
        case "$irel" in tui/cli|tui/cli/*) bad "$rel imports $irel; only main does";; esac ;;
    esac
  done
done <<<"$deps"

# costmodel's root is the engine. Published or measured figures and their checks go in
# costmodel/published: no root file (tests included) is named for them (*validation*, *data*,
# *runs*, *sweeps*, published*, measured*), and none declares a Published*/Measured* table, a
# Check or a Validate. Test fixtures (helpers_test.go) build scenarios, they carry no figures.
for f in costmodel/*.go; do
  b=${f#costmodel/}
  case "$b" in *validation*|*data*|*runs*|*sweeps*|published*|measured*)
    bad "$f: published figures and their checks live in costmodel/published, not the engine's root";; esac
  if grep -nE '^(var|func) (Published|Measured)[A-Za-z0-9_]*|^type Check struct|^func Validate\(' "$f" >/dev/null; then
    bad "$f declares $(grep -oE '^(var|func) (Published|Measured)[A-Za-z0-9_]*|^type Check struct|^func Validate\(' "$f" | head -1): that belongs in costmodel/published"
  fi
done
# The classroom's messages and pure logic live in tui/classroom, not beside the explorer's Model:
# no file of tui's root declares them again (tui names the messages with aliases, "X = classroom.X").
for f in tui/*.go; do
  if grep -nE '^(type (Lead|LeadMsg|ClassMsg|Follow|Answer|Reveal|RevealMsg|TallyMsg) [^=]|func (questionValue|fmtQuantity|median)\()' "$f" >/dev/null; then
    bad "$f declares $(grep -oE '^(type|func) [A-Za-z]+' <(grep -E '^(type (Lead|LeadMsg|ClassMsg|Follow|Answer|Reveal|RevealMsg|TallyMsg) [^=]|func (questionValue|fmtQuantity|median)\()' "$f") | head -1): the classroom's logic lives in tui/classroom"
  fi
done
exit $fail
