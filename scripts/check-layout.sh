#!/usr/bin/env bash
# The layout of docs/architecture.md, checked: main.go is the only Go file at the top, and
# dependencies point inward (tui -> costmodel -> model, gpu -> model, assets -> model; only main
# imports the command line, tui/cli; nothing outside tui imports tui; model and costmodel import no
# UI, NVML, assets or os).
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
fail=0
bad() { echo "layout: $*"; fail=1; }

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
        [ -n "$irel" ] && case "$irel" in model|model/*) ;; *) bad "$rel imports $irel";; esac ;;
      costmodel|costmodel/*)
        case "$imp" in os|*charmbracelet*|*go-nvml*) bad "$rel imports $imp";; esac
        [ -n "$irel" ] && case "$irel" in model|model/*|costmodel|costmodel/*) ;; *) bad "$rel imports $irel";; esac ;;
      gpu|gpu/*|assets|assets/*)
        [ -n "$irel" ] && case "$irel" in model|model/*|"${rel%%/*}"|"${rel%%/*}"/*) ;; *) bad "$rel imports $irel";; esac ;;
      "")
        [ -n "$irel" ] && [ "$irel" != "tui/cli" ] && bad "main imports $irel; it calls tui/cli only" ;;
      tui/cli|tui/cli/*) ;;
      tui|tui/*)
        case "$irel" in tui/cli|tui/cli/*) bad "$rel imports $irel; only main does";; esac ;;
    esac
  done
done <<<"$deps"
exit $fail
