#!/usr/bin/env python3
"""Writes the bad-input cases of NCCL's own outputs (issue 42: Inspector JSONL, RAS reports,
nccl-tests JSON) into tests/badinput/cases/, from the real captures in tests/data/inspector,
tests/data/ras and tests/data/nccl_tests_json. Rerun after a change:

    python3 tests/badinput/make_nccl_output_cases.py
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "badinput", "cases")


def main():
    with open(os.path.join(ROOT, "tests", "data", "inspector", "ddp_straggler",
                           "vm-pid1138.log"), "rb") as f:
        lines = f.read().splitlines(keepends=True)[:4]
    cases = {
        # line 2 broken in the middle (a partial write spliced with the next one)
        "inspector_bad_line.log": lines[0] + lines[1][:120] + b"\n" + lines[2] + lines[3],
        # the process killed while the plugin wrote: the last line ends mid-record
        "inspector_cut.log": lines[0] + lines[1] + lines[2][:150],
        # a format version this commdx does not read
        "inspector_v5.log": b"".join(l.replace(b'"v4.0"', b'"v5.0"') for l in lines),
    }
    def read(*parts):
        with open(os.path.join(ROOT, "tests", "data", *parts), "rb") as f:
            return f.read()

    ras = read("ras", "stopped_90s_json.txt")
    # a RAS JSON broken in another way than NCCL 2.28.9's missing comma: an error, not a guess
    cases["ras_broken.json"] = ras.replace(b'"size": 2,', b'"size": 2,,', 1)
    # the text report cut after its communicators table (the client killed): read as far as it goes
    text = read("ras", "stopped_90s_text.txt")
    cases["ras_cut.txt"] = text[: text.index(b"DEAD") + 60]
    # RAS monitor mode (NCCL 2.29+), from the seeds written to NCCL's format strings: the JSON
    # stream cut mid-object (the client killed while it wrote), and a text stream with a line
    # of something else spliced in (two writers on one terminal log)
    def seed(name):
        with open(os.path.join(ROOT, "tests", "fuzz", "corpus", "ras", name), "rb") as f:
            return f.read()
    mon = seed("monitor_json_seed.txt")
    cases["ras_monitor_cut.json"] = mon[: mon.rindex(b'"details"')]
    mon = seed("monitor_text_seed.txt").splitlines(keepends=True)
    cases["ras_monitor_spliced.txt"] = b"".join(mon[:4] + [b"\x00\xffbinary junk\n"] + mon[4:])
    # nccl-tests -J JSON cut mid-results (the test killed while writing)
    tests = read("nccl_tests_json", "all_reduce.json")
    cases["nccl_tests_cut.json"] = tests[: len(tests) // 2]
    # nccl#527's hand-made table with a host name where the node count was: not a result row
    # with one extra integer column, so no table is made up from it
    paste = read("nccl_tests_public", "nccl527-leading-node-count-column.txt")
    for n in b"1234":
        paste = paste.replace(b"\n   %c   1073741824" % n, b"\n   p4dn-%c   1073741824" % n)
    cases["nccl_tests_named_column.txt"] = paste
    for name, data in cases.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
