// Reading small files of sysfs and procfs under a root folder, so that tests can point every
// probe at a fake tree (tests/data/sysfs/...) and the live probe at "/". Nothing here writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace commdx::probe {

class SysRoot {
 public:
  explicit SysRoot(std::string root = "/");

  // root + "/" + rel, with no doubled slash.
  std::string Path(std::string_view rel) const;
  const std::string& root() const { return root_; }

  // The whole file (small files only: sysfs attributes, /proc/PID/status), trailing newline
  // removed; nullopt when it does not exist or cannot be read.
  std::optional<std::string> Read(std::string_view rel) const;
  // The first `max_bytes` bytes of a binary file (PCI config space), nullopt when unreadable.
  std::optional<std::string> ReadBinary(std::string_view rel, size_t max_bytes) const;
  std::optional<int64_t> ReadInt(std::string_view rel) const;   // decimal
  std::optional<uint64_t> ReadHex(std::string_view rel) const;  // "0x10de"
  bool Exists(std::string_view rel) const;
  // Names in a folder, sorted; empty when missing.
  std::vector<std::string> List(std::string_view rel) const;
  // The target of a symlink, relative to root when it resolves inside it ("sys/devices/...").
  std::optional<std::string> Resolve(std::string_view rel) const;
  std::optional<std::string> ReadLink(std::string_view rel) const;  // raw link text

 private:
  std::string root_;
};

// Value of "Key:\tvalue" in /proc/PID/status-style text ("Cpus_allowed_list:\t0-31").
std::optional<std::string> StatusField(std::string_view text, std::string_view key);

// The driver version in /proc/driver/nvidia/version, whichever module flavour wrote it:
//   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"
//   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
// The first word of the NVRM line made of digits and dots (with a dot); "" if none.
std::string DriverVersionFromProc(std::string_view text);

}  // namespace commdx::probe
