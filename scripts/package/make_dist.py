#!/usr/bin/env python3
"""Packs a built commdx binary into a wheel and a tarball (used by scripts/package.sh).

The wheel is written directly (a zip with the binary under commdx-V.data/scripts/, which pip
installs into the environment's bin/, and the dist-info files WHEEL, METADATA and RECORD), so
nothing is needed from PyPI to make it. Its platform tag is read off the binary: the newest
GLIBC_x.y symbol version it needs gives manylinux_x_y. A binary that needs a shared library
other than glibc's (and libz) is refused.
"""
import argparse
import base64
import hashlib
import io
import pathlib
import re
import subprocess
import sys
import tarfile
import zipfile

REPO = pathlib.Path(__file__).resolve().parents[2]
# Libraries every glibc system has (libz too, though the package links it statically).
ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                  "ld-linux-x86-64.so.2", "libz.so.1"}
EXAMPLES = ["ddp_p2p_disable", "ddp_healthy"]  # README's first example, and a healthy job
DOCS = ["docs/findings.md", "docs/findings", "docs/report-json.md", "docs/bench-method.md",
        "docs/trace-metrics.md"]
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so the same binary gives the same wheel


def needed_libraries(binary):
    out = subprocess.run(["readelf", "-d", binary], check=True, capture_output=True, text=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out.stdout)


def glibc_floor(binary):
    out = subprocess.run(["objdump", "-T", binary], check=True, capture_output=True, text=True)
    found = re.findall(r"GLIBC_(\d+(?:\.\d+)+)", out.stdout)
    return max((tuple(int(x) for x in v.split(".")) for v in found), default=(2, 0))


def platform_tags(floor, target):
    """The wheel's tags: the newer of the glibc the binary needs and the one it was built for."""
    major, minor = max(floor[:2], target)
    tags = [f"manylinux_{major}_{minor}_x86_64"]
    if (major, minor) == (2, 17):
        tags.append("manylinux2014_x86_64")  # the legacy name, for pip older than 20.3
    return tags


def tree_files(rel):
    """(path in the repository, path relative to it) for a file or every file under a folder."""
    path = REPO / rel
    if path.is_file():
        return [(path, pathlib.PurePosixPath(rel))]
    return [(p, pathlib.PurePosixPath(p.relative_to(REPO).as_posix()))
            for p in sorted(path.rglob("*")) if p.is_file()]


def user_files(licenses):
    """(source, name inside the package) for the docs, examples and licences a user needs."""
    files = tree_files("README.md")
    for rel in DOCS:
        files += tree_files(rel)
    for name in EXAMPLES:
        files += tree_files(f"examples/{name}")
    for lic in licenses:
        src = pathlib.Path(lic)
        files.append((src, pathlib.PurePosixPath("licenses") / f"{src.parent.name}-{src.name}"))
    return files


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(out, binary, version, tags, extras):
    data_dir = f"commdx-{version}.data"
    info_dir = f"commdx-{version}.dist-info"
    readme = (REPO / "README.md").read_text()
    metadata = ("Metadata-Version: 2.1\nName: commdx\nVersion: " + version + "\n"
                "Summary: Diagnoses slow GPU-to-GPU communication in distributed training\n"
                "Description-Content-Type: text/markdown\n\n" + readme)
    wheel = ("Wheel-Version: 1.0\nGenerator: commdx scripts/package/make_dist.py\n"
             "Root-Is-Purelib: false\n" + "".join(f"Tag: py3-none-{t}\n" for t in tags))
    entries = [(f"{data_dir}/scripts/commdx", pathlib.Path(binary).read_bytes(), 0o755)]
    for src, rel in extras:  # installed under <venv>/share/commdx/
        entries.append((f"{data_dir}/data/share/commdx/{rel}", src.read_bytes(), 0o644))
    entries += [(f"{info_dir}/METADATA", metadata.encode(), 0o644),
                (f"{info_dir}/WHEEL", wheel.encode(), 0o644)]
    record = "".join(record_line(n, d) + "\n" for n, d, _ in entries) + f"{info_dir}/RECORD,,\n"
    entries.append((f"{info_dir}/RECORD", record.encode(), 0o644))
    path = out / f"commdx-{version}-py3-none-{'.'.join(tags)}.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return path


def write_tarball(out, binary, version, extras, mtime):
    top = f"commdx-{version}-linux-x86_64"
    path = out / f"{top}.tar.gz"
    entries = [(pathlib.Path(binary), f"{top}/bin/commdx", 0o755)]
    entries += [(src, f"{top}/{rel}", 0o644) for src, rel in extras]
    with tarfile.open(path, "w:gz") as tf:
        for src, name, mode in entries:
            data = src.read_bytes()
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), mode, mtime
            tf.addfile(info, io.BytesIO(data))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--glibc", default="2.17", help="the glibc version the build aimed at")
    ap.add_argument("--licenses", nargs="*", default=[], help="third-party licence files")
    args = ap.parse_args()
    extra = sorted(set(needed_libraries(args.binary)) - ALLOWED_NEEDED)
    if extra:
        sys.exit(f"make_dist: {args.binary} needs {', '.join(extra)}: only glibc's is allowed")
    floor = glibc_floor(args.binary)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in list(out.glob("commdx-*.whl")) + list(out.glob("commdx-*.tar.gz")):
        old.unlink()
    extras = user_files(args.licenses)
    mtime = int(pathlib.Path(args.binary).stat().st_mtime)
    target = tuple(int(x) for x in args.glibc.split(".")[:2])
    wheel = write_wheel(out, args.binary, args.version, platform_tags(floor, target), extras)
    tarball = write_tarball(out, args.binary, args.version, extras, mtime)
    print(f"make_dist: the newest glibc symbol it needs is GLIBC_{'.'.join(map(str, floor))}; "
          f"wrote {wheel} and {tarball}")


if __name__ == "__main__":
    main()
