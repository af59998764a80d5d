#!/usr/bin/env python3
"""Writes the fake sysfs/procfs trees the probe tests read (run from this folder; the output is
committed). Written by hand from the kernel's sysfs layout; no real machine's files are copied.

pcie4/: a 4-GPU PCIe-only box, two sockets (NUMA 0: CPUs 0-15, NUMA 1: 16-31).
  pci0000:00 (node 0) -- 00:01.0 root port -- 01:00.0 switch up -- 02:00.0 -- 03:00.0 GPU0
                                                                -- 02:01.0 -- 04:00.0 GPU1 (x8 of x16)
                                                                -- 02:02.0 -- 05:00.0 mlx5_0 (HDR)
                     -- 00:1f.6 eno1 (1 GbE)
  pci0000:80 (node 1) -- 80:01.0 root port -- 81:00.0 switch up -- 82:00.0 -- 83:00.0 GPU2
                                                                -- 82:01.0 -- 84:00.0 GPU3
  ACS: 02:00.0 ReqRedir+CmpltRedir (P2P forced up to the root), 02:01.0 SrcValid only,
       82:00.0 config space cut at 64 bytes (as non-root readers see it).
  /opt/venv: PyTorch 2.6.0+cu126 (CUDA 12.6) with nvidia/nccl/lib/libnccl.so.2; /usr/local/cuda 12.4.1.
  /proc: 1001 (GPU0, CPUs 16-31: far socket), 1002 and 1003 (both on GPU1, CPUs 0-7 and 4-11),
         self/limits memlock 64 KiB, /dev/shm 64 MiB in mounts, docker signs, IOMMU on (DMA),
         no nvidia_peermem.
nogpu/: one NUMA node, a virtual eth0 only, nothing NVIDIA (like CI).
"""
import os, shutil, struct

def w(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)

def link(path, target):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path): os.remove(path)
    os.symlink(target, path)

def pci_dev(root, chain, vendor, device, cls, numa, cpus, speed=None, width=None, config=None):
    d = os.path.join(root, "sys/devices", *chain)
    w(d + "/vendor", f"0x{vendor:04x}\n"); w(d + "/device", f"0x{device:04x}\n")
    w(d + "/class", f"0x{cls:06x}\n"); w(d + "/numa_node", f"{numa}\n")
    w(d + "/local_cpulist", cpus + "\n")
    if speed:
        w(d + "/current_link_speed", speed[0] + "\n"); w(d + "/max_link_speed", speed[1] + "\n")
        w(d + "/current_link_width", f"{width[0]}\n"); w(d + "/max_link_width", f"{width[1]}\n")
    if config is not None: w(d + "/config", config, "wb")
    bdf = chain[-1]
    link(os.path.join(root, "sys/bus/pci/devices", bdf), "../../../devices/" + "/".join(chain))
    return d

def config_with_acs(ctrl, size=0x200):
    b = bytearray(size)
    struct.pack_into("<I", b, 0x100, 0x0001 | (1 << 16) | (0x148 << 20))  # AER, next 0x148
    if ctrl is not None:
        struct.pack_into("<I", b, 0x148, 0x000d | (1 << 16))             # ACS, last
        struct.pack_into("<HH", b, 0x14c, 0x005f, ctrl)
    return bytes(b)

def pcie4(root):
    G5 = ("16.0 GT/s PCIe", "16.0 GT/s PCIe")
    h0, h1 = "pci0000:00", "pci0000:80"
    rp0 = [h0, "0000:00:01.0"]; up0 = rp0 + ["0000:01:00.0"]
    rp1 = [h1, "0000:80:01.0"]; up1 = rp1 + ["0000:81:00.0"]
    n0, n1 = "0-15", "16-31"
    for chain, numa, cpus in ((rp0, 0, n0), (up0, 0, n0), (rp1, 1, n1), (up1, 1, n1)):
        pci_dev(root, chain, 0x8086, 0x1234, 0x060400, numa, cpus, config=config_with_acs(0x0001))
    pci_dev(root, up0 + ["0000:02:00.0"], 0x8086, 0x1235, 0x060400, 0, n0, config=config_with_acs(0x001d))
    pci_dev(root, up0 + ["0000:02:01.0"], 0x8086, 0x1235, 0x060400, 0, n0, config=config_with_acs(0x0001))
    pci_dev(root, up0 + ["0000:02:02.0"], 0x8086, 0x1235, 0x060400, 0, n0, config=config_with_acs(None))
    pci_dev(root, up1 + ["0000:82:00.0"], 0x8086, 0x1235, 0x060400, 1, n1, config=bytes(64))
    pci_dev(root, up1 + ["0000:82:01.0"], 0x8086, 0x1235, 0x060400, 1, n1, config=config_with_acs(0x0001))
    gpus = [(up0 + ["0000:02:00.0", "0000:03:00.0"], 0, n0, 16),
            (up0 + ["0000:02:01.0", "0000:04:00.0"], 0, n0, 8),
            (up1 + ["0000:82:00.0", "0000:83:00.0"], 1, n1, 16),
            (up1 + ["0000:82:01.0", "0000:84:00.0"], 1, n1, 16)]
    for chain, numa, cpus, width in gpus:
        d = pci_dev(root, chain, 0x10de, 0x2331, 0x030200, numa, cpus, G5, (width, 16))
        w(d + "/iommu_group/type", "DMA\n")
    nic = pci_dev(root, up0 + ["0000:02:02.0", "0000:05:00.0"], 0x15b3, 0x101b, 0x020700, 0, n0,
                  G5, (16, 16))
    w(nic + "/net/ib0/type", "32\n")
    ib = os.path.join(root, "sys/class/infiniband/mlx5_0")
    link(ib + "/device", "../../../devices/" + "/".join(up0 + ["0000:02:02.0", "0000:05:00.0"]))
    w(ib + "/ports/1/state", "4: ACTIVE\n"); w(ib + "/ports/1/rate", "200 Gb/sec (4X HDR)\n")
    w(ib + "/ports/1/link_layer", "InfiniBand\n")
    onboard = pci_dev(root, [h0, "0000:00:1f.6"], 0x8086, 0x15bb, 0x020000, 0, n0)
    for name, dev, speed, state, typ in (("ib0", "0000:05:00.0", None, "up", 32),
                                         ("eno1", "0000:00:1f.6", 1000, "up", 1)):
        chain = up0 + ["0000:02:02.0", dev] if name == "ib0" else [h0, dev]
        net = os.path.join(root, "sys/class/net", name)
        link(net + "/device", "../../../devices/" + "/".join(chain))
        w(net + "/operstate", state + "\n"); w(net + "/type", f"{typ}\n")
        if speed: w(net + "/speed", f"{speed}\n")
    for name in ("lo", "docker0"):
        w(os.path.join(root, "sys/class/net", name, "operstate"), "unknown\n")
    for node, cpus in ((0, n0), (1, n1)):
        nd = os.path.join(root, f"sys/devices/system/node/node{node}")
        w(nd + "/cpulist", cpus + "\n")
        w(nd + "/meminfo", f"Node {node} MemTotal:       131891130 kB\nNode {node} MemFree:        100 kB\n")
    w(root + "/sys/devices/system/cpu/online", "0-31\n")
    w(root + "/sys/class/iommu/dmar0/devices/.keep", "")
    w(root + "/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz\n\n")
    w(root + "/proc/sys/kernel/hostname", "fakebox\n")
    w(root + "/proc/driver/nvidia/version",
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
      "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")
    procs = {1001: ("16-31", "1", "python3", "RANK=0\0LOCAL_RANK=0\0WORLD_SIZE=3\0"),
             1002: ("0-7", "0", "python3", "RANK=1\0LOCAL_RANK=1\0"),
             1003: ("4-11", "0", "python3", None)}
    for pid, (cpus, mems, comm, env) in procs.items():
        pd = os.path.join(root, f"proc/{pid}")
        w(pd + "/status", f"Name:\t{comm}\nState:\tS (sleeping)\nPid:\t{pid}\n"
                          f"Cpus_allowed:\tffff\nCpus_allowed_list:\t{cpus}\n"
                          f"Mems_allowed_list:\t{mems}\n")
        w(pd + "/comm", comm + "\n")
        if env: w(pd + "/environ", env)
    w(root + "/proc/self/limits",
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max open files            1048576              1048576              files     \n"
      "Max locked memory         65536                65536                bytes     \n")
    w(root + "/proc/self/status", "Name:\tcommdx\nCpus_allowed_list:\t0-31\n")
    w(root + "/proc/mounts", "overlay / overlay rw,relatime 0 0\n"
                             "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n")
    w(root + "/proc/modules", "nvidia_uvm 1531904 0 - Live 0x0000000000000000 (PO)\n"
                              "nvidia 54145024 1 nvidia_uvm, Live 0x0000000000000000 (PO)\n"
                              "mlx5_ib 487424 0 - Live 0x0000000000000000\n")
    w(root + "/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on quiet\n")
    w(root + "/proc/1/cgroup", "0::/system.slice/docker-4f1c2a.scope\n")
    w(root + "/.dockerenv", "")
    # A PyTorch venv on PATH with its bundled NCCL, and a CUDA toolkit.
    site = root + "/opt/venv/lib/python3.12/site-packages"
    w(root + "/opt/venv/bin/python3", "")
    w(site + "/torch/version.py", "from typing import Optional\n\n__all__ = ['__version__', 'cuda']\n"
                                  "__version__ = '2.6.0+cu126'\ndebug = False\ncuda: Optional[str] = '12.6'\n"
                                  "git_version = 'abc'\nhip: Optional[str] = None\n")
    w(site + "/nvidia/nccl/lib/libnccl.so.2", "")
    w(root + "/usr/local/cuda/version.json", '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      "version" : "12.4.1"\n   }\n}\n')

def nogpu(root):
    w(root + "/sys/devices/system/node/node0/cpulist", "0-1\n")
    w(root + "/sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:        8000000 kB\n")
    w(root + "/sys/devices/system/cpu/online", "0-1\n")
    w(root + "/sys/class/net/eth0/operstate", "up\n")
    w(root + "/sys/class/net/lo/operstate", "unknown\n")
    w(root + "/proc/cpuinfo", "vendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n")
    w(root + "/proc/self/limits", "Limit                     Soft Limit           Hard Limit           Units     \n"
                                  "Max locked memory         unlimited            unlimited            bytes     \n")
    w(root + "/proc/mounts", "tmpfs /dev/shm tmpfs rw,nosuid,nodev,size=8388608k 0 0\n")
    w(root + "/proc/cmdline", "console=ttyS0\n")
    w(root + "/proc/1/cgroup", "0::/init.scope\n")

for name, fn in (("pcie4", pcie4), ("nogpu", nogpu)):
    shutil.rmtree(name, ignore_errors=True)
    fn(name)
