#!/usr/bin/env bash
# Smoke test of the explorer in a real terminal: build it, run it in a detached tmux session at
# 120×40, tab through every tab (the Box tab shows the no-GPU panel on a machine without NVIDIA
# GPUs; the Learn tab after it), ask "why?", start the guided tour, step and leave it, change the
# GPU count, open the help, resize to 80×24, quit; then, where an ssh client is installed, a
# served session (splitscope serve on loopback): open, s shows the scenario, q; assert on what the screen
# shows at each step, that the process exited 0 and left the alternate screen.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "tmux-smoke: tmux is not installed"; exit 1; }

work=$(mktemp -d)
sock="$work/tmux.sock"
session=smoke
bin="$work/splitscope"
t() { tmux -S "$sock" "$@"; }
cleanup() { t kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$bin" .

screen() { t capture-pane -p -t "$session"; }
# expect TEXT: wait up to 15 s for TEXT on the screen.
expect() {
  local deadline=$((SECONDS + 15))
  while ((SECONDS < deadline)); do
    if screen | grep -qF -- "$1"; then echo "  ok: $1"; return 0; fi
    sleep 0.2
  done
  echo "tmux-smoke: never saw '$1'; the screen was:"; screen; exit 1
}
# expect_any TEXT...: wait up to 15 s for any of the TEXTs on the screen.
expect_any() {
  local deadline=$((SECONDS + 15)) want
  while ((SECONDS < deadline)); do
    for want in "$@"; do
      if screen | grep -qF -- "$want"; then echo "  ok: $want"; return 0; fi
    done
    sleep 0.2
  done
  echo "tmux-smoke: never saw any of: $*; the screen was:"; screen; exit 1
}
keys() { t send-keys -t "$session" "$@"; }

echo "== explorer at 120×40"
t new-session -d -s "$session" -x 120 -y 40 \
  "TERM=xterm-256color '$bin'; echo \"EXIT=\$?\" > '$work/exit'; sleep 60"
expect "1 Pipeline"
expect "step "
expect "closed form"

echo "== tabs"
keys Tab;  expect "One layer on one GPU"
keys Tab;  expect "TP only"
keys Tab;  expect "fullest: stage"
# The Box tab: the no-GPU panel here, the GPU table on a machine with NVIDIA GPUs.
keys Tab;  expect_any "No NVIDIA GPU here" "● live, every 1 s"
keys Tab;  expect "3 · The pipeline bubble"
keys Tab;  expect "closed form"

echo "== why? and the guided tour"
keys w;      expect "lines "
keys w;      expect "s per step)"
keys g;      expect "tour 1/"
expect "One GPU, and a model too big for it"
keys Right;  expect "tour 2/"
keys Left;   expect "tour 1/"
keys Escape; expect "↑/↓ select"
expect "32× h100-sxm"
expect "TP 8 inside each node"
expect "PP 4 across 4 nodes"

echo "== raise the GPU count"
for _ in 1 2 3 4 5 6; do keys Down; done
keys Right
expect "64× h100-sxm"
expect "also moved: DP 1 → 2"

echo "== help"
keys '?'; expect "All keys"
keys '?'

echo "== resize to 80×24"
t resize-window -t "$session" -x 80 -y 24
expect "Pipeline  Tensor  Compare  Memory  Box  Learn" # six tabs: no numbers at this width
wide=$(screen | LC_ALL=C.UTF-8 wc -L)
if ((wide > 80)); then echo "tmux-smoke: a line is $wide columns wide at 80×24"; screen; exit 1; fi
echo "  ok: every line fits 80 columns"

echo "== too small"
t resize-window -t "$session" -x 70 -y 20
expect "needs 80×24 or more"
t resize-window -t "$session" -x 120 -y 40
expect "1 Pipeline"

echo "== quit"
keys q
deadline=$((SECONDS + 10))
until [ -s "$work/exit" ] || ((SECONDS > deadline)); do sleep 0.2; done
status=$(cat "$work/exit" 2>/dev/null || echo "EXIT=missing")
[ "$status" = "EXIT=0" ] || { echo "tmux-smoke: the explorer ended with $status"; screen; exit 1; }
echo "  ok: exited 0"
alt=$(t display-message -p -t "$session" '#{alternate_on}')
[ "$alt" = "0" ] || { echo "tmux-smoke: the terminal is still on the alternate screen"; exit 1; }
echo "  ok: left the alternate screen"
echo "== a served session over the system ssh client (splitscope serve)"
if command -v ssh >/dev/null; then
  mkdir -p "$work/home"
  HOME="$work/home" XDG_STATE_HOME="" "$bin" serve --listen 127.0.0.1:0 >"$work/serve.log" 2>&1 &
  srv=$!
  port=""
  deadline=$((SECONDS + 15))
  while [ -z "$port" ] && ((SECONDS < deadline)); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/serve.log" | head -n 1)
    sleep 0.2
  done
  [ -n "$port" ] || { echo "tmux-smoke: serve did not start:"; cat "$work/serve.log"; kill "$srv" 2>/dev/null; exit 1; }
  echo "  ok: serving on port $port"
  session=served
  t new-session -d -s "$session" -x 80 -y 24 \
    "ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -p $port student@127.0.0.1; echo \"EXIT=\$?\" > '$work/sexit'; sleep 60"
  expect "Pipeline  Tensor  Compare"
  expect "step "
  keys s; expect "Scenario file"
  keys Escape; expect "step "
  keys q
  deadline=$((SECONDS + 10))
  until [ -s "$work/sexit" ] || ((SECONDS > deadline)); do sleep 0.2; done
  status=$(cat "$work/sexit" 2>/dev/null || echo "EXIT=missing")
  kill "$srv" 2>/dev/null || true
  wait "$srv" 2>/dev/null || true
  [ "$status" = "EXIT=0" ] || { echo "tmux-smoke: the served session ended with $status"; screen; exit 1; }
  echo "  ok: the session ended 0"
  if [ -n "$(find "$work/home" -type f ! -name 'ssh_host_*')" ]; then
    echo "tmux-smoke: the served session wrote files on the server:"; find "$work/home" -type f; exit 1
  fi
  echo "  ok: nothing written on the server but its host key"
else
  echo "  skipped: no ssh client here"
fi
echo "tmux-smoke: passed"
