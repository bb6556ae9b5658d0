#!/usr/bin/env bash
# Builds the Debian package from a built tree and checks it as a user would get it:
#   bash scripts/package-check.sh [BUILD_DIR]     (default: build; run after the build)
# 1. the desktop entry and the AppStream metainfo pass desktop-file-validate and
#    `appstreamcli validate --no-net` (each skipped with a message where its validator is missing);
# 2. `cpack -G DEB` (dpkg-shlibdeps fills Depends) writes the .deb; its files are listed and checked;
# 3. the .deb is unpacked with `dpkg -x` into a scratch root, and the installed momentum-lab-cli
#    prints its version and trains the seed-diagram preset, the installed momentum-lab prints its
#    version without a display, and the installed completion is what the installed CLI generates.
# No LD_LIBRARY_PATH: the executables link the project's libraries statically and need only Debian's
# shared libraries, which the package's Depends names.
# The package lands in BUILD_DIR/package/ (kept); the scratch root is removed.
set -euo pipefail
repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$(cd "${1:-$repo_dir/build}" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

metainfo="$(ls "$build_dir"/*.metainfo.xml)"
echo "-- desktop entry and metainfo"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$repo_dir/resources/momentum-lab.desktop"
  echo "desktop-file-validate: ok"
else
  echo "desktop-file-validate missing (Debian package desktop-file-utils): desktop entry not validated"
fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$metainfo"
else
  echo "appstreamcli missing (Debian package appstream): metainfo not validated"
fi

echo "-- cpack -G DEB"
rm -rf "$build_dir/package"
(cd "$build_dir" && cpack -G DEB -B "$build_dir/package" >"$scratch/cpack.log") \
  || { cat "$scratch/cpack.log"; exit 1; }
deb="$(ls "$build_dir"/package/*.deb)"
echo "$(basename "$deb"): $(du -h "$deb" | cut -f1)"
dpkg-deb --field "$deb" Package Version Architecture Depends Recommends Suggests Section
dpkg-deb --contents "$deb" | awk '{print $6}' | grep -v '/$' >"$scratch/files"
missing=0
for file in usr/bin/momentum-lab usr/bin/momentum-lab-cli usr/bin/momentum-lab-bench \
            "usr/share/applications/$(basename "$metainfo" .metainfo.xml).desktop" \
            "usr/share/metainfo/$(basename "$metainfo")" \
            usr/share/icons/hicolor/scalable/apps/momentum-lab.svg \
            usr/share/man/man1/momentum-lab.1.gz usr/share/man/man1/momentum-lab-cli.1.gz \
            usr/share/man/man1/momentum-lab-bench.1.gz \
            usr/share/bash-completion/completions/momentum-lab-cli usr/share/doc/momentum-lab/copyright; do
  grep -qx "./$file" "$scratch/files" || { echo "missing from the package: /$file"; missing=1; }
done
((missing == 0)) || exit 1
grep -q 'libqt6widgets6' <<<"$(dpkg-deb --field "$deb" Depends)" || { echo "Depends lacks Qt (shlibdeps)"; exit 1; }

echo "-- dpkg -x, then the installed executables"
dpkg -x "$deb" "$scratch/root"
bin="$scratch/root/usr/bin"
version="$("$bin/momentum-lab-cli" --version)"
echo "$version"
for page in "$scratch"/root/usr/share/man/man1/*.1.gz; do
  zgrep -q "^\.TH .*\"Momentum Lab ${version#momentum-lab-cli }\"" "$page" || { echo "$page: not of version $version"; exit 1; }
done
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$bin/momentum-lab" --version
"$bin/momentum-lab-cli" train --preset seed-diagram --out "$scratch/seed-diagram"
test -s "$scratch/seed-diagram/metrics.csv" -o -n "$(find "$scratch/seed-diagram" -name metrics.csv -size +0)" \
  || { echo "the installed CLI wrote no metrics.csv"; exit 1; }
"$bin/momentum-lab-cli" completion bash | cmp - "$scratch/root/usr/share/bash-completion/completions/momentum-lab-cli" \
  || { echo "the installed completion differs from the installed CLI's"; exit 1; }
echo "package check: ok ($deb)"
