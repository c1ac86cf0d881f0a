#!/usr/bin/env python3
"""Derives the default word-polarity lexicon of `dptext tune` from the IMDb reviews' labels.

A word's polarity is the smoothed log-odds of the reviews it occurs in being positive rather than
negative (document frequency, add-one smoothing): words in at least MIN_DOCS reviews whose |log-odds|
is at least THRESHOLD get the label 1 (positive) or 0 (negative). Tokens: lower-case runs of letters
(with inner apostrophes). Input: the JSON lines scripts/data/fetch-data.sh writes (id, review, sentiment).
Usage: scripts/data/build-lexicon.py ~/.cache/dptext/imdb-reviews.jsonl > udfs/src/main/resources/dev/dptext/evaluation/imdb-polarity.csv
"""
import json
import math
import re
import sys
from collections import Counter

MIN_DOCS = 50
THRESHOLD = 1.0
TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)*")


def main(path):
    positive, negative = Counter(), Counter()
    reviews = {0: 0, 1: 0}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            words = set(TOKEN.findall(r["review"].lower().replace("<br />", " ")))
            label = int(r["sentiment"])
            reviews[label] += 1
            (positive if label == 1 else negative).update(words)
    print("word,label")
    for word in sorted(set(positive) | set(negative)):
        p, n = positive[word], negative[word]
        if p + n < MIN_DOCS:
            continue
        odds = math.log((p + 1) / (reviews[1] + 2)) - math.log((n + 1) / (reviews[0] + 2))
        if abs(odds) >= THRESHOLD:
            print(f"{word},{1 if odds > 0 else 0}")


if __name__ == "__main__":
    main(sys.argv[1])
