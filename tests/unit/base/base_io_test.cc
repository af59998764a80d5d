// Reading and writing files as issue 16 asks: mapped files cut short, atomic writes, bounded
// gzip, duplicates read once, commdx's own reports recognised.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/file.h"
#include "base/file_windows.h"
#include "base/input_path.h"
#include "base/mapped_file.h"
#include "base/text.h"
#include "base/write_file.h"
#include "ingest/own_report.h"
#include "report/render.h"
#include "report/report.h"
#include "unit/gzip_text.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("commdx_io_" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string Write(const std::string& name, const std::string& data) const {
    std::ofstream(path / name, std::ios::binary) << data;
    return (path / name).string();
  }
};

TEST(MappedFile, FileCutShortWhileMappedReadsZerosNotSigbus) {
  TempDir dir;
  const size_t size = 1 << 20;
  std::string p = dir.Write("t.json", std::string(size, 'x'));
  int fd = open(p.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto map = MappedFile::Map(fd, size, p);
  close(fd);
  ASSERT_TRUE(map) << map.error().ToString();
  EXPECT_EQ(map->data()[size - 1], 'x');
  ASSERT_EQ(truncate(p.c_str(), 4096), 0);
  uint64_t sum = 0;
  for (size_t i = 0; i < size; i += 4096) sum += static_cast<unsigned char>(map->data()[i]);
  EXPECT_EQ(sum, static_cast<uint64_t>('x'));  // the first page kept, the rest read as zeros
  EXPECT_TRUE(map->cut_short());
}

TEST(MappedFile, UntouchedFileIsNotCutShort) {
  TempDir dir;
  std::string p = dir.Write("t.json", std::string(10000, 'y'));
  int fd = open(p.c_str(), O_RDONLY);
  auto map = MappedFile::Map(fd, 10000, p);
  close(fd);
  ASSERT_TRUE(map);
  EXPECT_EQ(map->data()[9999], 'y');
  EXPECT_FALSE(map->cut_short());
}

TEST(WriteFile, ReplacesWholeKeepsModeLeavesNoTemporary) {
  TempDir dir;
  std::string p = dir.Write("r.txt", "old report\n");
  chmod(p.c_str(), 0640);
  ASSERT_TRUE(WriteFileAtomically(p, "new\n"));
  std::ifstream in(p);
  std::string got((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(got, "new\n");
  struct stat st {};
  stat(p.c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(WriteFile, FullDiskNamesTheOsReason) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  auto st = WriteFileAtomically("/dev/full", "report");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kEnvironment);
  EXPECT_NE(st.error().message.find("No space left on device"), std::string::npos);
}

// Windows of whole lines, in order, covering the file once; a line longer than a window is cut.
TEST(ScanWindows, WholeLinesInOrderCoveringTheFile) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "line " + std::to_string(i) + " of the log\n";
  text += std::string(3000, 'y') + "\nlast line without a newline";
  std::string p = dir.Write("a.log", text);
  std::string seen;
  size_t windows = 0;
  ASSERT_TRUE(ScanWindows(p, 1024, [&](std::string_view w) {
    EXPECT_LE(w.size(), 1024u);
    EXPECT_FALSE(w.empty());
    if (seen.size() + w.size() < text.size() - 3000 - 30) {
      EXPECT_EQ(w.back(), '\n');
    }
    seen += w;
    ++windows;
    return false;
  }));
  EXPECT_EQ(seen, text);
  EXPECT_GT(windows, 90u);
  // Stopping early reads no further.
  windows = 0;
  ASSERT_TRUE(ScanWindows(p, 1024, [&](std::string_view w) {
    ++windows;
    return w.find("line 100 ") != std::string_view::npos;
  }));
  EXPECT_LT(windows, 10u);
}

TEST(ScanWindows, GzipIsInflatedAsItIsScanned) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "step " + std::to_string(i) + "\n";
  std::string p = dir.Write("a.log.gz", GzipString(text));
  std::string seen;
  ASSERT_TRUE(ScanWindows(p, 4096, [&](std::string_view w) {
    seen += w;
    return false;
  }));
  EXPECT_EQ(seen, text);
}

// Each window knows its first line and offset in the whole text, so locations taken in a window
// are the whole file's; plain and gzip give the same windows.
TEST(ReadWindows, WindowsKnowWhereTheySitInTheWholeText) {
  TempDir dir;
  std::string text;
  for (int i = 1; i <= 3000; ++i) text += "line " + std::to_string(i) + "\n";
  for (const std::string& p : {dir.Write("a.log", text), dir.Write("a.log.gz", GzipString(text))}) {
    std::string seen;
    auto r = ReadWindows(p, 1000, [&](const FileText& w) {
      EXPECT_EQ(w.path, p);
      EXPECT_EQ(w.first_offset, seen.size());
      EXPECT_EQ(w.data.back(), '\n');
      // The window's first line is "line N" with N its line number in the whole text.
      EXPECT_EQ(w.data.substr(0, w.data.find('\n')), "line " + std::to_string(w.first_line));
      size_t third = w.data.find("\nline ", w.data.find("\nline ") + 1) + 1;
      SourceLoc at = LocAt(w, third);
      EXPECT_EQ(at.line, w.first_line + 2);
      EXPECT_EQ(at.offset, seen.size() + third);
      seen += w.data;
    });
    ASSERT_TRUE(r) << r.error().ToString();
    EXPECT_EQ(seen, text);
    EXPECT_EQ(r->bytes, text.size());
    EXPECT_GT(r->windows, 20u);
    EXPECT_EQ(r->cut_lines, 0u);
    EXPECT_FALSE(r->stopped);
    EXPECT_EQ(r->file.was_gzip, EndsWith(p, ".gz"));
  }
}

// A cut gzip is read up to the cut; a line longer than a window is handed over in pieces.
TEST(ReadWindows, CutGzipAndLongLines) {
  TempDir dir;
  std::string text = std::string(2500, 'x') + "\n";
  for (int i = 0; i < 20000; ++i) text += "step " + std::to_string(i) + "\n";
  std::string gz = GzipString(text);
  std::string p = dir.Write("cut.log.gz", gz.substr(0, gz.size() / 2));
  std::string seen;
  auto r = ReadWindows(p, 1000, [&](const FileText& w) { seen += w.data; });
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->file.gzip_cut);
  EXPECT_EQ(r->cut_lines, 2u);  // 2,501 bytes in windows of 1,000
  EXPECT_GT(seen.size(), 2600u);
  EXPECT_EQ(text.substr(0, seen.size()), seen);
}

TEST(InputPath, SameFileThroughFolderAndLinkIsKeptOnce) {
  TempDir dir;
  std::string a = dir.Write("a.log", "x\n");
  fs::create_symlink(a, dir.path / "link.log");
  auto r = ExpandInputs({dir.path.string(), a, (dir.path / "link.log").string()});
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->repeated.size(), 3u);  // the link inside the folder, then both named again
}

TEST(InputPath, DevicesFifosAndLinkLoopsAreRefusedWithTheirReason) {
  TempDir dir;
  auto dev = ExpandInputs({"/dev/null"});
  ASSERT_FALSE(dev);
  EXPECT_NE(dev.error().message.find("character device"), std::string::npos);
  std::string fifo = (dir.path / "f").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto f = OpenInput(fifo);  // must return at once, not block waiting for a writer
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("named pipe"), std::string::npos);
  fs::create_symlink(dir.path / "b", dir.path / "a");
  fs::create_symlink(dir.path / "a", dir.path / "b");
  auto loop = ExpandInputs({(dir.path / "a").string()});
  ASSERT_FALSE(loop);
  EXPECT_NE(loop.error().message.find("symbolic link loop"), std::string::npos);
}

TEST(OwnReport, EveryFormatOfEveryCommandIsRecognised) {
  for (const char* command : {"diagnose", "logs", "trace", "topo", "env", "compare", "bench"}) {
    report::Report r;
    r.command = command;
    r.tool_version = "0.1.0";
    r.inputs = {{"nccl.vm.653.log", {InputKind::kNcclLog}, 10}};
    EXPECT_EQ(ingest::OwnReportKind(report::RenderText(r, {})), "text") << command;
    EXPECT_EQ(ingest::OwnReportKind(report::RenderText(r, {true, false})), "text") << command;
    EXPECT_EQ(ingest::OwnReportKind(report::RenderMarkdown(r)), "Markdown") << command;
    EXPECT_EQ(ingest::OwnReportKind(report::RenderHtml(r)), "HTML") << command;
    EXPECT_EQ(ingest::OwnReportKind(report::RenderJson(r)), "JSON") << command;
  }
}

TEST(OwnReport, RealInputsAreNotTakenForReports) {
  for (const char* f : {"nccl.vm.653.log", "env_rank0.json", "stdout.log", "meta.json"}) {
    auto head = ReadHead(std::string(COMMDX_SOURCE_DIR) + "/examples/ddp_healthy/" + f, 65536);
    ASSERT_TRUE(head) << f;
    EXPECT_EQ(ingest::OwnReportKind(*head), "") << f;
  }
  EXPECT_EQ(ingest::OwnReportKind("commdx logs were copied here\n"), "");
}

}  // namespace
}  // namespace commdx
