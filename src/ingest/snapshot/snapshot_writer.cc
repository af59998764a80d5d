#include <ctime>
#include <type_traits>

#include "base/json_writer.h"
#include "base/write_file.h"
#include "ingest/snapshot/snapshot.h"
#include "ingest/snapshot/snapshot_replay_schema.h"
#include "ingest/snapshot/snapshot_schema.h"

namespace commdx::ingest {

namespace {

// The writing visitor of snapshot_schema.h.
class Writer {
 public:
  explicit Writer(JsonWriter& w) : w_(w) {}

  void Field(const char* key, const std::string& x) { w_.Key(key).String(x); }
  void Field(const char* key, bool x) { w_.Key(key).Bool(x); }
  void Field(const char* key, uint64_t x) { w_.Key(key).Uint(x); }
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                                              !std::is_same_v<I, uint64_t>>>
  void Field(const char* key, I x) {
    w_.Key(key).Int(static_cast<int64_t>(x));
  }
  template <class T>
  void Field(const char* key, const std::optional<T>& x) {
    if (x)
      Field(key, *x);
    else
      w_.Key(key).Null();
  }
  void Field(const char* key, const std::vector<std::string>& xs) {
    w_.Key(key).BeginArray();
    for (const auto& s : xs) w_.String(s);
    w_.EndArray();
  }
  void Double(const char* key, double x, int decimals) { w_.Key(key).Double(x, decimals); }
  // kUnlimited is written as -1 (JSON readers differ on integers above 2^53).
  void Limit(const char* key, const std::optional<uint64_t>& x) {
    if (x && *x == kUnlimited)
      w_.Key(key).Int(-1);
    else
      Field(key, x);
  }
  template <class E, class Name, class Parse>
  void Enum(const char* key, E x, Name name, Parse /*parse*/) {
    w_.Key(key).String(name(x));
  }
  template <class E, class Name, class Parse>
  void EnumList(const char* key, const std::vector<E>& xs, Name name, Parse /*parse*/) {
    w_.Key(key).BeginArray();
    for (E x : xs) w_.String(name(x));
    w_.EndArray();
  }
  template <class T, class Schema>
  void Object(const char* key, const char* /*where*/, const T& x, Schema schema) {
    w_.Key(key);
    Write(x, schema);
  }
  template <class T, class Schema>
  void Objects(const char* key, const char* /*where*/, const std::vector<T>& xs, Schema schema) {
    w_.Key(key).BeginArray();
    for (const T& x : xs) Write(x, schema);
    w_.EndArray();
  }
  template <class T, class Schema>
  void Write(const T& x, Schema schema) {
    w_.BeginObject();
    schema(*this, x);
    w_.EndObject();
  }

 private:
  JsonWriter& w_;
};

}  // namespace

std::string WriteSnapshot(const SnapshotMeta& meta, const Topology* topo, const EnvSnapshot* env,
                          const std::vector<ReplayResult>* replay) {
  JsonWriter w(1);
  Writer v(w);
  w.BeginObject();
  w.Key("commdx_snapshot").Int(kSnapshotSchema);
  v.Field("tool_version", meta.tool_version);
  v.Field("host", meta.host);
  w.Key("created_unix_s").Int(meta.created_unix_s);
  if (topo)
    v.Object("topology", "topology", *topo,
             [](auto& x, auto& t) { snapshot::TopologySchema(x, t); });
  if (env) v.Object("env", "env", *env, [](auto& x, auto& e) { snapshot::EnvSchema(x, e); });
  if (replay)
    v.Objects("replay", "replay[]", *replay, [](auto& x, auto& r) { snapshot::ReplaySchema(x, r); });
  w.EndObject();
  return w.str() + "\n";
}

Status WriteSnapshotFile(const std::string& path, const Topology* topo, const EnvSnapshot* env,
                         const WriteOptions& options) {
  SnapshotMeta meta;
  meta.tool_version = COMMDX_VERSION;
  meta.host = topo && !topo->host.empty() ? topo->host : (env ? env->host : "");
  meta.created_unix_s = static_cast<int64_t>(std::time(nullptr));
  return WriteFileAtomically(path, WriteSnapshot(meta, topo, env), options);
}

Status WriteReplaySnapshotFile(const std::string& path, const ReplayResult& replay,
                               const WriteOptions& options) {
  SnapshotMeta meta;
  meta.tool_version = COMMDX_VERSION;
  meta.host = replay.rank_gpus.empty() ? "" : replay.rank_gpus.front().host;
  meta.created_unix_s = static_cast<int64_t>(std::time(nullptr));
  std::vector<ReplayResult> one = {replay};
  return WriteFileAtomically(path, WriteSnapshot(meta, nullptr, nullptr, &one), options);
}

}  // namespace commdx::ingest
