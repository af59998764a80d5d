#!/usr/bin/env python3
"""Writes the bad-input cases of issue 16 part B (text as other tools write it) into
tests/badinput/cases/, from the same small real inputs as make_cases.py. Rerun after a change:

    python3 tests/badinput/make_parse_cases.py
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "badinput", "cases")
BOM = b"\xef\xbb\xbf"


def read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    trace = read("tests", "fuzz", "corpus", "kineto", "ddp_healthy_rank0.json")
    log = read("captures", "ddp_healthy", "nccl.vm.654.log")
    env = read("captures", "ddp_healthy", "env_rank0.json")
    topo = read("tests", "data", "smi", "h200x2-topo-m.txt")
    # A byte-order mark (Windows editors, PowerShell `>`) before each format.
    put("bom_trace.json", BOM + trace)
    put("bom_env.json", BOM + env)
    put("bom_nccl.log", BOM + log)
    put("bom_topo.txt", BOM + topo)
    # Classic-Mac line ends: a lone CR ends every line.
    put("cr_only_nccl.log", log.replace(b"\n", b"\r"))
    # Saved results compare refuses: another schema version, and two different commands.
    result = {"schema_version": 1, "command": "diagnose", "tool_version": "0", "findings": []}
    put("result_diagnose.json", json.dumps(result).encode())
    put("result_schema_999.json", json.dumps(dict(result, schema_version=999)).encode())
    put("result_bench.json", json.dumps(dict(result, command="bench")).encode())


if __name__ == "__main__":
    main()
