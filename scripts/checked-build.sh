#!/usr/bin/env bash
# The checked builds (clang), each in its own build folder, configured in this one place:
#   bash scripts/checked-build.sh asan [TARGET...]   ASan + UBSan (+ float-cast-overflow) and the
#                                                    libFuzzer targets, in build-asan/
#   bash scripts/checked-build.sh tsan [TARGET...]   ThreadSanitizer, in build-tsan/
# Without TARGETs everything is built. -O1 with line tables: readable stack traces at a useful speed;
# assertions stay on (no NDEBUG), so Eigen's index checks run too. MOMENTUM_LAB_CHECKED_BUILD_ROOT
# moves the build folders (default: the repository).
set -euo pipefail

variant="${1:-}"
shift || true
repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${MOMENTUM_LAB_CHECKED_BUILD_ROOT:-$repo_dir}"
case "$variant" in
  asan) options=(-DMOMENTUM_LAB_SANITIZE=address,undefined -DMOMENTUM_LAB_FUZZ=ON) ;;
  tsan) options=(-DMOMENTUM_LAB_SANITIZE=thread) ;;
  *) echo "usage: $0 asan|tsan [TARGET...]" >&2; exit 2 ;;
esac
build_dir="$root/build-$variant"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

cmake -S "$repo_dir" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  "${launcher[@]}" "${options[@]}" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j "${MOMENTUM_LAB_JOBS:-$(nproc)}" "${targets[@]}"
