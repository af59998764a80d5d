#!/usr/bin/env python3
"""A trace cut short is read up to its cut (CTest `cut_traces`, label `accuracy`). A job killed,
hung or out of memory while the profiler wrote leaves a trace file that ends anywhere: each
Kineto trace of tests/data/public_traces/ is cut, in a temporary folder (never committed), at
many byte offsets of its JSON (written plain) and at a few offsets of its gzip stream, and
`commdx trace --format json` on the cut file must:

  * exit 0 (or 1 with error-level findings) with a `kineto.trace_cut_short` note that names the
    file, or, where the cut comes before the first event of traceEvents, exit 3 with an error
    that says so;
  * have read every event that is complete before the cut, and none other: its event count is
    the number of traceEvents items that end before the cut (found here by a bracket walk over
    the bytes);
  * for every step it keeps (not marked `*` as cut), give the numbers the full trace gives that
    step, within TOLERANCE_MS: a step's window ends where the next one's begins, which moves
    when the next step lost GPU work to the cut.

  cut_traces.py COMMDX DATA_DIR [--cuts N]
"""
import argparse
import glob
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import zlib

import common

TOLERANCE_MS = 0.01
TOKEN = re.compile(rb'["\\\[\]{}]')


def item_ends(raw):
    """Byte offsets just past each item of the top-level "traceEvents" array (items are read
    with strings and nesting respected, as a JSON parser would), and the offset of its '['."""
    key = raw.find(b'"traceEvents"')
    start = raw.index(b"[", key)
    ends, depth, in_str, skip = [], 0, False, -1
    for m in TOKEN.finditer(raw, start + 1):
        i = m.start()
        if i < skip:  # the byte after a backslash
            continue
        c = m.group()
        if in_str:
            if c == b"\\":
                skip = i + 2
            elif c == b'"':
                in_str = False
                if depth == 0:
                    ends.append(i + 1)  # a string item
            continue
        if c == b'"':
            in_str = True
        elif c in b"{[":
            depth += 1
        elif depth == 0:  # the ']' of traceEvents
            break
        else:
            depth -= 1
            if depth == 0:
                ends.append(i + 1)
    return start, ends


def steps_of(text):
    """{(rank, step): [ms...]} of the text report's step breakdown ("Where each step's GPU time
    goes"), steps cut marked with '*' (the JSON rows do not say which steps are cut)."""
    out, inside = {}, False
    for line in text.splitlines():
        if line.startswith("Where each step's GPU time goes"):
            inside = True
            continue
        if not inside or line.lstrip().startswith("rank "):
            continue
        cells = line.split()
        if len(cells) < 3 or not cells[0].isdigit():
            break
        out[(cells[0], cells[1])] = cells[2:]
    return out


def compare_steps(full, cut):
    """Differences between the steps the cut report keeps and the same steps of the full one."""
    problems, kept = [], 0
    full_steps = steps_of(full)
    for (rank, step), row in steps_of(cut).items():
        if step == "mean" or step.endswith("*"):
            continue
        kept += 1
        ref = full_steps.get((rank, step)) or full_steps.get((rank, step + "*"))
        if ref is None:
            problems.append(f"rank {rank} step {step}: not in the full trace's report")
            continue
        for i, (v, w) in enumerate(zip(row, ref)):
            try:
                far = abs(float(v) - float(w)) > TOLERANCE_MS
            except ValueError:
                far = v != w
            if far:
                problems.append(f"rank {rank} step {step} column {i + 3}: {v} vs {w} in the "
                                f"full trace")
    return kept, problems


def run(commdx, path):
    """(exit code, JSON report or None, stderr, text report)."""
    p = subprocess.run([commdx, "trace", path, "--format", "json"], capture_output=True,
                       timeout=300)
    try:
        report = json.loads(p.stdout.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        report = None
    text = subprocess.run([commdx, "trace", path], capture_output=True, timeout=300).stdout
    return (p.returncode, report, p.stderr.decode("utf-8", "replace").strip(),
            text.decode("utf-8", "replace"))


def complete(data):
    """Whether `data` is a whole JSON document."""
    try:
        json.loads(data)
        return True
    except ValueError:
        return False


def cut_note(report):
    return next((q for q in report.get("input_quality", [])
                 if q["id"] == "kineto.trace_cut_short"), None)


def events_read(report):
    return sum(r.get("events", 0) for r in report.get("data", {}).get("trace_ranks", []))


def check_cut(commdx, path, full, expect_events, label):
    """Problems with the report on one cut file (empty: all as it should be)."""
    code, report, err, text = run(commdx, path)
    if expect_events == 0:
        if code == 3 and "before its first event" in err:
            return [], 0
        return [f"{label}: cut before the first event: exit {code}, {err[:200]}"], 0
    if report is None or code not in (0, 1):
        return [f"{label}: exit {code}, no report: {err[:300]}"], 0
    problems = []
    note = cut_note(report)
    if note is None:
        problems.append(f"{label}: no kineto.trace_cut_short note")
    elif os.path.basename(path) not in note["message"]:
        problems.append(f"{label}: the note does not name the file: {note['message'][:200]}")
    got = events_read(report)
    if expect_events is not None and got != expect_events:
        problems.append(f"{label}: {got} events read, {expect_events} complete before the cut")
    kept, diffs = compare_steps(full, text)
    problems += [f"{label}: {d}" for d in diffs]
    return problems, kept


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("commdx")
    ap.add_argument("data")
    ap.add_argument("--cuts", type=int, default=16, help="plain-JSON cut points per trace")
    args = ap.parse_args()
    traces = sorted(glob.glob(os.path.join(args.data, "*", "*.json.gz")))
    failures, files, kept_total = [], 0, 0
    rng = random.Random(39)
    with tempfile.TemporaryDirectory() as tmp:
        for src in traces:
            name = os.path.basename(os.path.dirname(src)) + "/" + os.path.basename(src)
            with open(src, "rb") as f:
                packed = f.read()
            raw = gzip.decompress(packed)
            full_path = os.path.join(tmp, "full.json")
            with open(full_path, "wb") as f:
                f.write(raw)
            code, report, err, full = run(args.commdx, full_path)
            if report is None:
                failures.append(f"{name}: no report on the whole trace (exit {code}): {err[:200]}")
                continue
            start, ends = item_ends(raw)
            # Cuts spread over the file, a few random bytes, and the hard places: right after an
            # event's '}', after its ',', and just before the end.
            cuts = [int(len(raw) * (i + 0.5) / args.cuts) for i in range(args.cuts)]
            cuts += [rng.randrange(start, len(raw)) for _ in range(4)]
            if ends:
                k = rng.randrange(len(ends))
                cuts += [ends[k], ends[k] + 1, ends[-1], len(raw) - 1]
            for at in sorted(set(cuts)):
                path = os.path.join(tmp, "cut.json")  # no digits: the rank is not in the name
                with open(path, "wb") as f:
                    f.write(raw[:at])
                # Events complete before the cut; None after traceEvents (all of them).
                expect = None if ends and at >= ends[-1] else sum(e <= at for e in ends)
                if complete(raw[:at]):  # only blanks after the document were cut
                    continue
                if at <= start:
                    expect = -1  # cut before traceEvents: the error of a file cut in its header
                files += 1
                if expect == -1:
                    code, _, err, _ = run(args.commdx, path)
                    if code != 3 or "truncated" not in err:
                        failures.append(f"{name}@{at}: cut in the header: exit {code}, {err[:200]}")
                else:
                    problems, kept = check_cut(args.commdx, path, full, expect, f"{name}@{at}")
                    failures += problems
                    kept_total += kept
                os.remove(path)
            for frac in (0.5, 0.9, 0.999):  # the gzip stream itself cut short
                path = os.path.join(tmp, "cut.json.gz")
                with open(path, "wb") as f:
                    f.write(packed[:int(len(packed) * frac)])
                inflated = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(
                    packed[:int(len(packed) * frac)])
                expect = (None if ends and len(inflated) >= ends[-1] else
                          sum(e <= len(inflated) for e in ends))
                files += 1
                problems, kept = check_cut(args.commdx, path, full, expect,
                                           f"{name}@gzip{frac}")
                failures += problems
                kept_total += kept
                os.remove(path)
    print(f"{len(traces)} traces, {files} cut files, {kept_total} kept steps compared, "
          f"{len(failures)} failures")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
