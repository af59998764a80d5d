#!/usr/bin/env python3
"""Grows a real Kineto trace and writes it in the layouts other tools and re-savers use, for the
trace-ingest benchmark (bench_programs/trace_layouts.sh; outputs are not committed):

  perline  one event per line            ([\\n{...},\\n{...}\\n], like many exporters)
  oneline  one line, no newlines         (Python's json.dump without indent)
  compact  one line, no spaces           (json.dump with separators=(",", ":"))
  indent   pretty-printed, indent=2      (json.dump(indent=2): several lines per event)
  crlf     indent=2 with CRLF line ends  (the same saved on Windows)
  sorted   one event per line, keys sorted (json.dump(sort_keys=True), `jq -S -c`: "args"
           first, "ts" last, unlike Kineto's "ph", "cat", "name", ...)

    python3 bench_programs/make_trace_layouts.py SRC.json.gz OUT_PREFIX --mb 500 \\
        --layouts perline,oneline --gz

writes OUT_PREFIX.perline.json (or OUT_PREFIX.perline.json.gz with --gz). The events are repeated until the
output reaches --mb, each copy shifted in time by the span of the original, with correlation
ids, External ids, flow ids and ProfilerStep numbers renumbered so that every copy links up on
its own (like a longer profile of the same job). The source is read through Python's json, so
numbers keep their form (integer or float µs, relative or epoch).
"""
import argparse
import gzip
import json
import re
from itertools import chain

# The numbers renumbered in each copy, found in the text of one copy in the target layout:
# timestamps, flow ids, correlation and External ids, ProfilerStep numbers.
SLOT = re.compile(r'("ts": ?|"id": ?|"correlation": ?|"External id": ?|ProfilerStep#)([0-9]+)')


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


class Template:
    """One copy of the events as text, split at the numbers to renumber. Copy k (from 0) adds
    (k + 1) * 10^P to every timestamp's integer µs (10^P over the trace's span) and writes ids
    and step numbers as k + 1 followed by the original zero-padded to a fixed width, so each
    copy is a join of fixed pieces with a handful of distinct inserted strings: fast enough to
    write GBs from Python."""

    def __init__(self, body):
        ts = [int(m.group(2)) for m in SLOT.finditer(body) if m.group(1).startswith('"ts"')]
        span = (max(ts) - min(ts)) if ts else 0
        self.p = len(str(span)) + 1
        ids = [m.group(2) for m in SLOT.finditer(body) if not m.group(1).startswith('"ts"')]
        self.w = max((len(x) for x in ids), default=1)
        self.pieces, self.heads = [], []  # heads[i]: None for an id, else the ts above 10^P
        last = 0
        for m in SLOT.finditer(body):
            key, num = m.group(1), int(m.group(2))
            self.pieces.append(body[last:m.start(2)])
            if key.startswith('"ts"'):
                self.heads.append(num // 10 ** self.p)
                last_text = str(num % 10 ** self.p).zfill(self.p)
            else:
                self.heads.append(None)
                last_text = str(num).zfill(self.w)
            self.pieces.append(last_text)
            last = m.end(2)
        self.rest = body[last:]

    def copy(self, k):
        table = {h: str(h + k + 1) for h in set(self.heads) if h is not None}
        table[None] = str(k + 1)
        inserts = [table[h] for h in self.heads]
        # piece, insert, digits, piece, insert, digits, ...
        before, digits = self.pieces[0::2], self.pieces[1::2]
        return "".join(chain.from_iterable(zip(before, inserts, digits))) + self.rest


class Layout:
    def __init__(self, name):
        self.name = name
        self.nl = "\r\n" if name == "crlf" else "\n"

    def event(self, e):
        if self.name in ("perline", "oneline"):
            return json.dumps(e)
        if self.name == "sorted":
            return json.dumps(e, sort_keys=True)
        if self.name == "compact":
            return json.dumps(e, separators=(",", ":"))
        text = json.dumps(e, indent=2)  # as nested two levels deep in json.dump(doc, indent=2)
        return text.replace("\n", self.nl + "    ")

    def head(self, doc):
        rest = {k: v for k, v in doc.items() if k != "traceEvents"}
        if self.name in ("oneline", "compact"):
            sep = (",", ":") if self.name == "compact" else None
            inner = json.dumps(rest, separators=sep)[1:-1]
            return "{" + inner + ("," if inner else "") + '"traceEvents":' + ("[" if sep else " [")
        if self.name in ("perline", "sorted"):
            inner = json.dumps(rest, sort_keys=self.name == "sorted")[1:-1]
            return "{" + inner + (", " if inner else "") + '"traceEvents": [\n'
        inner = json.dumps(rest, indent=2)[1:-1].rstrip().replace("\n", self.nl)
        return "{" + inner + ("," if inner else "") + self.nl + '  "traceEvents": [' + self.nl + "    "

    def between(self):
        return {"perline": ",\n", "sorted": ",\n", "oneline": ", ", "compact": ","}.get(
            self.name, "," + self.nl + "    ")

    def tail(self):
        if self.name in ("oneline", "compact"):
            return "]}"
        if self.name in ("perline", "sorted"):
            return "\n]}\n"
        return self.nl + "  ]" + self.nl + "}" + self.nl


def write(doc, layout, path, target_bytes, gz):
    events = doc["traceEvents"]
    template = Template(layout.between().join(layout.event(e) for e in events))
    opener = (lambda p: gzip.open(p, "wt", encoding="utf-8", compresslevel=6, newline="")) \
        if gz else (lambda p: open(p, "w", encoding="utf-8", newline=""))
    total, k = 0, 0
    with opener(path) as out:
        out.write(layout.head(doc))
        while total < target_bytes:
            chunk = (layout.between() if k else "") + template.copy(k)
            out.write(chunk)
            total += len(chunk)
            k += 1
        out.write(layout.tail())
    return k, k * len(events)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("prefix")
    p.add_argument("--mb", type=float, default=500, help="size of the events text in MB (1e6)")
    p.add_argument("--layouts", default="perline,oneline,compact,indent,crlf")
    p.add_argument("--gz", action="store_true", help="write each layout gzip-compressed instead")
    a = p.parse_args()
    doc = load(a.src)
    for name in a.layouts.split(","):
        path = "%s.%s.json%s" % (a.prefix, name, ".gz" if a.gz else "")
        copies, n = write(doc, Layout(name), path, a.mb * 1e6, a.gz)
        print("%s: %d copies, %d events" % (path, copies, n))


if __name__ == "__main__":
    main()
