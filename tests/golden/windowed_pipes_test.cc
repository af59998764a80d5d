// A console log piped in (`-`, /dev/stdin, <(...)) over the limit of a text held whole: the
// first 64 KiB, read to recognise it, start the first window and the rest of the pipe is read in
// windows (a gzip pipe inflated as it comes). The report is the one of the same bytes piped in
// and read whole, but for the note that says so. Another format piped in over the limit is
// refused with an error naming the pipe.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>

#include "golden/windowed_read.h"
#include "unit/gzip_text.h"

namespace commdx {
namespace {

using namespace windowed_test;  // NOLINT(build/namespaces)

std::string Bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Bytes written into a pipe by a thread, its reading end named as the shell names <(...).
class Piped {
 public:
  explicit Piped(std::string bytes) : bytes_(std::move(bytes)) {
    signal(SIGPIPE, SIG_IGN);  // a reader that stops early (a refused input) is no crash
    int fds[2] = {-1, -1};
    EXPECT_EQ(pipe(fds), 0);
    read_ = fds[0];
    write_ = fds[1];
    writer_ = std::thread([this] {
      for (size_t at = 0; at < bytes_.size();) {
        const ssize_t n = write(write_, bytes_.data() + at, bytes_.size() - at);
        if (n <= 0) break;
        at += static_cast<size_t>(n);
      }
      close(write_);
    });
  }
  ~Piped() {
    close(read_);  // a reader that stopped early: the writer's next write fails
    writer_.join();
  }
  std::string name() const { return "/dev/fd/" + std::to_string(read_); }

 private:
  std::string bytes_;
  int read_ = -1;
  int write_ = -1;
  std::thread writer_;
};

// `bytes` piped in and read with the limit and window given; the pipe's name in the report made
// "PIPE", so that two pipes' reports compare.
Read ReadPiped(const std::string& bytes, uint64_t max_text_bytes, size_t window_bytes) {
  Piped p(bytes);
  Read r = ReadAs({p.name()}, max_text_bytes, window_bytes);
  for (std::string* s : {&r.json, &r.verdict})
    for (size_t at = s->find(p.name()); at != std::string::npos; at = s->find(p.name(), at))
      s->replace(at, p.name().size(), "PIPE");
  return r;
}

// Whole, and in windows at three sizes under two limits: 1 byte (over it in the 64 KiB read to
// recognise the pipe) and just under its size (for a text longer than 64 KiB, over it further on).
void ExpectSamePipedReport(const std::string& bytes, size_t longest_line) {
  const Read whole = ReadPiped(bytes, 0, 32u << 20);
  EXPECT_EQ(whole.windowed_files, 0u);
  EXPECT_GT(whole.json.size(), 1500u) << whole.json;
  for (uint64_t limit : {uint64_t{1}, uint64_t{bytes.size() - 1000}}) {
    for (size_t window : {longest_line, longest_line * 2 + 7, longest_line * 5 + 3}) {
      SCOPED_TRACE("limit " + std::to_string(limit) + ", windows of " + std::to_string(window));
      const Read windowed = ReadPiped(bytes, limit, window);
      EXPECT_EQ(windowed.windowed_files, 1u);
      EXPECT_EQ(FirstDifference(whole.verdict, windowed.verdict), "");
      EXPECT_EQ(FirstDifference(whole.json, windowed.json), "");
    }
  }
}

// An NCCL_DEBUG=INFO log of two H200s (113 KB: the pipe goes on past the 64 KiB read to
// recognise it), piped plain and gzipped; and a gzip stream longer than 64 KiB itself (the log
// 20 times), inflated from the pipe as the windows are read.
TEST(WindowedPipes, NcclLogPipedGivesTheSameReport) {
  const std::string path = kData + "h200x2_reference/nccl-debug-allreduce-base.log";
  const std::string log = Bytes(path);
  ASSERT_GT(log.size(), 64u * 1024);
  const size_t longest = LongestLine({path});
  ExpectSamePipedReport(log, longest);
  ExpectSamePipedReport(GzipString(log), longest);
  std::string twenty;
  for (int i = 0; i < 20; ++i) twenty += log;
  const std::string gz = GzipString(twenty);
  ASSERT_GT(gz.size(), 64u * 1024);
  const Read whole = ReadPiped(gz, 0, 32u << 20);
  const Read windowed = ReadPiped(gz, 100000, longest * 3);
  EXPECT_EQ(windowed.windowed_files, 1u);
  EXPECT_EQ(FirstDifference(whole.json, windowed.json), "");
}

// Job logs: four-node hangs' consoles (watchdog lines, process groups, a collective mismatch; a
// barrier timeout naming the collective of a "Running collective" line windows before it) and a
// watchdog line a terminal wrapped over three lines (open-r1 issue 620), read from a pipe in
// windows that cut the wrapped record.
TEST(WindowedPipes, JobLogPipedGivesTheSameReport) {
  for (const char* dir : {"nodes4_mismatch_detail", "nodes4_skip_detail"}) {
    SCOPED_TRACE(dir);
    const std::string job = kData + "hang/" + dir + "/job.log";
    ExpectSamePipedReport(Bytes(job), LongestLine({job}));
  }
  const std::string wrapped = kData + "hang/public/wrapped_openr1_620.log";
  const std::string text = Bytes(wrapped);
  const Read whole = ReadPiped(text, 0, 32u << 20);
  EXPECT_NE(whole.json.find("OpType=BROADCAST"), std::string::npos);
  const size_t longest = LongestLine({wrapped});
  for (size_t window = longest; window < 4 * longest; window += 23) {
    SCOPED_TRACE("windows of " + std::to_string(window) + " bytes");
    const Read windowed = ReadPiped(text, 1, window);
    EXPECT_EQ(windowed.windowed_files, 1u);
    EXPECT_EQ(FirstDifference(whole.json, windowed.json), "");
  }
}

// An nccl-tests table alone is read only from a text held whole: piped in over the limit, it is
// refused, the error naming the pipe.
TEST(WindowedPipes, OtherFormatPipedOverTheLimitIsRefused) {
  const std::string path =
      kData + "nccl_log_fixtures/case36-nccl-tests-4x200g-ib-96gbps-target-reached.log";
  Piped p(Bytes(path));
  pipeline::Request r;
  r.command = "diagnose";
  r.paths = {p.name()};
  r.load.max_text_bytes = 1;
  r.parts = pipeline::EveryPart();
  auto out = pipeline::Run(std::move(r));
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().ToString().find(p.name()), std::string::npos) << out.error().ToString();
  EXPECT_NE(out.error().message.find("larger than the limit"), std::string::npos)
      << out.error().ToString();
}

}  // namespace
}  // namespace commdx
