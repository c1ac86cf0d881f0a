"""Breakdown of one instrumented dptext run against one identity run (scripts/bench/fixed-cost.sh).

Reads WORK/{dptext,identity}-breakdown.{err,classes,wall}: the log lines stamped with the ms since the
JVM started (log4j2 %r), Spark's "Job N finished: <call site>, took X ms" and "Code generated in X ms"
lines, the DEBUG "phase: ..." lines of dptext and of the identity job, dptext's DEBUG lines of the
model's preparation thread, and -Xlog:class+load (with uptime). Prints markdown tables: the phases
side by side, the Spark jobs, code generation, the model's preparation, class loading.

Usage: fixed_cost_breakdown.py WORK SHADED_JAR
"""

import os
import re
import sys

LINE = re.compile(r"^(\d+) (\w+) (\S+): (.*)$")
JOB = re.compile(r"Job (\d+) finished: (.*), took ([\d.]+) ms")
CODEGEN = re.compile(r"Code generated in ([\d.]+) ms")
CLASS = re.compile(r"^\[([\d.]+)s\](?:\[info\]\[class,load\])? (\S+) source: (.*)$")


def events(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if m:
                out.append((int(m.group(1)), m.group(3), m.group(4)))
    return out


def first(evs, text):
    for t, _, msg in evs:
        if text in msg:
            return t
    return None


def classes(path, main_class):
    total, main_at, by_source = 0, None, {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = CLASS.match(line.strip())
            if not m:
                continue
            total += 1
            if m.group(2) == main_class and main_at is None:
                main_at = float(m.group(1)) * 1000
            src = m.group(3)
            if src.startswith("jrt:") or src == "shared objects file":
                key = "JDK"
            elif src.startswith("shared objects file"):
                key = "from the class-data archive (scripts/dptext's AppCDS)"
            elif not (src.startswith("file:") and src.endswith(".jar")):
                key = "generated at run time (lambdas, reflection, Janino)"
            elif "dptext-spark-job" in src:
                key = "dptext shaded jar"
            elif "/io/delta/" in src:
                key = "Delta jars"
            else:
                key = "Spark, Scala, Hadoop and other jars"
            by_source[key] = by_source.get(key, 0) + 1
    return total, main_at, by_source


def wall(path):
    with open(path) as f:
        m = re.search(r"wall ([\d.]+) s, CPU ([\d.]+) s", f.read())
    return float(m.group(1)) * 1000, float(m.group(2))


def seconds(ms):
    return "—" if ms is None else f"{ms / 1000:.2f} s"


def main():
    work = sys.argv[1]
    d = events(os.path.join(work, "dptext-breakdown.err"))
    i = events(os.path.join(work, "identity-breakdown.err"))
    d_wall, d_cpu = wall(os.path.join(work, "dptext-breakdown.wall"))
    i_wall, i_cpu = wall(os.path.join(work, "identity-breakdown.wall"))
    d_classes, d_main, d_src = classes(os.path.join(work, "dptext-breakdown.classes"), "dev.dptext.job.DpTextJob")
    i_classes, i_main, i_src = classes(os.path.join(work, "identity-breakdown.classes"), "dev.dptext.bench.IdentityJob")

    def marks(evs, main_at, steps):
        """(label, start, end) for consecutive marks; None when a mark is missing."""
        points = [("JVM start", 0), ("main class loaded", main_at)]
        for label, text in steps:
            points.append((label, first(evs, text)))
        points.append(("SparkContext stopped (shutdown hook)", first(evs, "Successfully stopped SparkContext")))
        return points

    d_points = marks(d, d_main, [
        ("SparkContext starts", "Running Spark version"),
        ("session ready", "phase: session ready"),
        ("output checked", "phase: output checked"),
        ("options read, key resolved", "phase: key resolved"),
        ("input schema read (reader set-up, inference job)", "phase: input schema read"),
        ("input counted (a pass of its own, when the check cannot ride the write)", "phase: input counted"),
        ("accepted rows planned (the check rides the write)", "phase: input to be checked as the write reads it"),
        ("model prepared (wait)", "phase: model prepared"),
        ("write planned", "phase: writing"),
        ("written and rows counted", "phase: committed"),
        ("summary printed", "phase: summary printed"),
    ])
    i_points = marks(i, i_main, [
        ("SparkContext starts", "Running Spark version"),
        ("session ready", "phase: session ready"),
        ("input schema read (reader set-up, inference job)", "phase: input schema read"),
        ("written", "phase: written"),
    ])

    print(f"dptext: wall {d_wall / 1000:.2f} s, CPU {d_cpu:.1f} s; identity: wall {i_wall / 1000:.2f} s, "
          f"CPU {i_cpu:.1f} s (instrumented runs); difference {(d_wall - i_wall) / 1000:+.2f} s")
    print()
    print("Phases (ms since JVM start at each mark; a step is the time from the previous mark):")
    print()
    print("| step, ending at | dptext | identity |")
    print("|---|---:|---:|")
    i_by_label = {}
    prev = 0
    for label, t in i_points[1:]:
        if t is not None:
            i_by_label[label] = (t - prev, t)
            prev = t
    prev = 0
    for label, t in d_points[1:]:
        if t is None:
            continue
        step = t - prev
        prev = t
        other = i_by_label.get(label)
        print(f"| {label} | {step / 1000:.2f} s (at {t / 1000:.2f}) | "
              + (f"{other[0] / 1000:.2f} s (at {other[1] / 1000:.2f})" if other else "—") + " |")
    d_last = max(t for _, t in d_points if t is not None)
    i_last = max(t for _, t in i_points if t is not None)
    print(f"| JVM exit and launch, outside the log (wall − last mark) | {(d_wall - d_last) / 1000:.2f} s | "
          f"{(i_wall - i_last) / 1000:.2f} s |")
    print()

    print("Model preparation (its own thread, from 'key resolved'):")
    start = first(d, "phase: key resolved")
    for label, text in [("model loaded", "model ready"), ("sampler built", "sanitizer built"),
                        ("broadcast", "sanitizer broadcast"),
                        ("handed to local tasks", "sanitizer handed to local tasks")]:
        t = first(d, text)
        if t is not None and start is not None:
            print(f"- {label}: at {t / 1000:.2f} s, {(t - start) / 1000:.2f} s after the key")
            start = t
    print()

    for name, evs in (("dptext", d), ("identity", i)):
        print(f"Spark jobs, {name} (DAGScheduler: call site, duration):")
        total = 0.0
        for t, _, msg in evs:
            m = JOB.search(msg)
            if m:
                total += float(m.group(3))
                print(f"- job {m.group(1)} ending at {t / 1000:.2f} s: {m.group(2)}, {float(m.group(3)):.0f} ms")
        gen = [float(m.group(1)) for _, _, msg in evs for m in [CODEGEN.search(msg)] if m]
        print(f"- jobs' total {total / 1000:.2f} s; code generation: {len(gen)} classes, {sum(gen) / 1000:.2f} s")
        print()

    print("Classes loaded (-Xlog:class+load):")
    print()
    print("| source | dptext | identity |")
    print("|---|---:|---:|")
    for key in sorted(set(d_src) | set(i_src)):
        print(f"| {key} | {d_src.get(key, 0):,} | {i_src.get(key, 0):,} |")
    print(f"| total | {d_classes:,} | {i_classes:,} |")
    print(f"| main class loaded at | {seconds(d_main)} | {seconds(i_main)} |")


if __name__ == "__main__":
    main()
