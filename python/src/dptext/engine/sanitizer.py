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
from dptext.engine.ids import NULL_ID_MESSAGE
from dptext.engine.keys import RowSeeder, SecretKey
from dptext.errors import DpTextError

# Where the mechanisms the Python engine refuses run instead.
JVM_COMPUTE = (
    "compute that runs dptext's JVM: spark-submit, a classic or dedicated Databricks cluster with the dptext jar, "
    "standard access mode with the jar on the allowlist, or a serverless JAR task"
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
            raise DpTextError(
                "nearestSearch=hnsw (Apache Lucene's graph) runs on the JVM only: the Python engine searches exactly, "
                f"which is the default; drop nearest_search or run on {JVM_COMPUTE}"
            )
        if (
            str(values.get("modelDistribution") or "broadcast").lower() == "partitioned"
            or str(values.get("modelLayout") or "auto").lower() == "partitioned"
        ):
            raise DpTextError("The Python engine reads one-file models; a partitioned model runs on " + JVM_COMPUTE)
        if values.get("vocabSize") not in (None, 0):
            raise DpTextError(
                "vocabSize applies when the JVM builds a model; on the Python engine build the model with "
                "`dptext build-model --vocab-size N` where a JVM runs and point model= at the file"
            )
        declared = {p.name: p for m in _registry.mechanisms() if m.name == mechanism for p in m.parameters}
        for n, p in declared.items():  # a parameter whose setting has no default takes the mechanism's own
            if values.get(n) is None and p.default is not None:
                setting = next(s for s in _registry.settings() if s.name == n)
                values[n] = options._parse(setting, p.default)
        parameters = tuple(sorted((n, _hashable(values.get(n))) for n in declared))
        if mechanism == "custext+" and not dict(parameters).get("verbatim"):
            raise DpTextError("verbatim must be given for custext+ (the words emitted verbatim, separated by ';')")
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
                raise DpTextError(
                    f"t must be one threshold in [0, 1] for vickrey, got {t}; use vickrey-topk for t_1..t_k"
                )
            if name == "vickrey-topk" and len(t) < 2:
                raise DpTextError(f"t must be k ≥ 2 thresholds t_1..t_k for vickrey-topk, got {t}; e.g. t=0;0.5;1")
            return noise.Vickrey(m, eps, float(p["lambda"]), t)
        if name == "1-diffractor":
            list_noise = str(p["listNoise"]).strip().lower()
            list_noise = {"geo": "geometric", "truncated-exponential": "tem"}.get(list_noise, list_noise)
            if list_noise not in ("geometric", "tem"):
                raise DpTextError(f"listNoise must be geometric or tem, got '{p['listNoise']}'")
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
    raise DpTextError(
        f"No RNG key for the Python engine: name a key file readable by the driver and the executors "
        f"(key_file='/Volumes/catalog/schema/volume/dptext.key' on Databricks), or set the environment variable "
        f"{settings.key_env or 'DPTEXT_KEY'} on the driver and the executors; or ask for fresh_randomness=True "
        "(re-runs will differ); generate a key with `openssl rand -hex 32`"
    )


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
            raise DpTextError(
                f"The environment variable {settings.key_env} that holds the RNG key on the driver is not set on "
                "this executor; use a key file readable by every node (key_file=...) instead"
            )
        key = SecretKey.from_env(settings.key_env)
        where = f"the environment variable {settings.key_env}"
    else:
        key = SecretKey.fresh()
        where = ""
    if fingerprint is not None and key.fingerprint() != fingerprint:
        raise DpTextError(
            f"The RNG key in {where} on this executor differs from the one the driver read (fingerprints "
            f"{key.fingerprint()} and {fingerprint}); every node must read the same key"
        )
    _EXECUTOR_KEYS[slot] = key
    return key


class PythonSanitizer:
    """Sanitizes batches of texts with the JVM's output. Build one per process (``cached``)."""

    def __init__(self, settings: EngineSettings, key: SecretKey) -> None:
        self.settings = settings
        self.model = model.load(settings.model)
        self.vocabulary = text.Vocabulary(self.model.words)
        self.mechanism = settings.build_mechanism(self.model)
        self.seeder = RowSeeder(key, settings.purpose)
        if settings.oov not in ("random", "placeholder", "keep"):
            raise DpTextError(
                f"Unknown out-of-vocabulary policy '{settings.oov}'; use random (default), placeholder or keep"
            )
        if settings.case not in ("vocabulary", "restore"):
            raise DpTextError(f"Unknown case policy '{settings.case}'; use vocabulary (default) or restore")

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
                raise DpTextError("idMode column needs an id column; give id_col (or choose id_mode content-hash)")
            seeds = []
            for i in live:
                if ids[i] is None:
                    raise DpTextError(NULL_ID_MESSAGE)
                seeds.append(ids[i])
        elif mode == "content-hash":
            seeds = [texts[i].encode("utf-8", "replace") for i in live]  # a lone surrogate → "?", as Java encodes it
        elif mode == "fresh":
            seeds = [os.urandom(16) for _ in live]
        else:
            raise DpTextError(f"Unknown id mode '{mode}'; use column, content-hash or fresh")

        vocabulary = self.vocabulary
        tokenized = [text.tokenize(texts[i], vocabulary) for i in live]
        n_rows = len(live)
        counts = np.fromiter((len(t.ranks) for t in tokenized), dtype=np.int64, count=n_rows)
        streams = self.seeder.streams(seeds)
        # Every vocabulary token of the batch, row after row; row r's tokens start at first[r].
        first = np.concatenate([[0], np.cumsum(counts)])
        ranks = np.fromiter((r for t in tokenized for r in t.ranks), dtype=np.int64, count=int(first[-1]))
        mechanism = self.mechanism
        outputs = mechanism.sanitize_rows(streams, ranks, first)
        if outputs is None:
            outputs = self._by_rounds(streams, ranks, first, counts)
        oov_counts = np.fromiter((t.oov_count for t in tokenized), dtype=np.int64, count=n_rows)
        oov = np.zeros((n_rows, int(oov_counts.max())), dtype=np.int64)
        if self.settings.oov == "random" and oov.shape[1]:
            # After a row's mechanism draws, one replacement per out-of-vocabulary token, in text order.
            start = mechanism.output_start
            for t in range(oov.shape[1]):
                rows = np.flatnonzero(oov_counts > t)
                oov[rows, t] = start + streams.next_int(rows, self.model.size - start)
        policy, placeholder, case = self.settings.oov, self.settings.placeholder, self.settings.case
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
        while active.size:
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
    if name is not None:  # in the registry, not in this engine yet
        raise DpTextError(
            f"The Python engine does not run {name!r} yet; run it on {JVM_COMPUTE} (engine='jvm'), or pick a "
            f"mechanism it runs: {', '.join(mechanisms.SUPPORTED)}"
        )
    raise DpTextError(
        f"The Python engine runs dptext's built-in mechanisms ({', '.join(mechanisms.SUPPORTED)}) and "
        f"{mechanism!r} is none of them. If it is a provider's mechanism (a jar that registers it on the JVM), "
        f"it runs only on {JVM_COMPUTE}, with that jar on the classpath (engine='jvm' makes a session without it "
        "fail fast); if not, check its spelling"
    )


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
