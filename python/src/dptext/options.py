"""Python keyword arguments to dptext settings, checked against the JVM's settings table.

The RNG key itself is never accepted here: a Python value handed to Spark ends up in a plan, a conf
listing or a log. Name the key instead (``key_file``, ``key_env``, ``databricks_secret``).
"""

from __future__ import annotations

from typing import Any

from dptext import _registry

_KEY_REFUSAL = (
    "dptext never takes the RNG key as a Python value: it would end up in a query plan, the session's "
    "conf or a log. Name it instead: key_file='/path/to/key' (a file of mode 600), key_env='VARIABLE' "
    "(an environment variable of the driver), or databricks_secret='scope/key' on Databricks; or set "
    "spark.dptext.secretKey at application start (spark-submit --conf, the cluster's Spark config)."
)


def setting(name: str) -> _registry.Setting:
    """The setting of a keyword (``oov_placeholder``) or JVM name (``oovPlaceholder``)."""
    for s in _registry.settings():
        if name in (s.python_name, s.name, s.conf_key):
            if s.secret:
                raise ValueError(_KEY_REFUSAL)
            return s
    known = sorted(s.python_name for s in _registry.settings() if not s.secret)
    raise ValueError(f"Unknown dptext setting {name!r}; known settings are {known}")


def as_text(value: Any) -> str:
    """A value as the JVM's settings parse it from a Spark conf: lists comma-separated, booleans lower case."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(as_text(v) for v in value)
    return str(value)


def to_conf(settings: dict[str, Any]) -> dict[str, str]:
    """Keyword settings as ``spark.dptext.*`` conf entries (unknown names and the key refused)."""
    return {setting(k).conf_key: as_text(v) for k, v in settings.items() if v is not None}
