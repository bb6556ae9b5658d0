#!/usr/bin/env bash
# The command-line conventions of both executables:
#  - --help and --version print to stdout and exit 0; momentum-lab answers them without a display
#    (no DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM: a QApplication would abort there);
#  - bad input exits 2 with the message on stderr;
#  - `momentum-lab-cli completion bash` (what the build installs) completes every command of
#    `momentum-lab-cli --help`, each command's options, every optimizer of `momentum-lab-cli
#    optimizers`, comma lists of them and data sets with a ':' in them, and momentum-lab's options
#    (folders after --follow);
#  - the man pages name every command and momentum-lab's --follow.
# Usage: cli_conventions_test.sh MOMENTUM_LAB MOMENTUM_LAB_CLI MAN_DIR
set -uo pipefail
gui="$1" cli="$2" man_dir="$3"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run NAME EXPECTED_STATUS COMMAND...: keeps stdout/stderr in $scratch/NAME.{out,err}.
run() {
  local name="$1" expected="$2"; shift 2
  "$@" >"$scratch/$name.out" 2>"$scratch/$name.err"
  local status=$?
  [[ $status == "$expected" ]] || fail "$name: exit status $status, expected $expected ($(head -c 300 "$scratch/$name.err"))"
}
no_display=(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM)

for option in --help -h; do
  run "gui$option" 0 "${no_display[@]}" "$gui" "$option"
  grep -q '^Usage: .*momentum-lab' "$scratch/gui$option.out" || fail "momentum-lab $option: no usage on stdout"
  grep -q -- '--version' "$scratch/gui$option.out" || fail "momentum-lab $option: --version not listed"
done
run gui-version 0 "${no_display[@]}" "$gui" --version
grep -Eqx 'momentum-lab [0-9]+\.[0-9]+\.[0-9]+' "$scratch/gui-version.out" || fail "momentum-lab --version: '$(cat "$scratch/gui-version.out")'"
run gui-bad-option 2 env QT_QPA_PLATFORM=offscreen "$gui" --no-such-option
[[ -s $scratch/gui-bad-option.out ]] && fail "momentum-lab --no-such-option wrote to stdout"
grep -q 'no-such-option' "$scratch/gui-bad-option.err" || fail "momentum-lab --no-such-option: stderr does not name it"

for option in --help -h help; do
  run "cli-$option" 0 "$cli" "$option"
  grep -q '^Usage: momentum-lab-cli COMMAND' "$scratch/cli-$option.out" || fail "momentum-lab-cli $option: no usage on stdout"
  [[ -s $scratch/cli-$option.err ]] && fail "momentum-lab-cli $option wrote to stderr"
done
grep -q '^Exit status: 0 done' "$scratch/cli---help.out" || fail "momentum-lab-cli --help: no exit statuses"
run cli-version 0 "$cli" --version
version="$(sed -n 's/^momentum-lab-cli //p' "$scratch/cli-version.out")"
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "momentum-lab-cli --version: '$(cat "$scratch/cli-version.out")'"
[[ "momentum-lab $version" == "$(cat "$scratch/gui-version.out")" ]] || fail "the two executables report different versions"
run cli-no-command 2 "$cli"
run cli-unknown-command 2 "$cli" no-such-command
[[ -s $scratch/cli-unknown-command.out ]] && fail "an unknown command wrote to stdout"

# The commands as --help lists them, the optimizers as `optimizers` lists them.
mapfile -t commands < <(sed -n '/^Commands:/,/^Run /s/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$scratch/cli---help.out")
((${#commands[@]} >= 5)) || fail "momentum-lab-cli --help lists ${#commands[@]} commands: '${commands[*]}'"
run cli-optimizers 0 "$cli" optimizers
mapfile -t optimizers < <(sed -n 's/^\([a-z][a-z0-9-]*\): .*/\1/p' "$scratch/cli-optimizers.out")
((${#optimizers[@]} >= 3)) || fail "momentum-lab-cli optimizers lists ${#optimizers[@]} optimizers"

run completion 0 "$cli" completion bash
# complete LINE: the completion function's replies for LINE typed so far, one a line, sorted.
complete_line() {
  WORDBREAKS=$' \t\n"\'><=;|&(:' bash -c '
    compopt() { :; }  # only valid inside a real completion; the replies are what is checked
    source "$1"
    COMP_WORDBREAKS=$WORDBREAKS COMP_LINE=$2 COMP_POINT=${#2}
    _momentum_lab_cli
    printf "%s\n" "${COMPREPLY[@]}"' complete_line "$scratch/completion.out" "$1" | sort
}
contains() { grep -Fqx -- "$2" <<<"$1"; }
replies="$(complete_line 'momentum-lab-cli ')"
for command in "${commands[@]}" --help --version; do
  contains "$replies" "$command" || fail "completion: command '$command' missing"
done
contains "$replies" completion && fail "completion: the hidden completion command is offered"
replies="$(complete_line 'momentum-lab-cli train --optimizer ')"
for optimizer in "${optimizers[@]}"; do
  contains "$replies" "$optimizer" || fail "completion: optimizer '$optimizer' missing after --optimizer"
done
last="${optimizers[-1]}"
replies="$(complete_line "momentum-lab-cli train --optimizer ${optimizers[0]},${last:0:3}")"
contains "$replies" "${optimizers[0]},$last" || fail "completion: '${optimizers[0]},$last' missing after a comma ($replies)"
# bash splits words at ':', so replies for "toy:s" are what follows the colon.
replies="$(complete_line 'momentum-lab-cli train --data toy:si')"
[[ $replies == sine ]] || fail "completion: --data toy:si gave '$replies', expected 'sine'"
replies="$(complete_line 'momentum-lab-cli train --data ir')"
[[ $replies == iris ]] || fail "completion: --data ir gave '$replies', expected 'iris'"
replies="$(complete_line 'momentum-lab-cli train --preset seed-d')"
[[ $replies == seed-diagram ]] || fail "completion: --preset seed-d gave '$replies'"
replies="$(complete_line 'momentum-lab-cli train --sn')"
contains "$replies" --snapshots-every || fail "completion: train --sn gave '$replies'"
for command in "${commands[@]}"; do
  replies="$(complete_line "momentum-lab-cli $command --")"
  contains "$replies" --help || fail "completion: $command -- does not offer --help"
  # Every option the command's --help lists.
  "$cli" "$command" --help >"$scratch/help-$command.out" 2>&1 || fail "momentum-lab-cli $command --help failed"
  for option in $(grep -Eo '^  (-[a-z?], )?--[a-z0-9-]+' "$scratch/help-$command.out" | grep -Eo -- '--[a-z0-9-]+'); do
    contains "$replies" "$option" || fail "completion: $command does not offer $option"
  done
done

# The desktop app's completion: every option its --help lists, folders after --follow.
complete_app() {
  bash -c '
    compopt() { :; }
    source "$1"
    COMP_WORDS=("${@:2}") COMP_CWORD=$(($# - 2))
    _momentum_lab
    printf "%s\n" "${COMPREPLY[@]}"' complete_app "$scratch/completion.out" momentum-lab "$@" | sort
}
replies="$(complete_app --)"
for option in $(grep -Eo '^  (-[a-z?], )?--[a-z0-9-]+' "$scratch/gui--help.out" | grep -Eo -- '--[a-z0-9-]+'); do
  contains "$replies" "$option" || fail "completion: momentum-lab does not offer $option"
done
mkdir -p "$scratch/runs/run-1"
replies="$(complete_app --follow "$scratch/runs/r")"
[[ $replies == "$scratch/runs/run-1" ]] || fail "completion: momentum-lab --follow gave '$replies', expected a folder"
grep -Fq -- '\-\-follow' "$man_dir/momentum-lab.1" || fail "man page momentum-lab.1: --follow missing"

for command in "${commands[@]}"; do
  grep -Fqx ".B $command" "$man_dir/momentum-lab-cli.1" || fail "man page momentum-lab-cli.1: command '$command' missing"
done

((failures == 0)) || { echo "$failures failure(s)"; exit 1; }
echo "ok: --help/--version of both executables, exit statuses, completion of ${#commands[@]} commands and ${#optimizers[@]} optimizers, man page"
