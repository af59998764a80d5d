#!/usr/bin/env python3
"""Writes two hostile profiler traces to OUT_DIR (hostile_rank0.json, hostile_rank1.json) from
the hand-made skew traces: a <script> is appended to every kernel, operator and annotation name,
and the process group description carries an <img onerror>. ProfilerStep names stay as they
are so that steps are still found.

  make_hostile_traces.py SOURCE_DIR OUT_DIR
"""
import json
import sys

SCRIPT = "<script>document.title='pwned'</script>"
IMG = "<img src=x onerror=\"document.title='pwned'\">"


def main():
    src, out = sys.argv[1], sys.argv[2]
    for rank in (0, 1):
        with open(f"{src}/tests/data/traces/skew_rank{rank}.json", encoding="utf-8") as f:
            doc = json.load(f)
        for e in doc["traceEvents"]:
            name = e.get("name", "")
            if e.get("ph") == "X" and not name.startswith("ProfilerStep"):
                e["name"] = name + SCRIPT
            args = e.get("args", {})
            if "Process Group Description" in args:
                args["Process Group Description"] = "pg" + IMG
        for pg in doc.get("distributedInfo", {}).get("pg_config", []):
            pg["pg_desc"] = "pg" + IMG
        with open(f"{out}/hostile_rank{rank}.json", "w", encoding="utf-8") as f:
            json.dump(doc, f)


if __name__ == "__main__":
    main()
