#!/usr/bin/env bash
# Links the table files of levels 1 to HIGH of folder FROM into folder TO
# (created if missing): the tables of a smaller run, without copying.
#
#   bash bench/search-real/link-levels.sh FROM TO HIGH
set -euo pipefail
from=$1 to=$2 high=$3
mkdir -p "$to"
for n in $(seq 1 "$high"); do
    name=$(printf 'togyz-%02d.tkb' "$n")
    ln -f "$from/$name" "$to/$name"
done
