// Opcodes and their argument encodings are those of CPython's Lib/pickle.py (protocols 0-5);
// only the ones for plain data are accepted. Multi-byte integers are little-endian, BINFLOAT is
// a big-endian IEEE double, LONG1/LONG4 are two's-complement little-endian of any length.
#include "ingest/flight_recorder/pickle.h"

#include <cstring>
#include <unordered_map>

#include "base/str_format.h"

namespace commdx::ingest::flight_recorder {

namespace {

constexpr size_t kMaxStack = 1u << 20;  // values and marks; deeper is a hostile file

class Reader {
 public:
  Reader(std::string_view data, const std::string& path) : d_(data), path_(path) {}

  Result<PyDoc> Run() {
    while (pos_ < d_.size()) {
      size_t at = pos_;
      uint8_t op = static_cast<uint8_t>(d_[pos_++]);
      if (op == '.') return Finish(at);
      if (auto e = Step(op, at); !e.empty()) return Fail(at, e);
      if (stack_.size() + marks_.size() > kMaxStack) return Fail(at, "nesting too deep");
    }
    return Fail(d_.size(), "truncated pickle (no STOP opcode)");
  }

 private:
  Error Fail(size_t at, const std::string& what) {
    SourceLoc loc{path_};
    loc.offset = at;
    loc.has_offset = true;
    return MakeError(ErrorCode::kBadInput, "pickle: " + what, loc);
  }

  Result<PyDoc> Finish(size_t at) {
    if (stack_.size() != 1 || !marks_.empty()) return Fail(at, "STOP with an unbalanced stack");
    doc_.root = stack_.back();
    return std::move(doc_);
  }

  bool Take(size_t n, std::string_view& out) {
    if (d_.size() - pos_ < n) return false;
    out = d_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Uint(size_t n, uint64_t& v) {
    std::string_view b;
    if (!Take(n, b)) return false;
    v = 0;
    for (size_t k = 0; k < n; ++k)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(b[k])) << (8 * k);
    return true;
  }
  bool Line(std::string_view& out) {
    size_t nl = d_.find('\n', pos_);
    if (nl == std::string_view::npos) return false;
    out = d_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return true;
  }

  void Push(PyObject o) { stack_.push_back(doc_.Add(std::move(o))); }
  static PyObject Scalar(PyKind k, int64_t i = 0) {
    PyObject o;
    o.kind = k;
    o.i = i;
    return o;
  }

  // Pops everything above the last MARK into `out`; false without a mark, or when a POP or a
  // TUPLE has already taken items from below it (a broken pickle; found by fuzzing).
  bool PopMark(std::vector<uint32_t>& out) {
    if (marks_.empty() || marks_.back() > stack_.size()) return false;
    size_t m = marks_.back();
    marks_.pop_back();
    out.assign(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return true;
  }

  std::string Step(uint8_t op, size_t at);
  std::string Bytes(uint8_t op);
  std::string Number(uint8_t op);
  std::string Container(uint8_t op);
  std::string Memo(uint8_t op);
  std::string Global(uint8_t op);

  std::string_view d_;
  const std::string& path_;
  size_t pos_ = 0;
  PyDoc doc_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, uint32_t> memo_;
};

std::string Reader::Step(uint8_t op, size_t) {
  uint64_t v = 0;
  switch (op) {
    case 0x80:  // PROTO
      if (!Uint(1, v)) return "truncated PROTO";
      if (v > 5)
        return StrFormat("unsupported pickle protocol %llu", static_cast<unsigned long long>(v));
      return {};
    case 0x95:  // FRAME: a length hint only
      return Uint(8, v) ? "" : "truncated FRAME";
    case '(':
      marks_.push_back(stack_.size());
      return {};
    case 'N':
      Push(Scalar(PyKind::kNone));
      return {};
    case 0x88:
      Push(Scalar(PyKind::kBool, 1));
      return {};
    case 0x89:
      Push(Scalar(PyKind::kBool, 0));
      return {};
    case '0':  // POP
      if (stack_.empty()) return "POP on an empty stack";
      stack_.pop_back();
      return {};
    case '1': {  // POP_MARK
      std::vector<uint32_t> dropped;
      return PopMark(dropped) ? "" : "POP_MARK without MARK";
    }
    case '2':  // DUP
      if (stack_.empty()) return "DUP on an empty stack";
      stack_.push_back(stack_.back());
      return {};
    case 'X':
    case 0x8c:
    case 0x8d:
    case 'T':
    case 'U':
    case 'B':
    case 'C':
    case 0x8e:
      return Bytes(op);
    case 'J':
    case 'K':
    case 'M':
    case 0x8a:
    case 0x8b:
    case 'G':
    case 'I':
      return Number(op);
    case ']':
    case ')':
    case '}':
    case 'a':
    case 'e':
    case 'l':
    case 't':
    case 0x85:
    case 0x86:
    case 0x87:
    case 'd':
    case 's':
    case 'u':
      return Container(op);
    case 'q':
    case 'r':
    case 0x94:
    case 'h':
    case 'j':
    case 'p':
    case 'g':
      return Memo(op);
    case 'c':
    case 0x93:
    case 'R':
      return Global(op);
  }
  return StrFormat("unsupported opcode 0x%02x", op);
}

std::string Reader::Bytes(uint8_t op) {
  size_t width = (op == 0x8c || op == 'U' || op == 'C') ? 1 : (op == 0x8d || op == 0x8e) ? 8 : 4;
  uint64_t n = 0;
  std::string_view body;
  if (!Uint(width, n) || n > d_.size() - pos_ || !Take(n, body)) return "truncated string";
  PyObject o;
  o.kind = (op == 'B' || op == 'C' || op == 0x8e) ? PyKind::kBytes : PyKind::kStr;
  o.s = std::string(body);
  Push(std::move(o));
  return {};
}

std::string Reader::Number(uint8_t op) {
  uint64_t v = 0;
  switch (op) {
    case 'K':
    case 'M':
      if (!Uint(op == 'K' ? 1 : 2, v)) return "truncated int";
      Push(Scalar(PyKind::kInt, static_cast<int64_t>(v)));
      return {};
    case 'J':
      if (!Uint(4, v)) return "truncated int";
      Push(Scalar(PyKind::kInt, static_cast<int32_t>(static_cast<uint32_t>(v))));
      return {};
    case 0x8a:
    case 0x8b: {
      uint64_t n = 0;
      std::string_view b;
      if (!Uint(op == 0x8a ? 1 : 4, n) || n > d_.size() - pos_ || !Take(n, b))
        return "truncated long";
      if (n > 8) return "integer wider than 64 bits";
      uint64_t u = 0;
      for (size_t k = 0; k < n; ++k)
        u |= static_cast<uint64_t>(static_cast<uint8_t>(b[k])) << (8 * k);
      if (n > 0 && n < 8 && (static_cast<uint8_t>(b[n - 1]) & 0x80)) u |= ~0ull << (8 * n);
      Push(Scalar(PyKind::kInt, static_cast<int64_t>(u)));
      return {};
    }
    case 'G': {
      if (!Uint(8, v)) return "truncated float";
      uint64_t be = __builtin_bswap64(v);
      PyObject o;
      o.kind = PyKind::kFloat;
      std::memcpy(&o.f, &be, sizeof(double));
      Push(std::move(o));
      return {};
    }
    case 'I': {  // text int; protocol 0's "01"/"00" are True/False
      std::string_view line;
      if (!Line(line)) return "truncated INT";
      if (line == "01" || line == "00") {
        Push(Scalar(PyKind::kBool, line == "01"));
        return {};
      }
      int64_t x = 0;
      bool neg = !line.empty() && line[0] == '-';
      if (neg) line.remove_prefix(1);
      if (line.empty() || line.size() > 18) return "bad INT";
      for (char c : line) {
        if (c < '0' || c > '9') return "bad INT";
        x = x * 10 + (c - '0');
      }
      Push(Scalar(PyKind::kInt, neg ? -x : x));
      return {};
    }
  }
  return "unreachable";
}

std::string Reader::Container(uint8_t op) {
  std::vector<uint32_t> items;
  auto top_of_kind = [&](size_t below, PyKind k) -> PyObject* {
    if (stack_.size() <= below) return nullptr;
    PyObject& o = doc_.at(stack_[stack_.size() - 1 - below]);
    return o.kind == k ? &o : nullptr;
  };
  switch (op) {
    case ']':
    case ')':
    case '}': {
      PyObject o;
      o.kind = op == ']' ? PyKind::kList : op == ')' ? PyKind::kTuple : PyKind::kDict;
      Push(std::move(o));
      return {};
    }
    case 'l':
    case 't':
    case 'd': {
      if (!PopMark(items)) return "LIST/TUPLE/DICT without MARK";
      if (op == 'd' && items.size() % 2) return "DICT with an odd number of items";
      PyObject o;
      o.kind = op == 'l' ? PyKind::kList : op == 't' ? PyKind::kTuple : PyKind::kDict;
      o.items = std::move(items);
      Push(std::move(o));
      return {};
    }
    case 0x85:
    case 0x86:
    case 0x87: {
      size_t n = op - 0x84;
      if (stack_.size() < n) return "TUPLE on a short stack";
      PyObject o;
      o.kind = PyKind::kTuple;
      o.items.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
      stack_.resize(stack_.size() - n);
      Push(std::move(o));
      return {};
    }
    case 'a': {
      PyObject* list = top_of_kind(1, PyKind::kList);
      if (!list) return "APPEND to something not a list";
      list->items.push_back(stack_.back());
      stack_.pop_back();
      return {};
    }
    case 's': {
      PyObject* dict = top_of_kind(2, PyKind::kDict);
      if (!dict) return "SETITEM on something not a dict";
      dict->items.push_back(stack_[stack_.size() - 2]);
      dict->items.push_back(stack_.back());
      stack_.resize(stack_.size() - 2);
      return {};
    }
    case 'e':
    case 'u': {
      if (!PopMark(items)) return "APPENDS/SETITEMS without MARK";
      PyObject* into = top_of_kind(0, op == 'e' ? PyKind::kList : PyKind::kDict);
      if (!into) return "APPENDS/SETITEMS on the wrong kind of object";
      if (op == 'u' && items.size() % 2) return "SETITEMS with an odd number of items";
      into->items.insert(into->items.end(), items.begin(), items.end());
      return {};
    }
  }
  return "unreachable";
}

std::string Reader::Memo(uint8_t op) {
  uint64_t key = 0;
  std::string_view line;
  bool ok = true;
  if (op == 'q' || op == 'h')
    ok = Uint(1, key);
  else if (op == 'r' || op == 'j')
    ok = Uint(4, key);
  else if (op == 0x94)
    key = memo_.size();
  else if ((ok = Line(line))) {  // PUT / GET with a decimal text index
    if (line.empty() || line.size() > 9) return "bad memo index";
    for (char c : line) {
      if (c < '0' || c > '9') return "bad memo index";
      key = key * 10 + static_cast<uint64_t>(c - '0');
    }
  }
  if (!ok) return "truncated memo opcode";
  if (op == 'h' || op == 'j' || op == 'g') {
    auto it = memo_.find(key);
    if (it == memo_.end()) return "memo GET of a value never PUT";
    stack_.push_back(it->second);
    return {};
  }
  if (stack_.empty()) return "memo PUT on an empty stack";
  memo_[key] = stack_.back();
  return {};
}

// GLOBAL / STACK_GLOBAL name a callable; REDUCE calls it. Only the wrappers TorchScript puts
// around typed lists and dicts are accepted, and read as the value they wrap.
std::string Reader::Global(uint8_t op) {
  if (op == 'R') {
    if (stack_.size() < 2) return "REDUCE on a short stack";
    const PyObject& fn = doc_.at(stack_[stack_.size() - 2]);
    const PyObject& args = doc_.at(stack_.back());
    if (fn.kind != PyKind::kGlobal) return "REDUCE of something not a global";
    bool known = fn.s.rfind("torch.jit._pickle.build_", 0) == 0 ||
                 fn.s == "torch.jit._pickle.restore_type_tag";
    if (!known) return "unsupported global " + fn.s + " (only plain data is read)";
    if (args.kind != PyKind::kTuple || args.items.empty()) return "REDUCE without arguments";
    uint32_t value = args.items[0];
    stack_.resize(stack_.size() - 2);
    stack_.push_back(value);
    return {};
  }
  PyObject g;
  g.kind = PyKind::kGlobal;
  if (op == 'c') {
    std::string_view mod, name;
    if (!Line(mod) || !Line(name)) return "truncated GLOBAL";
    g.s = std::string(mod) + "." + std::string(name);
  } else {
    if (stack_.size() < 2) return "STACK_GLOBAL on a short stack";
    const std::string* mod = doc_.Str(stack_[stack_.size() - 2]);
    const std::string* name = doc_.Str(stack_.back());
    if (!mod || !name) return "STACK_GLOBAL of non-strings";
    g.s = *mod + "." + *name;
    stack_.resize(stack_.size() - 2);
  }
  Push(std::move(g));
  return {};
}

}  // namespace

bool LooksLikePickle(std::string_view data) {
  return data.size() >= 3 && static_cast<uint8_t>(data[0]) == 0x80 && data[1] >= 2 && data[1] <= 5;
}

Result<PyDoc> ReadPickle(std::string_view data, const std::string& path) {
  return Reader(data, path).Run();
}

}  // namespace commdx::ingest::flight_recorder
