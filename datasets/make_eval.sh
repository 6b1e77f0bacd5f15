#!/usr/bin/env bash
# Regenerate the frozen evaluation sets (never used for training: see datasets/README.md).
# Usage: datasets/make_eval.sh [OUT_DIR]   (default: datasets/eval, ignored by git)
# Same command, same bytes: every scene is drawn from its data set's seed and its index only.
set -euo pipefail
out="${1:-datasets/eval}"
rt="${REPTILE_TANK:-reptile-tank}"

# 1. Finished terrariums, stand-in deck, phone sizes up to 12 MP.
"$rt" synth --out "$out/full" --n 200 --seed 9001 --max-size 4032x3024
# 2. Mid-game terrariums: each cell empty with probability 0.3.
"$rt" synth --out "$out/midgame" --n 100 --seed 9002 --partial 0.3 --max-size 4032x3024
# 3. An unseen deck (random designs from seed 9004, never a training seed): its 16 faces are the
#    one reference image per face to enrol, and 100 scenes are photographed with it.
"$rt" deck export --out "$out/unseen_deck_faces" --random-seed 9004
"$rt" synth --out "$out/unseen" --n 100 --seed 9003 --deck "$out/unseen_deck_faces" \
    --max-size 4032x3024
# 4. The sets defined in vision/synth/dataset.py FROZEN_SETS (seeds 9005-9008): hard (tilt up to
#    65 degrees, grids from 25 % of the frame, checks / stripes / card-coloured playmats), what an
#    in-page camera gives (1280x960, 640x480), and bare tables (no terrarium: must be refused).
for name in hard small_1280 small_640 bare; do
    python -c "from vision.synth.dataset import write_frozen; write_frozen('$name', '$out/$name')"
done
echo "frozen evaluation sets written to $out"
