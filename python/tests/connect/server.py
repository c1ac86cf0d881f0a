"""A local Spark Connect server with the dptext jar and extension, started and stopped by its PID.

pyspark's wheel ships Spark's jars, spark-connect included, and bin/spark-submit: the server is
started exactly as a user starts one from a pip install (``python -m dptext.connect_server``, whose
command line this reuses: ``--jars`` the dptext jar, ``spark.sql.extensions``), in its own JVM, with its
log in a file the tests search for the key.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from dptext import connect_server
from tests import support


@dataclass
class ConnectServer:
    process: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"sc://localhost:{self.port}"

    def stop(self) -> None:
        """SIGTERM to our PID (spark-submit execs the JVM, so the PID is the server's), then SIGKILL."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(key_file: Path, conf: dict[str, str] | None = None, timeout: float = 240) -> ConnectServer:
    port = free_port()
    log = support.TMP / "connect-server.log"
    settings = {
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.warehouse.dir": str(support.TMP / "connect-warehouse"),
        "spark.dptext.keyFile": str(key_file),
        "spark.driver.extraJavaOptions": support.jvm_options(f"-Dderby.system.home={support.TMP / 'connect-derby'}"),
        **(conf or {}),
    }
    cmd = connect_server.command(settings, port=port, master="local[2]")
    env = connect_server.environment()
    with open(log, "wb") as out:
        process = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    server = ConnectServer(process, port, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the Connect server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return server
        time.sleep(1)
    server.stop()
    raise RuntimeError(f"the Connect server did not listen on {port} in {timeout} s:\n{log.read_text()[-3000:]}")
