#!/usr/bin/env python3
"""Writes the bad-input cases of issue 39 that are files (tests/badinput/cases/): UTF-16 text as
Windows PowerShell 5 writes it with `>` or `Out-File` (UTF-16LE with a byte-order mark, CRLF line
ends), UTF-16BE without one, and UTF-16LE without one of text with colour codes. Made from the same small real inputs as
make_cases.py (the 2xH200 capture captures/ddp_healthy, its nvidia-smi topo -m text). Rerun
after a change:

    python3 tests/badinput/make_text_cases.py
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "badinput", "cases")


def read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def powershell(text):
    """`Get-Content x | Out-File y` / `cmd > y` in Windows PowerShell 5.1: UTF-16LE, BOM, CRLF."""
    lines = text.decode("utf-8").replace("\r\n", "\n").split("\n")
    return "\r\n".join(lines).encode("utf-16")  # Python's "utf-16" writes the LE BOM on x86


def main():
    log = read("captures", "ddp_healthy", "nccl.vm.654.log")
    topo = read("tests", "data", "smi", "h200x2-topo-m.txt")
    trace = read("tests", "fuzz", "corpus", "kineto", "ddp_healthy_rank0.json")
    put("utf16_nccl.log", powershell(log))
    put("utf16_topo.txt", powershell(topo))
    put("utf16_trace.json", powershell(trace))
    # Big-endian without a byte-order mark (some Java and mainframe tools).
    put("utf16be_nccl.log", log.decode("utf-8").encode("utf-16-be"))
    # Little-endian without one, of nvidia-smi topo -m as run on a terminal: its header is
    # underlined with colour codes (ESC [4m), which once made it "not a format".
    colour_topo = read("tests", "data", "smi", "h200x1-topo-m.txt")
    put("utf16le_colour_topo.txt", colour_topo.decode("utf-8").encode("utf-16-le"))


if __name__ == "__main__":
    main()
