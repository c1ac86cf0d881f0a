"""A Spark Connect server with dptext, from a pip install: ``python -m dptext.connect_server``.

pip's pyspark has no ``sbin/start-connect-server.sh``, but it has ``bin/spark-submit`` and the Connect
server's classes; this starts the server through them with this package's jar and dptext's extension
(the tests start theirs with the same command)::

    python -m dptext.connect_server --port 15002 --conf spark.dptext.keyFile=/secure/dptext.key

Every ``--conf`` (and ``--master``, ``--jars`` ...) is passed to spark-submit. The server runs in the
foreground (as ``spark-submit`` does); stop it with Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def command(conf: dict[str, str] | None = None, *, port: int = 15002, master: str = "local[*]") -> list[str]:
    """spark-submit's command line for a Connect server with dptext's jar and extension."""
    from dptext import session

    settings = {
        "spark.sql.extensions": session.EXTENSION,
        "spark.connect.grpc.binding.port": str(port),
        **(conf or {}),
    }
    cmd = [str(spark_home() / "bin" / "spark-submit"), "--master", master, "--jars", session.jar_path()]
    for k, v in settings.items():
        cmd += ["--conf", f"{k}={v}"]
    return [*cmd, "--class", SERVER_CLASS, "spark-internal"]


def environment() -> dict[str, str]:
    """The server's environment: pyspark's Spark home, and no Connect client settings of this process."""
    env = {**os.environ, "SPARK_HOME": str(spark_home())}
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    env.pop("SPARK_REMOTE", None)
    return env


def main(argv: list[str]) -> None:
    port, master, conf, rest = 15002, "local[*]", {}, []
    args = iter(argv)
    for a in args:
        if a == "--port":
            port = int(next(args))
        elif a == "--master":
            master = next(args)
        elif a == "--conf":
            k, _, v = next(args).partition("=")
            conf[k] = v
        elif a in ("-h", "--help"):
            print(__doc__)
            return
        else:
            rest.append(a)
    cmd = command(conf, port=port, master=master)
    cmd = cmd[:-3] + rest + cmd[-3:]  # other spark-submit options before --class
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    os.execve(cmd[0], cmd, environment())


if __name__ == "__main__":
    main(sys.argv[1:])
