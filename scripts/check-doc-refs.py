#!/usr/bin/env python3
"""Checks the references that are not Markdown links, in every tracked text file (code comments, scripts,
configurations, documents): a section named as `FILE.md, "Heading"` (or `FILE.md "Heading"`, `FILE.md's
"Heading"`) must start a heading of FILE.md, a `FILE.md#anchor` outside Markdown must name one of its
headings (GitHub's anchors), and a repository path (`scripts/…`, `docs/…`, `conf/…`,
`tools/…`, `benchmarks/…`, `notebooks/…`, `results/…`, `data/sample/…`) must exist. The dated record
(docs/benchmarks-history.md) and results/ are skipped: they quote commands as they were run. Build outputs
(`…/target/…`) and placeholders (`$`, `<`, `*`) are not paths to check. Prints each broken reference with
its file and line; exit 1 if there is one. Reads files only (~1 s).

  scripts/check-doc-refs.py          (scripts/check-doc-links.py checks the Markdown links)
"""

import functools
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_doc_links", ROOT / "scripts" / "check-doc-links.py")
links = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(links)

SKIP = re.compile(r"^(results/|docs/benchmarks-history\.md$)")
TEXT = re.compile(r"\.(md|sh|py|java|scala|properties|xml|sql|txt|toml|cfg|ini|yml|yaml)$|^\.ci/|^scripts/dptext$")
# A line break inside a comment or a paragraph, with the next line's comment marker: read as one space.
JOIN = re.compile(r"\s*\n\s*(?:#+|\*|//|--)?\s*")
SECTION = re.compile(
    r"([\w./-]*\b[\w-]+\.md)\}?(?:'s)?,?\s+(?:by hand \()?(?:\"(\w[^\"\n]{1,119})\"|'(\w[^'\n]{1,119})')"
)
PATH = re.compile(
    r"(?<![\w./:-])((?:scripts|docs|conf|tools|benchmarks|notebooks|results|data/sample)/[\w./+-]*[\w+])"
    r"(?![\w./+$<*{\\-])"
)
ANCHOR = re.compile(r"(?<![\w./-])([\w./-]*\b[\w-]+\.md)#([\w-]+)")
NOT_A_PATH = re.compile(r"/target/|[$<*]|\.\.\.")
# Paths that are meant not to exist in the repository.
IGNORE = {"notebooks/broken.sql"}  # NotebooksTest: a notebook it writes into its temporary directory


def norm(text):
    return re.sub(r"\s+", " ", text.replace("`", "").strip().lower())


@functools.cache
def headings(path):
    text = path.read_text(encoding="utf-8")
    found = (re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line) for _, line in links.lines_outside_code(text))
    return [norm(m.group(2)) for m in found if m]


def md_file(name):
    for candidate in (ROOT / name, ROOT / "docs" / name):
        if candidate.is_file():
            return candidate
    return None


def line_of(text, joined_offsets, pos):
    return text.count("\n", 0, joined_offsets[pos]) + 1


def check(rel):
    text = (ROOT / rel).read_text(encoding="utf-8", errors="replace")
    broken = []
    # Join lines (keeping each joined character's offset in the original, for line numbers).
    joined, offsets, last = [], [], 0
    for m in JOIN.finditer(text):
        joined.append(text[last : m.start()])
        offsets.extend(range(last, m.start()))
        joined.append(" ")
        offsets.append(m.start())
        last = m.end()
    joined.append(text[last:])
    offsets.extend(range(last, len(text)))
    offsets.append(len(text))
    flat = "".join(joined)
    for m in SECTION.finditer(flat):
        target = md_file(m.group(1))
        if target is None:
            continue  # a file name the path check below, or the link check, covers
        quoted = norm(m.group(2) or m.group(3))
        if not any(h.startswith(quoted) for h in headings(target)):
            broken.append(
                (
                    line_of(text, offsets, m.start()),
                    f'{m.group(1)}, "{m.group(2) or m.group(3)}"',
                    f"no heading starting so in {target.relative_to(ROOT)}",
                )
            )
    if not rel.endswith(".md"):  # in Markdown, a FILE.md#anchor is a link: check-doc-links.py's
        for m in ANCHOR.finditer(text):
            target = md_file(m.group(1))
            if target is not None and m.group(2) not in links.anchors(target):
                broken.append(
                    (
                        text.count("\n", 0, m.start()) + 1,
                        m.group(0),
                        f"no heading #{m.group(2)} in {target.relative_to(ROOT)}",
                    )
                )
    for m in PATH.finditer(text):
        path = m.group(1).rstrip(".")
        if NOT_A_PATH.search(path) or path in IGNORE or (ROOT / path).exists():
            continue
        broken.append((text.count("\n", 0, m.start()) + 1, path, "no such file or directory"))
    return broken


def main():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    files = [f for f in files if TEXT.search(f) and not SKIP.search(f)]
    count = 0
    for rel in files:
        for number, ref, why in check(rel):
            print(f"{rel}:{number}: ({ref}) {why}")
            count += 1
    print(f"check-doc-refs: {len(files)} files, {count} broken reference(s)")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
