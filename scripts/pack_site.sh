#!/usr/bin/env bash
# pack_site.sh WHEEL_FOLDER OUT_FOLDER: the wheels of WHEEL_FOLDER unpacked into one site folder (a wheel is a zip
# of its installed files; a .data folder's purelib / platlib go into the site, its scripts and headers are left out)
# and written as OUT_FOLDER/site.tar.xz, which scripts/gpu_env.sh extracts into /tmp/site instead of pip-installing
# wheels. xz packs the campaign's wheels (.whl_idx: mlflow-skinny, sqlalchemy, cryptography, ...) into 13.5 MB instead
# of 20.6, which is what lets them travel beside the checkout within the device tool's 64 MiB (call DJ, 2026-12-03).
# Add OUT_FOLDER to .git/info/exclude and carry it.
set -eu
src=${1:?usage: pack_site.sh WHEEL_FOLDER OUT_FOLDER} out=${2:?usage: pack_site.sh WHEEL_FOLDER OUT_FOLDER}
ls "$src"/*.whl >/dev/null 2>&1 || { echo "pack_site.sh: no wheels in $src" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for w in "$src"/*.whl; do python3 -m zipfile -e "$w" "$tmp/site"; done
for lib in "$tmp"/site/*.data/purelib "$tmp"/site/*.data/platlib; do
  if [ -d "$lib" ]; then cp -r "$lib"/. "$tmp/site"/; fi
done
rm -rf "$tmp"/site/*.data
mkdir -p "$out"
tar -C "$tmp/site" -cJf "$out/site.tar.xz" .
echo "$out/site.tar.xz: $(du -b "$out/site.tar.xz" | cut -f1) bytes from $(ls "$src"/*.whl | wc -l) wheels"
