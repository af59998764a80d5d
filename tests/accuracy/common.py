"""Shared by the accuracy scripts: running commdx, the known-failure lists, the per-step cost check
and writing one section of docs/accuracy.md."""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(commdx, command, target, timeout=300):
    """Runs `commdx COMMAND TARGET --format json`; returns (exit code, report or None, stderr)."""
    p = subprocess.run([commdx, command, target, "--format", "json"], capture_output=True,
                       text=True, timeout=timeout)
    report = None
    if p.stdout.strip():
        try:
            report = json.loads(p.stdout)
        except json.JSONDecodeError:
            report = None
    return p.returncode, report, p.stderr.strip()


def read_known(filename):
    """A known-failure list: `KEY reason` per line, `#` comments. Returns {key: reason}."""
    known = {}
    path = os.path.join(HERE, filename)
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#"):
                key, _, why = line.partition(" ")
                known[key] = why.strip()
    return known


def said(report):
    """What commdx names: the root cause, else the top finding, else 'nothing'; with the rank."""
    findings = report.get("findings", [])
    root = report.get("root_cause")
    name = root["id"] if root else (findings[0]["id"] if findings else "nothing")
    top = findings[0] if findings else None
    if top and top.get("rank") is not None:
        name += f" (rank {top['rank']})"
    return name


def mean_step_ms(report):
    """{rank: mean step time in ms} from the trace step breakdown; empty without one."""
    rows = report.get("data", {}).get("trace_step_breakdown", [])
    return {r["rank"]: r["step_ms"] for r in rows if r.get("step") == "mean" and r.get("step_ms")}


def costs_over_step(report):
    """Findings whose cost per step exceeds the step time they are a part of: the step of their
    rank, or the slowest rank's step for a finding without a rank. Returns (checked, problems):
    checked is False when the report has no step times to compare with."""
    steps = mean_step_ms(report)
    if not steps:
        return False, []
    problems = []
    for f in report.get("findings", []):
        cost = f.get("saving_per_step_ns")
        if cost is None:
            continue
        rank = f.get("rank")
        step = steps.get(rank) if rank is not None else max(steps.values())
        if step is None:
            step = max(steps.values())
        if cost / 1e6 > step * 1.001:
            where = f" rank {rank}" if rank is not None else ""
            problems.append(f"{f['id']}{where} costs {cost / 1e6:.1f} ms/step, step {step:.1f} ms")
    return True, problems


def write_doc_section(path, name, text):
    """Replaces the section between `<!-- begin NAME -->` and `<!-- end NAME -->` in PATH (appended
    when absent), so each script owns its own part of docs/accuracy.md."""
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    old = open(path).read() if os.path.exists(path) else ""
    block = f"{begin}\n{text.rstrip()}\n{end}\n"
    if begin in old and end in old:
        head, _, rest = old.partition(begin)
        _, _, tail = rest.partition(end)
        new = head + block + tail.lstrip("\n")
    else:
        new = old + ("\n" if old and not old.endswith("\n\n") else "") + block
    with open(path, "w") as f:
        f.write(new)


def table(header, rows):
    out = "| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n"
    for r in rows:
        out += "| " + " | ".join(str(x).replace("|", "\\|").replace("\n", " ") for x in r) + " |\n"
    return out
