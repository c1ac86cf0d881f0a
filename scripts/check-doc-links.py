#!/usr/bin/env python3
"""Checks the relative links of Markdown documents: every [text](target) outside code blocks whose
target is not a URL must name a file or directory that exists, and a #fragment must name a heading of
the target document (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1, -2 …
for repeats). Prints each broken link with its file and line; exit 1 if there is one.

  scripts/check-doc-links.py [FILE...]      (default: README.md, BENCHMARKS.md, docs/*.md)
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^()\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def lines_outside_code(text):
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    h = h.replace("`", "")
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        for _, line in lines_outside_code(path.read_text(encoding="utf-8")):
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
        cache[path] = found
    return cache[path]


def check(path):
    broken = []
    for number, line in lines_outside_code(path.read_text(encoding="utf-8")):
        for m in LINK.finditer(line):
            target = m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, fragment = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path.resolve()
            if not dest.exists():
                broken.append((number, target, "no such file or directory"))
            elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                broken.append((number, target, f"no heading #{fragment} in {dest.relative_to(ROOT)}"))
    return broken


def main(args):
    files = [Path(a) for a in args] or [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
    count = 0
    for f in files:
        for number, target, why in check(f.resolve()):
            print(f"{f}:{number}: ({target}) {why}")
            count += 1
    print(f"check-doc-links: {len(files)} files, {count} broken link(s)")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
