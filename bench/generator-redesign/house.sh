#!/usr/bin/env bash
# The size of the house, for a before/after comparison of a restructuring:
# non-test Rust lines (tests/, examples/, benches/ and fuzz/ left out; a file
# counted up to its first #[cfg(test)]), the files and places that name
# Metric::Dtm/Dtc, and generator/src's lines and files.
#
#   bench/generator-redesign/house.sh CHECKOUT
set -euo pipefail
cd "${1:-.}"
files=$(git ls-files '*.rs' | grep -v -E '(^|/)tests/|^fuzz/|/examples/|/benches/')
lines=0; mf=0; mp=0
for f in $files; do
  n=$(awk '/#\[cfg\(test\)\]/{exit} {c++} END{print c+0}' "$f"); lines=$((lines+n))
  m=$(awk '/#\[cfg\(test\)\]/{exit} {c+=gsub(/Metric::Dt[mc]/,"")} END{print c+0}' "$f")
  if [ "$m" -gt 0 ]; then mf=$((mf+1)); mp=$((mp+m)); fi
done
gen=$(git ls-files 'generator/src/*.rs' | wc -l)
genl=$(cat $(git ls-files 'generator/src/*.rs') | wc -l)
echo "non-test Rust lines (library/binary code, before #[cfg(test)]): $lines"
echo "files naming Metric::Dtm/Dtc: $mf files, $mp places"
echo "generator/src: $genl lines, $gen files"
