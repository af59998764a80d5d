#!/usr/bin/env python3
"""The same answer whatever way a public trace was saved (CTest `public_layouts`, label
`accuracy`). Each Kineto trace of tests/data/public_traces/ is re-saved the ways other tools and
re-savers write JSON, in a temporary folder (never committed), and `commdx trace --format json`
on the re-saved file must give the report it gives on the original, byte for byte once the file
name and size are set aside:

  one_line     json.dump defaults: one line, `", "` and `": "` between tokens
  compact      one line without blanks (separators=(",", ":")), written plain, not gzip
  indent2      pretty-printed, two spaces (several lines per event)
  indent_tab   pretty-printed with tabs
  crlf         one event per line with Windows line ends (and CRLF inside the header)
  sorted       keys sorted in every object (sort_keys=True, `jq -S`): "args" before "name",
               "traceEvents" after the header values
  shuffled     every event's keys in an order of its own (a fixed seed), as a writer that builds
               events from hash maps leaves them
  events_last  "traceEvents" moved to the end of the top-level object
  unicode      every complete event's name but ProfilerStep's given non-ASCII characters (µ, ✓,
               and 𝛼 from outside the BMP, a surrogate pair when escaped), written raw; compared
               with the same edit written as \\u escapes (the public traces are all ASCII)
  bom          one line behind a UTF-8 byte-order mark, as Windows tools save UTF-8
  spaced       values aligned after the colon (`"grid":     [65536, 1, 1]`, as ROCm's
               tracer writes args), several spaces after each comma
  blank_mix    every kind of JSON blank, several at a time, around every ':' and ','
               (`":\t \r\n  `): JSON allows any run of space, tab, CR and LF there

Numbers keep their original text (Python's float would round nanosecond timestamps: a change
of the data, not of the layout).

Variants that differ today are listed in public_layouts_known.txt as `TRACE:VARIANT reason`; the
test fails when one of them passes (remove it then) or when any other variant differs.

  public_layouts.py COMMDX DATA_DIR [--write-doc docs/accuracy.md]
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

import common


# Floats travel as their original text: Python's float would round Kineto's nanosecond
# timestamps (1712195495519689.047 has more digits than a double holds), a change of the data
# that a re-saver makes but that is not the layout's. Written as a marked string, unmarked after.
FLOAT_MARK = "@@float:"
FLOAT_RE = re.compile('"' + FLOAT_MARK + r'([-+.0-9eE]+)"')


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=lambda text: FLOAT_MARK + text)


def dumps(doc, **kw):
    return FLOAT_RE.sub(r"\1", json.dumps(doc, **kw))


def shuffled(doc):
    rng = random.Random(21)
    out = dict(doc)
    events = []
    for ev in doc.get("traceEvents", []):
        if isinstance(ev, dict):
            keys = list(ev)
            rng.shuffle(keys)
            ev = {k: ev[k] for k in keys}
        events.append(ev)
    out["traceEvents"] = events
    return out


def events_last(doc):
    out = {k: v for k, v in doc.items() if k != "traceEvents"}
    out["traceEvents"] = doc.get("traceEvents", [])
    return out


def per_line(doc, eol):
    """One event per line, as Kineto writes it, with `eol` line ends."""
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    parts = ["{" + eol]
    for k, v in head.items():
        parts.append(f"  {dumps(k)}: {dumps(v)},{eol}")
    parts.append('  "traceEvents": [' + eol)
    events = doc.get("traceEvents", [])
    for i, ev in enumerate(events):
        parts.append("  " + dumps(ev) + ("," if i + 1 < len(events) else "") + eol)
    parts.append("  ]" + eol + "}" + eol)
    return "".join(parts)


def non_ascii_names(doc):
    out = dict(doc)
    events = []
    for ev in doc.get("traceEvents", []):
        name = ev.get("name") if isinstance(ev, dict) else None
        if ev.get("ph") == "X" and isinstance(name, str) and not name.startswith("ProfilerStep"):
            ev = dict(ev, name=name + " \u00b5s \u2713 \U0001d6fc")
        events.append(ev)
    out["traceEvents"] = events
    return out


# (name, file suffix, text of the re-saved document, text whose report it must give: None for
# the original's)
def variants(doc):  # in the order of VARIANTS
    yield "one_line", ".json.gz", dumps(doc), None
    yield "compact", ".json", dumps(doc, separators=(",", ":")), None
    yield "indent2", ".json.gz", dumps(doc, indent=2), None
    yield "indent_tab", ".json.gz", dumps(doc, indent="\t"), None
    yield "crlf", ".json", per_line(doc, "\r\n"), None
    yield "sorted", ".json.gz", dumps(doc, sort_keys=True), None
    yield "shuffled", ".json.gz", dumps(shuffled(doc)), None
    yield "events_last", ".json.gz", dumps(events_last(doc)), None
    edited = non_ascii_names(doc)
    yield ("unicode", ".json.gz", dumps(edited, ensure_ascii=False),
           dumps(edited, ensure_ascii=True))
    yield "bom", ".json", "\ufeff" + dumps(doc), None
    yield "spaced", ".json.gz", dumps(doc, separators=(",   ", ":     ")), None
    yield "blank_mix", ".json", dumps(doc, separators=(" \t,\r\n  ", " \r\n:\t \n  ")), None


def write(path, text):
    data = text.encode("utf-8")
    if path.endswith(".gz"):
        data = gzip.compress(data, compresslevel=1)
    with open(path, "wb") as f:
        f.write(data)


def report_of(commdx, path):
    """The trace report with this input's name and size set aside."""
    p = subprocess.run([commdx, "trace", path, "--format", "json"], capture_output=True,
                       timeout=300)
    text = p.stdout.decode("utf-8", "replace").replace(json.dumps(path)[1:-1], "TRACE")
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        return p.returncode, None, p.stderr.decode("utf-8", "replace").strip()
    for inp in report.get("inputs", []):
        inp.pop("bytes", None)
    for row in report.get("data", {}).get("trace_ranks", []):
        row.pop("json_mb", None)
    for note in report.get("input_quality", []):  # where in the file: a byte offset
        note.get("first", {}).pop("offset", None)
    return p.returncode, report, ""


def first_difference(a, b, where="report"):
    """Where two JSON values first differ, as a path and both values (shortened)."""
    if type(a) is not type(b):
        return f"{where}: {str(a)[:120]} vs {str(b)[:120]}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{where}.{k}: only in {'variant' if k in b else 'original'}"
            d = first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} items"
        return None
    if isinstance(a, str) and a != b:
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        a, b = a[max(0, at - 40):at + 80], b[max(0, at - 40):at + 80]
    return None if a == b else f"{where}: {str(a)[:120]} vs {str(b)[:120]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("commdx")
    ap.add_argument("data")
    ap.add_argument("--write-doc")
    args = ap.parse_args()
    known = common.read_known("public_layouts_known.txt")
    traces = sorted(glob.glob(os.path.join(args.data, "*", "*.json*")))
    failures, known_seen, runs = [], set(), 0
    rows = []  # trace, JSON MB, events, then per variant "same" or the first difference
    with tempfile.TemporaryDirectory() as tmp:
        for src in traces:
            name = os.path.basename(os.path.dirname(src))
            if len(glob.glob(os.path.join(os.path.dirname(src), "*.json*"))) > 1:
                name += "/" + os.path.basename(src).split(".")[0]
            base_path = os.path.join(tmp, "original" + (".json.gz" if src.endswith(".gz")
                                                          else ".json"))
            with open(src, "rb") as f, open(base_path, "wb") as g:
                g.write(f.read())
            code, want, err = report_of(args.commdx, base_path)
            if want is None:
                failures.append(f"{name}: no report on the original (exit {code}): {err[:200]}")
                continue
            doc = load(src)
            opener = gzip.open if src.endswith(".gz") else open
            with opener(src, "rb") as f:
                row = [name, f"{len(f.read()) / 1e6:.1f}", str(len(doc.get("traceEvents", [])))]
            for variant, suffix, text, ref_text in variants(doc):
                key = f"{name}:{variant}"
                ref, ref_code = want, code
                if ref_text is not None:
                    ref_path = os.path.join(tmp, "reference" + suffix)
                    write(ref_path, ref_text)
                    ref_code, ref, err = report_of(args.commdx, ref_path)
                    os.remove(ref_path)
                path = os.path.join(tmp, variant + suffix)
                write(path, text)
                code2, got, err2 = report_of(args.commdx, path)
                os.remove(path)
                runs += 1
                row.append("same")
                if ref is None:
                    diff = f"no report on the reference (exit {ref_code}): {err[:200]}"
                elif got is None:
                    diff = f"no report (exit {code2}): {err2[:200]}"
                elif code2 != ref_code:
                    diff = f"exit {code2}, the reference's {ref_code}"
                else:
                    diff = first_difference(ref, got)
                if diff:
                    row[-1] = "known: " + diff if key in known else "DIFFERS: " + diff
                if diff and key in known:
                    known_seen.add(key)
                    print(f"known  {key}: {diff}")
                elif diff:
                    failures.append(f"{key}: {diff}")
                elif key in known:
                    failures.append(f"{key}: listed in public_layouts_known.txt but now the same")
            os.remove(base_path)
            rows.append(row)
            assert len(row) == 3 + len(VARIANTS), "variants() and VARIANTS disagree"
    for key in sorted(set(known) - known_seen):
        if not any(f.startswith(key + ":") for f in failures):
            failures.append(f"{key}: listed in public_layouts_known.txt but not run")
    print(f"{len(traces)} traces, {runs} re-saved files, {len(failures)} failures")
    for f in failures:
        print("FAIL " + f)
    if args.write_doc:
        write_doc(args.write_doc, rows, runs)
    return 1 if failures else 0


VARIANTS = ["one_line", "compact", "indent2", "indent_tab", "crlf", "sorted", "shuffled",
            "events_last", "unicode", "bom", "spaced", "blank_mix"]


def write_doc(path, rows, runs):
    same = sum(cell == "same" for row in rows for cell in row[3:])
    text = ("## Public traces re-saved in other JSON layouts\n\n"
            "Generated by `tests/accuracy/public_layouts.py build/commdx tests/data/public_traces "
            "--write-doc docs/accuracy.md`: each public trace re-saved the ways other tools write "
            "JSON (variants: the script's docstring; numbers keep their original text), and "
            "`commdx trace --format json` on the re-saved file compared with its report on the "
            "original (unicode: names given non-ASCII text, written raw, against the same "
            "edit written as \\\\u escapes), the input's size and byte offsets set aside. "
            "JSON MB: the "
            f"original, inflated.\n\n{same} of {runs} re-saved files give the report they should.\n\n"
            + common.table(["trace", "JSON MB", "events"] + VARIANTS, rows))
    common.write_doc_section(path, "public_layouts", text)


if __name__ == "__main__":
    sys.exit(main())
