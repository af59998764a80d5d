// Result<T> and Error: how everything that input or the machine can get wrong is returned.
// Shaped like C++23 std::expected so it can become an alias once the compiler has <expected>.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace commdx {

// Exit codes of the command line (README.md, "Commands"); ErrorCode maps onto them.
enum class ErrorCode {
  kUsage,        // exit 2
  kBadInput,     // exit 3: a file that cannot be read as what it claims to be
  kTooLarge,     // exit 3: a file over the limit of what is read whole (file.h: ReadFile)
  kEnvironment,  // exit 4: no GPU, driver, NCCL where one is required
  kInternal,     // exit 70
};

int ExitCodeFor(ErrorCode code);

// Where in an input something was found. `line`/`col` are 1-based; 0 means unknown.
// Parsers keep a byte offset and turn it into line:col only on the error path.
struct SourceLoc {
  std::string file;
  uint32_t line = 0;
  uint32_t col = 0;
  uint64_t offset = 0;
  bool has_offset = false;

  // "file:line:col", "file:line", "file@offset" or "file", whichever is known.
  std::string ToString() const;
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  SourceLoc where;

  // "rank3.log:118:41: error: expected integer after 'nranks', got 'eight'"
  std::string ToString() const;
};

Error MakeError(ErrorCode code, std::string message, SourceLoc where = {});

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit like std::expected
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
struct Ok {};
using Status = Result<Ok>;

#define COMMDX_CONCAT_INNER(a, b) a##b
#define COMMDX_CONCAT(a, b) COMMDX_CONCAT_INNER(a, b)

#define COMMDX_TRY(expr)                                     \
  do {                                                       \
    if (auto r_ = (expr); !r_) return std::move(r_).error(); \
  } while (0)

// COMMDX_ASSIGN_OR_RETURN(auto x, F()); declares x from F()'s value or returns its error.
#define COMMDX_ASSIGN_OR_RETURN(decl, expr)                       \
  auto COMMDX_CONCAT(r_assign_, __LINE__) = (expr);               \
  if (!COMMDX_CONCAT(r_assign_, __LINE__))                        \
    return std::move(COMMDX_CONCAT(r_assign_, __LINE__)).error(); \
  decl = std::move(COMMDX_CONCAT(r_assign_, __LINE__)).value()

}  // namespace commdx
