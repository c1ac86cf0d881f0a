# ruff: noqa: RUF001  (the test texts are confusable characters on purpose)
"""The Python engine's text layer (``dptext.engine.text``) against the JVM's (``Tokenizer``, ``TextSanitizer``).

One JVM run (``oracle/TextOracle.java``) answers everything: the tokens, ranks, OOV counts and assembled texts
(3 OOV policies x 2 case policies) of every support ticket, the first 2,000 IMDb reviews (when cached), a table of
hard cases and four thousand seeded random strings, over the default vocabulary and over a small vocabulary of
words only case mappings reach; Java's case mappings of strings; Java's character classes, code point by code
point.
"""

from __future__ import annotations

import base64
import glob
import gzip
import json
import os
import random
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from dptext.engine import text
from dptext.errors import DpTextError

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
ORACLE = HERE / "oracle" / "TextOracle.java"
FALLBACK_JAR = Path("/tmp/oracle/dptext-udfs-0.1.0-SNAPSHOT.jar")
RESOURCE = "dev/dptext/embeddings/glove-6B-100d-top25k.txt.gz"
IMDB = Path.home() / ".cache" / "dptext" / "imdb-reviews.jsonl"
OOV = ("random", "placeholder", "keep")
CASE = ("vocabulary", "restore")


def _jar() -> Path | None:
    if os.environ.get("DPTEXT_ORACLE_JAR"):
        return Path(os.environ["DPTEXT_ORACLE_JAR"])
    built = [
        Path(p)
        for p in glob.glob(str(REPO / "udfs" / "target" / "dptext-udfs-*.jar"))
        if not p.endswith(("-tests.jar", "-sources.jar", "-javadoc.jar"))
    ]
    if built:
        return max(built, key=lambda p: p.stat().st_mtime)
    return FALLBACK_JAR if FALLBACK_JAR.exists() else None


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


JAR = _jar()
JAVA = _java()
if JAVA is None:
    pytest.skip("no java on PATH (nor JAVA_HOME): the text layer is compared with the JVM's", allow_module_level=True)
if JAR is None or not JAR.exists():
    pytest.skip(
        "no dptext jar to compare with: set DPTEXT_ORACLE_JAR or build udfs (mvn -pl udfs package)",
        allow_module_level=True,
    )


def _enc(s: str) -> str:
    return base64.b64encode(s.encode("utf-16-be", "surrogatepass")).decode("ascii")


def _dec(s: str) -> str:
    return base64.b64decode(s).decode("utf-16-be", "surrogatepass")


def _oracle(sections: dict[str, tuple[str, list[str]]]) -> dict[str, list[str]]:
    """One JVM run (``TextOracle.java``) for every section — name -> (header ``@mode [argument]``, texts) —: the
    answer lines of each section."""
    stdin = "".join(header + "\n" + "".join(_enc(t) + "\n" for t in lines) for header, lines in sections.values())
    run = subprocess.run([JAVA, "-cp", str(JAR), str(ORACLE)], input=stdin, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.split("\n")[:-1]
    answers = {}
    k = 0
    for name, (header, texts) in sections.items():
        assert lines[k] == header, run.stderr[-3000:]
        count = 2 if header == "@classes" else len(texts)
        answers[name] = lines[k + 1 : k + 1 + count]
        k += 1 + count
    assert k == len(lines), run.stderr[-3000:]
    return answers


def jar_words(jar: Path) -> list[str]:
    """The default vocabulary as ``EmbeddingReader`` reads the jar's resource: lines (\\n, \\r or \\r\\n), blank
    ones skipped, the first field of the stripped line split on single spaces; a ``count dim`` first line is a
    header."""
    with zipfile.ZipFile(jar) as z:
        raw = gzip.decompress(z.read(RESOURCE)).decode("utf-8")
    words = []
    for n, line in enumerate(raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")):
        stripped = line.strip(" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")
        if not stripped:
            continue
        parts = stripped.split(" ")
        if n == 0 and len(parts) == 2 and all(p.isascii() and p.isdigit() for p in parts):
            continue
        words.append(parts[0])
    return words


HARD = [
    "",
    " ",
    "   ",
    "\t",
    "\n",
    "\r\n",
    " \t\r\n \n\n\t ",
    "a",
    "A",
    "I",
    "x",
    "ok.",
    # clitics
    "don't DON'T Don't can't won't it's IT'S we’re We’Re y'all I'm I'd you'll they've isn't ain't",
    "n't 't 's don' 'tis rock'n'roll o'clock O'Clock ma'am o’clock don’t isn’t N'T",
    "shouldn't've can'tt wo'n't it’s’s Ben's Bens' Ann'd",
    # merges
    "well-known 3.5 o'clock U.S. u.s. U.S.A. 1,000 1,000,000 http://x.y a/b e-mail e.g. i.e. 9/11 24/7 3:30 10:30am",
    "Well-Known WELL-KNOWN well--known well-known-ish -well- .5 5. 1.5.2 a-b-c-d mid-1990s co-founder x-ray",
    "u.s. U.S U.S.. a.m. p.m. A.M. st. mr. Mr. Dr. vs. etc. Inc. Co. Ltd.",
    # punctuation runs
    "... !! ?! !!! ??? .... -- --- ,, ;; :: '' \"\" `` ** ## $$ %% && (( )) [[ ]] {{ }}",
    "Hello, world! (yes) [no] {maybe} \"quoted\" 'single' «guillemets» „low“ ‘curly’ “double” …",
    "late. late, late! late? late; late: (late) late.. late... -late- 'late' \"late\" <br /><br />",
    "a.b a,b a/b a:b a'b a’b a-b a_b a+b a=b a&b a@b.com a#b a~b a|b a\\b",
    # emoji and ZWJ sequences
    "😀 😀😀 😀😃 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️ ☺ a😀b late😀 😀late 🇫🇷🇩🇪 #️⃣ 1️⃣",
    # supplementary letters, combining marks
    "𝐀𝐁𝐂 𝒜 𝔘𝔫𝔦 𝐀 𝐚 the𝐀 𝐀the 𐐀𐐨 𐐨 𞤀𞤢 𠀀𠀁 𝟘𝟙 e\u0301 E\u0301 cafe\u0301 cafe\u0301s \u0301 \u0301a a\u20dd",
    "naïve NAÏVE Naïve café CAFÉ Café résumé Zürich ZÜRICH über Über",
    # Greek final sigma, Turkish İ, ß, titlecase
    "ΟΔΟΣ Οδος ΟΔΟΣ. ΟΔΟΣ's Σ ΣΣ ΑΣ ΑΣΑ Α1Σ ΑΣ1 ΑΣ-Β Α-Σ Α:Σ Α.Σ Α'Σ ΑΣ' σ ς ΌΣΟΣ",
    "İstanbul İSTANBUL İ i̇ I ı ISTANBUL istanbul Iİ",
    "ß ẞ STRASSE Straße STRAẞE straße ß's ẞß",
    "ǅ ǆ Ǆ ǅemal ǄEMAL ǆemal ǈ ǋ ǲ",
    # fullwidth
    "ＡＢＣ ａｂｃ Ｈｅｌｌｏ ｔｈｅ １２３ ＴＨＥ！",
    # Unicode space kinds
    "a\u00a0b a\u2007b a\u202fb a\u3000b a\u2028b a\u2029b a\u0085b a\u180eb a\u200bb a\ufeffb a\u1680b a\u205fb",
    "the\u2000the\u2001the\u2002the\u2003the\u2004the\u2005the\u2006the\u2008the\u2009the\u200athe",
    "a\x1cb\x1dc\x1ed\x1ff\x0bg\x0ch\x00i\x01j\x7fk\x9fl",
    "\t\tthe\r\n\r\nthe\n\n\nthe \u00a0 the\u3000\u3000",
    # other-script digits, numerals, superscripts
    "٣ ١٢٣ ۳ ३ 3٣ x² ² ½ Ⅻ ⅻ ⅫI ① ⑴ ¹²³ 10² 2½ ↉",
    # other scripts
    "東京 日本語 カタカナ ひらがな 한국어 ไทย עברית العربية हिन्दी Русский РУССКИЙ Ελληνικά",
    "Кто-то что-то ПРИВЕТ Привет привет ÅNGSTRÖM Å K Kelvin",
    # lone surrogates (Java keeps them as chars)
    "a\ud800b \udc00 the\udbff \ud800\ud800 x\udfff",
    # misc
    "C-1042 #1 $5 5% 5.00 $5.00 3rd 1st 2nd 21st 1990s '90s 90's A+ C++ C# .NET node.js",
    "e-mail E-Mail E-MAIL someone@example.com https://www.example.com/path?q=1&r=2 www.example.com",
    "THE The the tHe THE's The's A.B.C. a.b.c. I.B.M. IBM",
]

CUSTOM_WORDS = [
    "the",
    ".",
    ",",
    "'s",
    "n't",
    "-",
    "οδος",
    "οδοσ",
    "σ",
    "ς",
    "ας",
    "ασ",
    "α1ς",
    "α1σ",
    "ας-β",
    "ασ-β",
    "α:ς",
    "α:σ",
    "α.ς",
    "α.σ",
    "α'ς",
    "α'σ",
    "ς'",
    "i̇stanbul",
    "i̇",
    "straße",
    "ß",
    "ss",
    "ǆ",
    "ǆemal",
    "ǳ",
    "ﬀ",
    "ŉ",
    "ΐ",
    "ᾳ",
    "ǰ",
    "ﬁ",
    "𝐚b",
    "𐐨x",
    "e\u0301",
    "café",
    "x²",
    "ⅻ",
    "ⓐ",
    "a",
    "kelvin",
    "k",
    "å",
    "σς",
    "ςσ",
    "δσ",
    "ᾼ",
    "ɐ",
    "ı",
    "i",
    "ɪ",
    "ꭓ",
    "ǈ",
    "ǋ",
    "ῼ",
    "և",
    "ﬓ",
]

GREEK = "ΑΒΓΔΣΟσςαβ"
SIGMA_PARTS = [
    *GREEK,
    "Σ",
    "Σ",
    "Σ",
    "1",
    "٣",
    "\u0301",
    "\u0345",
    "'",
    "-",
    ".",
    ",",
    "/",
    ":",
    "_",
    "\u00ad",
    "\u2027",
    '"',
    "$",
    "%",
    "#",
    "&",
    "¢",
    "東",
    "カ",
    "ひ",
    "\u3099",
    "\u0964",
    "ᴬ",
    "ʰ",
    "Ⅻ",
    "ⓐ",
    "ǅ",
    "ǅ",
    "A",
    "a",
    "\u200d",
    "\u00a0",
    "a",
    "ꙮ",
    "\u2160",
    "𝐀",
    "𐐀",
]


def _recent_blocks() -> list[tuple[int, int]]:
    """Blocks where Unicode 14-16 assigned characters (Java 17 knows Unicode 13 only)."""
    return [
        (0x0870, 0x089F),
        (0x1711, 0x171F),
        (0x1734, 0x1734),
        (0x2C2F, 0x2C2F),
        (0x2C5F, 0x2C5F),
        (0xA7C0, 0xA7DF),
        (0x10570, 0x105BF),
        (0x10780, 0x107BF),
        (0x11F00, 0x11F5F),
        (0x1DF00, 0x1DFFF),
        (0x1E290, 0x1E2FF),
        (0x1E4D0, 0x1E4FF),
        (0x1E7E0, 0x1E7FF),
        (0x1AFF0, 0x1AFFF),
        (0x31350, 0x323AF),
        (0x2EBF0, 0x2EE5F),
        (0x1F7D5, 0x1F7DF),
        (0x1FAE0, 0x1FAFF),
        (0x11AB0, 0x11ABF),
        (0x12F90, 0x12FFF),
    ]


def _random_code_point(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.35:
        cp = rng.randrange(0x10000)
    elif kind < 0.55:
        cp = rng.randrange(0x10000, 0x30000)
    elif kind < 0.65:
        cp = rng.randrange(0x30000, 0x110000)
    else:
        a, b = rng.choice(_recent_blocks())
        cp = rng.randint(a, b)
    if 0xD800 <= cp <= 0xDFFF:
        cp -= 0x1000
    return chr(cp)


def _random_text(rng: random.Random, words: list[str]) -> str:
    spaces = [" ", " ", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2028", "\u0085", "\u200b"]
    joiners = [*"'’-.,/:", "'", "'", "’", "--", "..", "!", "?", "(", ")", '"', "😀", "\u0301", "\u200d"]
    out = []
    for _ in range(rng.randint(0, 25)):
        k = rng.random()
        if k < 0.30:
            w = rng.choice(words)
            c = rng.random()
            w = w.upper() if c < 0.15 else w.capitalize() if c < 0.35 else w
            out.append(w)
        elif k < 0.45:
            out.append(rng.choice(spaces))
        elif k < 0.62:
            out.append(rng.choice(joiners))
        elif k < 0.70:
            out.append(rng.choice(["'s", "n't", "'re", "'ll", "'ve", "'m", "'d", "’S", "N'T", "'T", "'D"]))
        elif k < 0.78:
            out.append(rng.choice(SIGMA_PARTS))
        else:
            out.append("".join(_random_code_point(rng) for _ in range(rng.randint(1, 4))))
    return "".join(out)


def _texts(words: list[str]) -> list[str]:
    texts = []
    tickets = REPO / "data" / "sample" / "support-tickets.jsonl"
    for line in tickets.read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["text"] is not None:  # (one ticket's text is null)
            texts.append(json.loads(line)["text"])
    if IMDB.exists():
        with IMDB.open(encoding="utf-8") as f:
            for _, line in zip(range(2000), f, strict=False):
                texts.append(json.loads(line)["review"])
    texts.extend(HARD)
    texts.extend(" ".join(HARD[k : k + 3]) for k in range(0, len(HARD), 3))
    rng = random.Random(20240611)
    texts.extend(_random_text(rng, words) for _ in range(3000))
    # Pure random code points from every plane.
    texts.extend("".join(_random_code_point(rng) for _ in range(rng.randint(1, 30))) for _ in range(1000))
    return texts


def _outputs(ranks: list[int], size: int) -> list[int]:
    return [(r * 7919 + 13) % size for r in ranks]


def _compare(texts: list[str], vocabulary: text.Vocabulary, answers: list[str]) -> int:
    """Compares every text's tokens, ranks, OOV count and six assembled texts; returns the tokens seen."""
    mismatches = []
    tokens = 0
    for n, (t, answer) in enumerate(zip(texts, answers, strict=True)):
        fields = answer.split("\t")
        ranks = [int(x) for x in fields[0].split(",")] if fields[0] else []
        oov_count = int(fields[1])
        oov_ranks = [int(x) for x in fields[2].split(",")] if fields[2] else []
        surfaces = _dec(fields[3]).split(" ") if fields[3] else []
        expected = [_dec(x) for x in fields[4:10]]
        tk = text.tokenize(t, vocabulary)
        got_surfaces = [s for s, _ in tk.tokens()]
        tokens += len(got_surfaces)
        problems = []
        if got_surfaces != surfaces:
            problems.append(f"tokens {got_surfaces!r} != {surfaces!r}")
        if list(tk.ranks) != ranks:
            problems.append(f"ranks {list(tk.ranks)} != {ranks}")
        if tk.oov_count != oov_count:
            problems.append(f"oov count {tk.oov_count} != {oov_count}")
        if not problems:
            outputs = _outputs(ranks, vocabulary.size)
            k = 0
            for oov in OOV:
                for case in CASE:
                    got = text.assemble(tk, outputs, oov_ranks, vocabulary, oov, "<unk>", case)
                    if got != expected[k]:
                        problems.append(f"{oov}/{case}: {got!r} != {expected[k]!r}")
                    k += 1
        if problems:
            mismatches.append(f"text {n} {t[:200]!r}: " + "; ".join(problems))
    mismatches += _compare_batch(texts, vocabulary, answers)
    assert not mismatches, f"{len(mismatches)} of {len(texts)} texts differ:\n" + "\n".join(mismatches[:20])
    return tokens


def _compare_batch(texts: list[str], vocabulary: text.Vocabulary, answers: list[str]) -> list[str]:
    """The batch path (``tokenize_batch``, ``assemble_batch``: both case policies) on every UTF-8 text at once
    (Arrow holds no lone surrogate: a batch with one is refused, and the text-by-text path serves it)."""
    utf8 = [i for i, t in enumerate(texts) if text._utf8_column([t]) is not None]
    if len(utf8) < len(texts) and text.tokenize_batch(texts, vocabulary) is not None:
        return ["batch: a text with a lone surrogate was taken"]
    texts, answers = [texts[i] for i in utf8], [answers[i] for i in utf8]
    batch = text.tokenize_batch(texts, vocabulary)
    fields = [a.split("\t") for a in answers]
    ranks = [[int(x) for x in f[0].split(",")] if f[0] else [] for f in fields]
    oov_ranks = [int(x) for f in fields if f[2] for x in f[2].split(",")]
    if batch.ranks.tolist() != [r for rs in ranks for r in rs]:
        return ["batch: ranks differ"]
    if batch.counts.tolist() != [len(r) for r in ranks] or batch.oov_counts.tolist() != [int(f[1]) for f in fields]:
        return ["batch: counts differ"]
    outputs = np.array([o for rs in ranks for o in _outputs(rs, vocabulary.size)], dtype=np.int64)
    mismatches = []
    for k, oov in enumerate(OOV):
        for c, case in enumerate(CASE):  # (answers: random, placeholder, keep, each vocabulary then restore)
            got = text.assemble_batch(
                batch, outputs, np.array(oov_ranks, dtype=np.int64), vocabulary, oov, "<unk>", case
            )
            for n, (t, f, g) in enumerate(zip(texts, fields, got, strict=True)):
                if g != _dec(f[4 + 2 * k + c]):
                    mismatches.append(f"batch {oov}/{case}: text {n} {t[:200]!r}: {g!r} != {_dec(f[4 + 2 * k + c])!r}")
    return mismatches


def _custom_texts(words: list[str]) -> list[str]:
    rng = random.Random(7)
    texts = list(HARD)
    for _ in range(3000):
        parts = [rng.choice([*SIGMA_PARTS, *words, " ", " "]) for _ in range(rng.randint(1, 8))]
        s = "".join(parts)
        c = rng.random()
        texts.append(s.upper() if c < 0.4 else s.title() if c < 0.6 else s)
    return texts


def _case_strings() -> list[str]:
    singles = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    rng = random.Random(11)
    parts = [
        *SIGMA_PARTS,
        " ",
        "\t",
        "\r\n",
        "\n",
        "\u2028",
        "\uffff",
        "\u0890",
        "\U0001d400",
        "\U0002a6de",
        "\U000e0001",
        "\u00a2",
        "\u066b",
        "\u30fc",
        "\u3005",
    ]
    strings = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 8))) for _ in range(20_000)]
    strings += ["".join(_random_code_point(rng) for _ in range(rng.randint(1, 6))) + "Σ" for _ in range(2000)]
    # Every code point alone, 4,096 to a line: code points that cannot interact (the sigma, the only one whose
    # lower case depends on its neighbours, is left to the strings above).
    chunk = 4096
    lines = ["".join(singles[k : k + chunk]).replace("Σ", "") for k in range(0, len(singles), chunk)]
    return lines + strings


@pytest.fixture(scope="module")
def default_words() -> list[str]:
    return jar_words(JAR)


@pytest.fixture(scope="module")
def oracle(default_words, tmp_path_factory):
    """Every question for the JVM, asked in one run: name -> (texts, answers)."""
    custom_words = list(dict.fromkeys(CUSTOM_WORDS))
    path = tmp_path_factory.mktemp("text") / "words.txt"
    path.write_bytes("\n".join(custom_words).encode("utf-8"))
    sections = {
        "default": ("@text", _texts(default_words[:3000])),
        "custom": (f"@text {path}", _custom_texts(custom_words)),
        "case": ("@case", _case_strings()),
        "classes": ("@classes", []),
    }
    answers = _oracle(sections)
    result = {name: (sections[name][1], answers[name]) for name in sections}
    result["custom_words"] = custom_words
    return result


def test_default_vocabulary(default_words, oracle):
    """Every text, over the JVM's default vocabulary: identical tokens, ranks, OOV counts and texts."""
    vocabulary = text.Vocabulary(default_words)
    assert vocabulary.size == 25_000
    texts, answers = oracle["default"]
    tokens = _compare(texts, vocabulary, answers)
    assert tokens > 100_000


def test_custom_vocabulary(oracle):
    """A vocabulary of words that only case mappings reach (Greek sigma, İ, ß, titlecase, ligatures)."""
    texts, answers = oracle["custom"]
    _compare(texts, text.Vocabulary(oracle["custom_words"]), answers)


def test_case_mappings(oracle):
    """``java_lower`` and ``java_upper`` are Java's ``toLowerCase``/``toUpperCase(Locale.ROOT)``: every code point
    alone, and random strings around the capital sigma (Java's Final_Cased uses word boundaries)."""
    lines, answers = oracle["case"]
    bad = []
    for s, answer in zip(lines, answers, strict=True):
        lower, upper = (_dec(x) for x in answer.split("\t"))
        if text.java_lower(s) != lower:
            bad.append(f"lower {s[:80]!r}: {text.java_lower(s)[:80]!r} != {lower[:80]!r}")
        if text.java_upper(s) != upper:
            bad.append(f"upper {s[:80]!r}: {text.java_upper(s)[:80]!r} != {upper[:80]!r}")
    assert not bad, f"{len(bad)} differ:\n" + "\n".join(bad[:20])


def test_character_classes(oracle):
    """The word-character table and the whitespace set are Java's, code point by code point."""
    words, spaces = oracle["classes"][1]

    def parse(line: str) -> list[tuple[int, int]]:
        return [tuple(int(x, 16) for x in r.split("-")) for r in line.split()]

    assert [tuple(r) for r in text._WORD_RANGES] == parse(words)
    java_spaces = {chr(cp) for a, b in parse(spaces) for cp in range(a, b + 1)}
    python_spaces = {chr(cp) for cp in range(0x110000) if text._SPLIT.fullmatch(chr(cp))}
    assert python_spaces == java_spaces


def test_vocabulary_refuses_duplicates():
    with pytest.raises(DpTextError) as e:
        text.Vocabulary(["a", "b", "a"], "m.dptext-model")
    assert e.value.name == "MODEL_CORRUPTED" and e.value.parameters["model"] == "m.dptext-model"
    assert "'a'" not in str(e.value)  # the JVM's words: the model's word is not quoted
    v = text.Vocabulary(["the", "’", "'"])
    assert v.rank("’") == 2 and v.index_of("’") == 1 and v.word(0) == "the" and v.size == 3


def test_assemble_checks_its_settings():
    v = text.Vocabulary(["the", "."])
    tk = text.tokenize("the. x", v)
    # ("the" + "." → "the" + "the": a space keeps the outputs apart; "." + "the" → ".the" needs none.)
    assert text.assemble(tk, [0, 0], [0], v, "placeholder", "<unk>", "vocabulary") == "the the <unk>"
    assert text.assemble(tk, [1, 0], [0], v, "placeholder", "<unk>", "vocabulary") == ".the <unk>"
    for oov, placeholder, case, name in (
        ("drop", "<unk>", "vocabulary", "OOV_POLICY_UNKNOWN"),
        ("keep", "<unk>", "upper", "CASE_POLICY_UNKNOWN"),
        ("keep", "", "vocabulary", "OOV_PLACEHOLDER_INVALID"),
        ("keep", "a b", "vocabulary", "OOV_PLACEHOLDER_INVALID"),
    ):
        with pytest.raises(DpTextError) as e:
            text.assemble(tk, [1, 0], [0], v, oov, placeholder, case)
        assert e.value.name == name
    # (U+00A0 is not Character.isWhitespace: the JVM accepts it in a placeholder.)
    assert text.assemble(tk, [1, 0], [0], v, "placeholder", "<\u00a0>", "vocabulary") == ".the <\u00a0>"


def test_throughput(default_words):
    """tokenize + assemble on English text: reports tokens per second (no threshold below a sane floor)."""
    vocabulary = text.Vocabulary(default_words)
    if IMDB.exists():
        with IMDB.open(encoding="utf-8") as f:
            texts = [json.loads(line)["review"] for _, line in zip(range(2000), f, strict=False)]
    else:
        texts = [t for t in _texts([])[:15] if t] * 100
    size = vocabulary.size
    start = time.perf_counter()
    tokens = 0
    for t in texts:
        tk = text.tokenize(t, vocabulary)
        outputs = [(r * 7919 + 13) % size for r in tk.ranks]
        text.assemble(tk, outputs, [1] * tk.oov_count, vocabulary, "random", "<unk>", "vocabulary")
        tokens += len(tk.ranks) + tk.oov_count
    elapsed = time.perf_counter() - start
    rate = tokens / elapsed
    print(f"\ntext layer: {tokens} tokens in {elapsed:.3f} s = {rate:,.0f} tokens/s")
    assert rate > 50_000
