#!/bin/sh
# The adaptive downlink's measurement: abr-study, 8-bit uplink, seeds 1-3, 30 rounds.
set -eu
out=${1:-results/downlink}
ladder='{"type":"adaptive","ladder":[{"type":"none"},{"type":"quantization","bits":8},{"type":"quantization","bits":2}]}'
for seed in 1 2 3; do
    for config in fixed-none adaptive-model adaptive-client_view; do
        case $config in
            fixed-none) down='{"type":"none"}'; ref=model ;;
            adaptive-model) down=$ladder; ref=model ;;
            adaptive-client_view) down=$ladder; ref=client_view ;;
        esac
        build/fedran run scenarios/abr-study.json --quiet --overwrite --out "$out/$config/seed$seed" \
            --set seed=$seed --set 'compression.uplink={"type":"quantization","bits":8}' \
            --set "compression.downlink=$down" --set compression.downlink_reference=$ref
    done
done
