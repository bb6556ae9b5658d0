#!/usr/bin/env bash
# Watch the app being driven on a real X server (Xvfb, or your own display with WATCH=1): trains the
# README's nine-run folder with the CLI, opens it in momentum-lab, then xdotool sends seeded random
# clicks, drags and wheel turns over the window (the robot test's monkey, through X11 instead of
# Qt's offscreen platform). A screenshot is taken every 25 events; the app must stay alive.
#   bash scripts/gui-walk.sh [SEED] [EVENTS] [WIDTHxHEIGHT]    (defaults: random, 200, 1366x768)
#   WATCH=1 bash scripts/gui-walk.sh ...                       (on $DISPLAY, so you can watch)
# Needs xvfb, xdotool and imagemagick (Debian packages). Screenshots go to $OUT (default a fresh
# folder under /tmp, printed at the end). Exit status 1 when the app died; the seed replays it.
set -euo pipefail
repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${MOMENTUM_LAB_BUILD_DIR:-$repo_dir/build}"
seed="${1:-$RANDOM}"
events="${2:-200}"
size="${3:-1366x768}"
out="${OUT:-$(mktemp -d /tmp/momentum-lab-walk.XXXXXX)}"
for tool in xdotool import; do
  command -v "$tool" >/dev/null || { echo "gui-walk: $tool is missing (apt-get install xdotool imagemagick)" >&2; exit 2; }
done

folder="$out/nine"
"$build_dir/app/momentum-lab-cli" train --network 2-8-2 --loss cross-entropy --data toy:xor --batch 50 --steps 300 \
  --optimizer sgd,momentum,nesterov,adam,adamw,nero,neuron-mean,rmsprop,adagrad --snapshots-every 50 \
  --out "$folder" >/dev/null

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
if [[ "${WATCH:-0}" != 1 ]]; then
  command -v Xvfb >/dev/null || { echo "gui-walk: Xvfb is missing (apt-get install xvfb)" >&2; exit 2; }
  display=":$((90 + RANDOM % 100))"
  Xvfb "$display" -screen 0 "${size}x24" -nolisten tcp &
  pids+=($!)
  export DISPLAY="$display"
  for _ in $(seq 50); do xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.1; done
fi

# A settings folder of its own: no saved layout or experiment changes what is shown.
export XDG_CONFIG_HOME="$out/config"
"$build_dir/app/momentum-lab" "$folder" >"$out/app.log" 2>&1 &
app=$!
pids+=("$app")
window="$(xdotool search --sync --onlyvisible --name 'Momentum Lab' | head -1)"
xdotool windowactivate --sync "$window" 2>/dev/null || true
sleep 1
read -r width height < <(xdotool getwindowgeometry --shell "$window" | awk -F= '/WIDTH|HEIGHT/ {print $2}' | paste -sd' ')
import -window root "$out/walk-000.png"

echo "gui-walk: seed $seed, $events events on a ${width}x${height} window (replay: bash scripts/gui-walk.sh $seed $events $size)"
RANDOM="$seed"
for ((i = 1; i <= events; i++)); do
  x=$((RANDOM % width)); y=$((RANDOM % height))
  case $((RANDOM % 8)) in
    0 | 1 | 2 | 3) xdotool mousemove --window "$window" "$x" "$y" click 1 ;;
    4) xdotool mousemove --window "$window" "$x" "$y" mousedown 1 mousemove_relative -- $((RANDOM % 80 - 40)) $((RANDOM % 80 - 40)) mouseup 1 ;;
    5) xdotool mousemove --window "$window" "$x" "$y" click $((4 + RANDOM % 2)) ;;  # wheel up or down
    6) xdotool mousemove --window "$window" "$x" "$y" click --repeat 2 1 ;;
    7) xdotool key Escape ;;  # closes a menu or dialog a click opened
  esac
  sleep 0.05
  if ! kill -0 "$app" 2>/dev/null; then
    status=0
    wait "$app" || status=$?
    if ((status == 0)); then  # a click reached File > Quit: a normal end, not a crash
      echo "gui-walk: the app was quit by event $i (a menu's Quit); screenshots in $out"
      exit 0
    fi
    echo "gui-walk: the app died (status $status) at event $i (seed $seed); its log: $out/app.log" >&2
    exit 1
  fi
  ((i % 25 == 0)) && import -window root "$(printf '%s/walk-%03d.png' "$out" "$i")"
done
echo "gui-walk: the app is alive after $events events; screenshots in $out"
