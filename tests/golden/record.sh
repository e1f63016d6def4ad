#!/bin/sh
# Records the golden traces that tests/sim/golden-traces-test.cc holds every change to:
# 3 rounds of every shipped scenario, seed as in the file. Rerun only for a change that is
# meant to change behaviour, and say why in its commit.
#   sh tests/golden/record.sh build/fedran
set -eu
fedran=${1:?usage: record.sh path/to/fedran}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for scenario in scenarios/*.json; do
    name=$(basename "$scenario" .json)
    [ "$name" = scenario.schema ] && continue
    "$fedran" run "$scenario" --set rounds=3 --out "$tmp/$name" --quiet --threads 2
    mkdir -p "tests/golden/$name"
    for f in rounds.csv clients.csv edge_rounds.csv links.csv population.csv; do
        [ -f "$tmp/$name/$f" ] && cp "$tmp/$name/$f" "tests/golden/$name/$f"
    done
done
