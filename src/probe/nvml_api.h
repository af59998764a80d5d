// The part of the NVML C API commdx calls, declared here because nvml.h is not installed where
// commdx builds. Types, values and signatures follow NVML's public reference (nvml.h of driver
// R470+); only what nvml_gpu_source.cc uses. Functions are looked up with dlsym at run time.
#pragma once

#include <cstdint>

namespace commdx::probe::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;

struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t

using EnableState = int;  // nvmlEnableState_t: 0 disabled, 1 enabled

// nvmlPciInfo_t (the _v3 call's layout).
struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[32];
};

// nvmlProcessInfo_t as filled by the _v2/_v3 calls (v1 had pid and memory only).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long used_gpu_memory;
};

// nvmlFieldValue_t
union Value {
  double d;
  unsigned int ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
  unsigned short us;
};
struct FieldValue {
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp;
  long long latency_usec;
  int value_type;  // nvmlValueType_t
  Return nvml_return;
  Value value;
};
inline constexpr unsigned kFieldNvLinkSpeedMbpsCommon = 90;  // NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON
inline constexpr unsigned kFieldNvLinkLinkCount = 91;        // NVML_FI_DEV_NVLINK_LINK_COUNT
inline constexpr int kValueTypeUnsignedInt = 1;

inline constexpr unsigned kMaxNvLinks = 18;  // NVML_NVLINK_MAX_LINKS

// nvmlGpuP2PCapsIndex_t
inline constexpr int kP2PRead = 0, kP2PWrite = 1, kP2PNvLink = 2, kP2PAtomics = 3, kP2PPci = 4;
// nvmlNvLinkErrorCounter_t
inline constexpr int kNvLinkReplay = 0, kNvLinkRecovery = 1, kNvLinkCrcFlit = 2, kNvLinkCrcData = 3;

extern "C" {
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using StringFn = Return (*)(char*, unsigned int);  // SystemGet*Version
using IntOutFn = Return (*)(int*);                 // SystemGetCudaDriverVersion
using CountFn = Return (*)(unsigned int*);
using HandleFn = Return (*)(unsigned int, Device*);
using DevStringFn = Return (*)(Device, char*, unsigned int);  // Name, UUID
using DevPciFn = Return (*)(Device, PciInfo*);
using DevUintFn = Return (*)(Device, unsigned int*);                    // PCIe gen/width, NUMA id
using DevTwoUintFn = Return (*)(Device, unsigned int*, unsigned int*);  // MigMode
using DevTwoStateFn = Return (*)(Device, EnableState*, EnableState*);   // EccMode
using DevStateFn = Return (*)(Device, EnableState*);                    // PersistenceMode
using DevIntFn = Return (*)(Device, int*);                              // ComputeMode
using DevU64Fn = Return (*)(Device, unsigned long long*);               // ClocksEventReasons
using LinkStateFn = Return (*)(Device, unsigned int, EnableState*);
using LinkUintFn = Return (*)(Device, unsigned int, unsigned int*);  // Version, RemoteDeviceType
using LinkPciFn = Return (*)(Device, unsigned int, PciInfo*);
using LinkErrorFn = Return (*)(Device, unsigned int, int, unsigned long long*);
using FieldsFn = Return (*)(Device, int, FieldValue*);
using P2PFn = Return (*)(Device, Device, int, int*);
using AncestorFn = Return (*)(Device, Device, int*);
using ProcessesFn = Return (*)(Device, unsigned int*, void*);
}

}  // namespace commdx::probe::nvml
