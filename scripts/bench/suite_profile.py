#!/usr/bin/env python3
"""Where the suite's time goes, from scripts/bench/suite.sh's samples and timestamped log.

Per test class (from Surefire's "Running" lines) and per Maven phase: wall seconds and the machine's
busy CPU-seconds in that interval (all processes: the test JVM and the JVMs it started). Per process
that used 2 CPU-seconds or more: its lifetime and CPU-seconds.
"""
import re
import sys
from pathlib import Path

work = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/dptext-suite")
stat, procs = [], {}
t = None
for line in (work / "samples.txt").read_text().splitlines():
    if line.startswith("T "):
        parts = line.split()
        t = int(parts[1])
        v = list(map(int, parts[3:]))
        stat.append((t, sum(v[:8]) - v[3] - v[4]))  # busy jiffies: all but idle and iowait
    elif line.startswith("P ") and t is not None:
        parts = line.split(None, 4)
        pid, cpu, args = parts[1], int(parts[3]), parts[4] if len(parts) > 4 else ""
        seen = procs.get(pid)
        procs[pid] = (seen[0] if seen else t, t, cpu, seen[3] if seen else args)
if not stat:
    sys.exit("no samples in " + str(work / "samples.txt"))
t0, hz = stat[0][0], 100
wall = stat[-1][0] - t0


def busy_at(offset):
    best = stat[0][1]
    for tt, b in stat:
        if tt - t0 <= offset:
            best = b
    return best


def kind(args):
    m = re.search(r"(surefirebooter\S*|SparkConnectServer|dev\.dptext\.[\w.]+|plexus-classworlds|pytest|"
                  r"pyspark\S*|SparkSubmit)", args)
    module = re.search(r"/clone/([\w-]+)/", args)
    return (m.group(1) if m else args[:60]) + (f" [{module.group(1)}]" if module else "")


busy = (stat[-1][1] - stat[0][1]) / hz
print(f"wall {wall} s; busy {busy:.0f} CPU-s; use of 2 cores {busy / (2 * wall):.0%}")
print("-- processes with 2 CPU-s or more: start-end (s), CPU-s")
for pid, (first, last, cpu, args) in sorted(procs.items(), key=lambda p: p[1][0]):
    if cpu >= 2:
        print(f"{first - t0:5d}-{last - t0:5d}  {cpu:5d}  {kind(args)[:110]}")
marks = []
for line in (work / "ci.log").read_text().splitlines():
    m = re.match(r"(\d+) .*Running (dev\.dptext\.\S+)", line)
    if m:
        marks.append((int(m.group(1)), m.group(2).rsplit(".", 1)[-1]))
    m = re.match(r"(\d+) \[INFO\] (Building (dptext \S+ ?\S*|jar).*)", line)
    if m:
        marks.append((int(m.group(1)), "## " + m.group(2)[:60]))
marks.append((wall, "END"))
print("-- per class: start (s), wall (s), CPU-s")
for (start, name), (end, _) in zip(marks, marks[1:]):
    if end - start >= 3:
        print(f"{start:5d} {end - start:4d} {(busy_at(end) - busy_at(start)) / hz:7.1f}  {name}")
