"""The Python engine's sanitizer: a batch of texts and ids in, their sanitized texts out, as the JVM writes them.

Per row, the JVM (``Sanitizer`` → ``TextSanitizer``) seeds a stream from the key and the row's id, draws
the mechanism's output for every vocabulary token in text order, then one replacement per
out-of-vocabulary token (policy ``random``), and assembles the text. Here the rows of a batch advance in
lockstep: each iteration makes one round of the mechanism's draws for the current token of every row that
has tokens left, so NumPy works on thousands of rows per call. Each row's stream sees
exactly the calls the JVM makes for it, so the output is the JVM's, row for row.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from dptext import _registry, options
from dptext.engine import mechanisms, model, noise, text
from dptext.engine.brr import Brr
from dptext.engine.keys import RowSeeder, SecretKey
from dptext.errors import DpTextError


def no_id_column() -> DpTextError:
    """Id mode column without an id column: the JVM's ID_COLUMN_NOT_GIVEN, with the Python surfaces' ways out."""
    return DpTextError.of(
        "ID_COLUMN_NOT_GIVEN",
        caller="The Python engine (id mode column)",
        idColumn="id_col",
        contentHash="id_mode='content-hash'",
        fresh="id_mode='fresh'",
    )


@dataclass(frozen=True)
class EngineSettings:
    """The settings a Python-engine run uses, resolved once from the session's and the call's settings
    (registry defaults for the rest) and checked with the JVM's messages."""

    mechanism: str
    parameters: tuple[tuple[str, Any], ...]
    model: str
    oov: str
    placeholder: str
    case: str
    id_mode: str
    purpose: str
    key_file: str | None
    key_env: str | None
    fresh: bool

    @classmethod
    def resolve(cls, conf: dict[str, str]) -> EngineSettings:
        """From settings by JVM name (``epsilon`` → ``"3.0"``), defaults from the registry."""
        conf = {**conf, "mechanism": _runs_here(conf.get("mechanism"))} if conf.get("mechanism") else conf
        values: dict[str, Any] = {}
        for s in _registry.settings():
            if s.secret:
                continue
            raw = conf.get(s.name, s.default)
            if raw is None:
                values[s.name] = None
                continue
            options.check(s, raw)
            try:
                values[s.name] = options._parse(s, raw)
            except Exception:  # a spelling only the JVM knows: keep the text, the engine's parsers decide
                values[s.name] = raw.strip()
        mechanism = values["mechanism"]
        if str(values.get("nearestSearch") or "exact").lower() not in ("exact", ""):
            raise DpTextError.of("PYTHON_ENGINE_HNSW")
        if (
            str(values.get("modelDistribution") or "broadcast").lower() == "partitioned"
            or str(values.get("modelLayout") or "auto").lower() == "partitioned"
        ):
            raise DpTextError.of("PYTHON_ENGINE_PARTITIONED_MODEL")
        if values.get("vocabSize") not in (None, 0):
            raise DpTextError.of("PYTHON_ENGINE_VOCAB_SIZE")
        declared = {p.name: p for m in _registry.mechanisms() if m.name == mechanism for p in m.parameters}
        settings = {s.name: s for s in _registry.settings()}
        for n, p in declared.items():  # MechanismSpec's check: a required parameter (custext+'s verbatim) is given
            if p.required and values.get(n) in (None, ""):
                s = settings[n]
                raise DpTextError.of(
                    "MECHANISM_PARAMETER_REQUIRED", mechanism=mechanism, parameter=n, expected=s.expected, doc=s.doc
                )
        for n, p in declared.items():  # a parameter whose setting has no default takes the mechanism's own
            if values.get(n) is None and p.default is not None:
                values[n] = options._parse(settings[n], p.default)
        parameters = tuple(sorted((n, _hashable(values.get(n))) for n in declared))
        return cls(
            mechanism=mechanism,
            parameters=parameters,
            model=str(values["model"]),
            oov=str(values["oov"]).lower(),
            placeholder=str(values["oovPlaceholder"]),
            case=str(values["casePolicy"]).lower(),
            id_mode=str(values["idMode"]).lower().replace("_", "-"),
            purpose=str(values["purpose"]),
            key_file=values.get("keyFile"),
            key_env=values.get("keyEnv"),
            fresh=bool(values.get("freshRandomness")),
        )

    def build_mechanism(self, m: model.Model) -> mechanisms.Mechanism:
        p = dict(self.parameters)
        eps = float(p["epsilon"])
        name = self.mechanism
        if name == "santext":
            return mechanisms.SanText(m, eps)
        if name == "santext+":
            return mechanisms.SanTextPlus(m, eps, float(p["w"]), float(p["p"]))
        if name == "tem":
            return mechanisms.Tem(m, eps, float(p["gamma"]), float(p["beta"]))
        if name in ("custext", "custext+"):
            return mechanisms.CusText(m, eps, int(p["groupSize"]), p.get("verbatim"), name == "custext+")
        if name in ("laplace", "mahalanobis"):
            return noise.Laplace(m, eps) if name == "laplace" else noise.Mahalanobis(m, eps, float(p["lambda"]))
        if name in ("vickrey", "vickrey-topk"):
            t = [float(x) for x in p["t"]]
            if name == "vickrey" and (len(t) != 1 or not t[0] <= 1):
                raise options._failure("t", "one threshold in [0, 1] for vickrey", t, "use vickrey-topk for t_1..t_k")
            if name == "vickrey-topk" and len(t) < 2:
                raise options._failure("t", "k ≥ 2 thresholds t_1..t_k for vickrey-topk", t, "e.g. t=0;0.5;1")
            return noise.Vickrey(m, eps, float(p["lambda"]), t)
        if name == "1-diffractor":
            list_noise = str(p["listNoise"]).strip().lower()
            list_noise = {"geo": "geometric", "truncated-exponential": "tem"}.get(list_noise, list_noise)
            if list_noise not in ("geometric", "tem"):
                raise options._failure("listNoise", "geometric or tem", p["listNoise"], None)
            return mechanisms.Diffractor(m, eps, list_noise, int(p["listRadius"]), int(p["lists"]))
        if name == "brr":
            return Brr(m, eps, int(p["bits"]))
        raise AssertionError(name)


def driver_key(settings: EngineSettings) -> tuple[SecretKey | None, str | None]:
    """The key as the driver reads it, and its fingerprint (what executors check theirs against).

    The key itself never leaves this process: executors read it from the same file (a Unity Catalog volume
    on Databricks) or environment variable, and refuse to run when its fingerprint differs.
    """
    if settings.key_file:
        key = SecretKey.from_file(settings.key_file)
        return key, key.fingerprint()
    if settings.key_env and os.environ.get(settings.key_env) is not None:
        key = SecretKey.from_env(settings.key_env)
        return key, key.fingerprint()
    if settings.fresh:
        return None, None
    raise DpTextError.of("PYTHON_ENGINE_NO_KEY", variable=settings.key_env or "DPTEXT_KEY")


_EXECUTOR_KEYS: dict[tuple, SecretKey] = {}


def executor_key(settings: EngineSettings, fingerprint: str | None) -> SecretKey:
    """The key on an executor: from the file or variable the driver named, checked against its fingerprint."""
    slot = (settings.key_file, settings.key_env, fingerprint, settings.fresh)
    key = _EXECUTOR_KEYS.get(slot)
    if key is not None:
        return key
    if settings.key_file:
        key = SecretKey.from_file(settings.key_file)
        where = f"the key file {settings.key_file}"
    elif fingerprint is not None and settings.key_env:
        if os.environ.get(settings.key_env) is None:
            raise DpTextError.of("KEY_ENV_NOT_ON_EXECUTOR", variable=settings.key_env)
        key = SecretKey.from_env(settings.key_env)
        where = f"the environment variable {settings.key_env}"
    else:
        key = SecretKey.fresh()
        where = ""
    if fingerprint is not None and key.fingerprint() != fingerprint:
        raise DpTextError.of("KEY_DIFFERS_ON_EXECUTOR", where=where, executor=key.fingerprint(), driver=fingerprint)
    _EXECUTOR_KEYS[slot] = key
    return key


class PythonSanitizer:
    """Sanitizes batches of texts with the JVM's output. Build one per process (``cached``)."""

    def __init__(self, settings: EngineSettings, key: SecretKey) -> None:
        self.settings = settings
        self.model = model.load(settings.model)
        self.vocabulary = text.Vocabulary(self.model.words, self.model.name)
        self.mechanism = settings.build_mechanism(self.model)
        self.seeder = RowSeeder(key, settings.purpose)
        if settings.oov not in ("random", "placeholder", "keep"):
            raise DpTextError.of("OOV_POLICY_UNKNOWN", value=settings.oov)
        if settings.case not in ("vocabulary", "restore"):
            raise DpTextError.of("CASE_POLICY_UNKNOWN", value=settings.case)

    def sanitize(self, texts: list[str | None], ids: list[bytes | None] | None) -> list[str | None]:
        """The sanitized texts; ``ids`` are the rows' seed bytes (``dptext.engine.ids``), ``None`` for
        content-hash and fresh seeding."""
        mode = self.settings.id_mode
        out: list[str | None] = [None] * len(texts)
        live = [i for i, t in enumerate(texts) if t is not None]
        if not live:
            return out
        if mode == "column":
            if ids is None:
                raise no_id_column()
            seeds = []
            for i in live:
                if ids[i] is None:
                    raise DpTextError.of("ID_NULL")
                seeds.append(ids[i])
        elif mode == "content-hash":
            seeds = [texts[i].encode("utf-8", "replace") for i in live]  # a lone surrogate → "?", as Java encodes it
        elif mode == "fresh":
            seeds = [os.urandom(16) for _ in live]
        else:
            raise DpTextError.of("ID_MODE_UNKNOWN", value=mode)

        vocabulary = self.vocabulary
        policy, placeholder, case = self.settings.oov, self.settings.placeholder, self.settings.case
        n_rows = len(live)
        batch = None
        if text.batch_assembles(vocabulary, case):
            batch = text.tokenize_batch([texts[i] for i in live], vocabulary)
        if batch is not None:
            counts, ranks, oov_counts = batch.counts, batch.ranks, batch.oov_counts
        else:
            tokenized = [text.tokenize(texts[i], vocabulary) for i in live]
            counts = np.fromiter((len(t.ranks) for t in tokenized), dtype=np.int64, count=n_rows)
            ranks = np.fromiter((r for t in tokenized for r in t.ranks), dtype=np.int64, count=int(counts.sum()))
            oov_counts = np.fromiter((t.oov_count for t in tokenized), dtype=np.int64, count=n_rows)
        streams = self.seeder.streams(seeds)
        # Every vocabulary token of the batch, row after row; row r's tokens start at first[r].
        first = np.concatenate([[0], np.cumsum(counts)])
        mechanism = self.mechanism
        outputs = mechanism.sanitize_rows(streams, ranks, first)
        if outputs is None:
            outputs = self._by_rounds(streams, ranks, first, counts)
        oov = np.zeros((n_rows, int(oov_counts.max())), dtype=np.int64)
        if self.settings.oov == "random" and oov.shape[1]:
            # After a row's mechanism draws, one replacement per out-of-vocabulary token, in text order.
            start = mechanism.output_start
            for t in range(oov.shape[1]):
                rows = np.flatnonzero(oov_counts > t)
                oov[rows, t] = start + streams.next_int(rows, self.model.size - start)
        if batch is not None:
            # Row after row, each row's OOV replacements in text order.
            oov_ranks = oov[np.arange(oov.shape[1]) < oov_counts[:, None]]
            for j, t in enumerate(
                text.assemble_batch(batch, outputs, oov_ranks, vocabulary, policy, placeholder, case)
            ):
                out[live[j]] = t
            return out
        for j, tk in enumerate(tokenized):
            out[live[j]] = text.assemble(
                tk,
                outputs[first[j] : first[j + 1]].tolist(),
                oov[j, : tk.oov_count].tolist(),
                vocabulary,
                policy,
                placeholder,
                case,
            )
        return out

    def _by_rounds(self, streams, ranks: np.ndarray, first: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """The outputs of a mechanism driven round by round (``Mechanism.step``)."""
        mechanism = self.mechanism
        outputs = np.empty_like(ranks)
        mechanism.prepare(ranks)
        n_rows = len(counts)
        # The rows advance together, one round each per iteration: a row whose round ends its token moves to
        # its next token, so each row's stream sees its tokens' rounds in order, as in the JVM, while every
        # iteration works on all the rows that still have tokens (not on one token position at a time, where
        # the rows with long rejection chains would leave the others idle).
        active = np.flatnonzero(counts > 0)
        position = first[:-1].copy()
        end = first[1:]
        fresh = np.ones(n_rows, dtype=bool)
        finish = getattr(mechanism, "finish", None)
        while active.size:
            if finish is not None and active.size <= mechanisms._AHEAD_ROWS:
                finish(streams, active, ranks, position, end, fresh, outputs)  # the last few rows, reading ahead
                break
            at = position[active]
            done, y = mechanism.step(streams, active, ranks[at], fresh[active])
            finished = active[done]
            outputs[at[done]] = y[done]
            position[finished] += 1
            fresh[active] = done
            active = active[position[active] < end[active]]
        return outputs


def _runs_here(mechanism: str) -> str:
    """The registry's name of ``mechanism`` (a name or an alias, as ``MechanismDefinition.isNamed`` reads it), or a
    refusal with the way out when the Python engine does not run it. The JVM's registry also holds the
    mechanisms of providers' jars (ServiceLoader), which this package cannot know of: a name outside the
    built-in registry may be one of those, or a misspelling, and the message serves both."""
    spelled = str(mechanism).strip().lower().replace("_", "-")
    name = next((m.name for m in _registry.mechanisms() if spelled == m.name or spelled in m.aliases), None)
    if name in mechanisms.SUPPORTED:
        return name
    supported = ", ".join(mechanisms.SUPPORTED)
    if name is not None:  # in the registry, not in this engine yet
        raise DpTextError.of("PYTHON_ENGINE_MECHANISM_JVM_ONLY", mechanism=name, supported=supported)
    raise DpTextError.of("PYTHON_ENGINE_MECHANISM_UNKNOWN", mechanism=mechanism, supported=supported)


def _hashable(value: Any) -> Any:
    """Settings are part of the process cache's key: a list (vickrey's t) as a tuple."""
    return tuple(value) if isinstance(value, list) else value


_SANITIZERS: dict[tuple, PythonSanitizer] = {}


def cached(settings: EngineSettings, fingerprint: str | None) -> PythonSanitizer:
    """The process's sanitizer for these settings and key (Spark reuses Python workers across tasks, so the
    model is mapped and the mechanism's tables computed once per worker)."""
    slot = (settings, fingerprint)
    found = _SANITIZERS.get(slot)
    if found is None:
        found = PythonSanitizer(settings, executor_key(settings, fingerprint))
        _SANITIZERS[slot] = found
    return found
