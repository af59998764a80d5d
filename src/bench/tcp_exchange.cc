#include "bench/tcp_exchange.h"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace commdx::bench {

namespace {

constexpr char kMagic[8] = {'c', 'o', 'm', 'm', 'd', 'x', '0', '1'};

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Reads or writes exactly n bytes before the deadline.
bool Io(int fd, void* buf, size_t n, bool write_mode, double deadline) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    pollfd pfd{fd, static_cast<short>(write_mode ? POLLOUT : POLLIN), 0};
    int ms = static_cast<int>((deadline - Now()) * 1000);
    if (ms <= 0 || poll(&pfd, 1, ms) <= 0) return false;
    ssize_t k = write_mode ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

Error Fail(const std::string& what) {
  return MakeError(ErrorCode::kEnvironment,
                   what + (errno ? std::string(": ") + std::strerror(errno) : ""));
}

Result<std::string> Serve(const LaunchEnv& env, const std::string& blob, double deadline) {
  Fd s(socket(AF_INET6, SOCK_STREAM, 0));
  bool v6 = s.fd >= 0;
  if (!v6) s.fd = socket(AF_INET, SOCK_STREAM, 0);
  if (s.fd < 0) return Fail("socket");
  int one = 1, zero = 0;
  setsockopt(s.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc;
  if (v6) {
    setsockopt(s.fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(static_cast<uint16_t>(env.port));
    rc = bind(s.fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(static_cast<uint16_t>(env.port));
    rc = bind(s.fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (rc != 0)
    return Fail("rank 0 cannot listen on port " + std::to_string(env.port) +
                " (set COMMDX_PORT to a free port on every rank)");
  if (listen(s.fd, 128) != 0) return Fail("listen");
  std::vector<bool> joined(static_cast<size_t>(env.world_size), false);
  joined[0] = true;
  int missing = env.world_size - 1;
  while (missing > 0) {
    pollfd pfd{s.fd, POLLIN, 0};
    int ms = static_cast<int>((deadline - Now()) * 1000);
    if (ms <= 0 || poll(&pfd, 1, ms) <= 0) {
      std::string who;
      for (size_t r = 0; r < joined.size(); ++r)
        if (!joined[r]) who += (who.empty() ? "" : ", ") + std::to_string(r);
      errno = 0;
      return Fail("rank(s) " + who + " did not connect to rank 0 on port " +
                  std::to_string(env.port) + " before the timeout");
    }
    Fd c(accept(s.fd, nullptr, nullptr));
    if (c.fd < 0) continue;
    char hello[16];
    if (!Io(c.fd, hello, sizeof hello, false, deadline) || std::memcmp(hello, kMagic, 8) != 0)
      continue;  // something else connected: ignore it
    int32_t rank, world;
    std::memcpy(&rank, hello + 8, 4);
    std::memcpy(&world, hello + 12, 4);
    if (world != env.world_size || rank <= 0 || rank >= world) {
      errno = 0;
      return Fail("a process says it is rank " + std::to_string(rank) + " of " +
                  std::to_string(world) + ", but rank 0 has WORLD_SIZE " +
                  std::to_string(env.world_size));
    }
    uint32_t len = static_cast<uint32_t>(blob.size());
    if (!Io(c.fd, &len, 4, true, deadline) ||
        !Io(c.fd, const_cast<char*>(blob.data()), blob.size(), true, deadline))
      continue;
    if (!joined[static_cast<size_t>(rank)]) --missing;
    joined[static_cast<size_t>(rank)] = true;
  }
  return blob;
}

Result<std::string> Fetch(const LaunchEnv& env, double deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  std::string port = std::to_string(env.port);
  while (true) {
    addrinfo* res = nullptr;
    if (getaddrinfo(env.master_addr.c_str(), port.c_str(), &hints, &res) == 0) {
      for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        Fd c(socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol));
        if (c.fd < 0 || connect(c.fd, ai->ai_addr, ai->ai_addrlen) != 0) continue;
        char hello[16];
        std::memcpy(hello, kMagic, 8);
        int32_t rank = env.rank, world = env.world_size;
        std::memcpy(hello + 8, &rank, 4);
        std::memcpy(hello + 12, &world, 4);
        uint32_t len = 0;
        if (!Io(c.fd, hello, sizeof hello, true, deadline) || !Io(c.fd, &len, 4, false, deadline) ||
            len > 4096)
          continue;
        std::string blob(len, '\0');
        if (!Io(c.fd, blob.data(), len, false, deadline)) continue;
        freeaddrinfo(res);
        return blob;
      }
      freeaddrinfo(res);
    }
    if (Now() > deadline) {
      errno = 0;
      return Fail("rank " + std::to_string(env.rank) +
                  " could not get the NCCL id from rank 0 at " + env.master_addr + ":" + port +
                  " before the timeout");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

Result<std::string> ExchangeBlob(const LaunchEnv& env, const std::string& blob, double timeout_s) {
  double deadline = Now() + (timeout_s > 0 ? timeout_s : 600);
  if (env.rank == 0) return Serve(env, blob, deadline);
  return Fetch(env, deadline);
}

}  // namespace commdx::bench
