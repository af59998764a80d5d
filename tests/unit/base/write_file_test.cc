// Writing outputs without destroying what the user keeps (write_file.h, temp_file.h), and reading
// inputs as they are while they grow or come as UTF-16 (file.h, text_input.h). Issue 39.
#include "base/write_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/file.h"
#include "base/input_path.h"
#include "base/temp_file.h"
#include "base/text_input.h"
#include "gtest/gtest.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed after it.
class Dir {
 public:
  Dir() {
    std::string tmpl = (fs::temp_directory_path() / "commdx-write-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~Dir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(path_)) ++n;
    return n;
  }

 private:
  std::string path_;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Put(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

// The process that registered a temporary file dies of the signal, and the file is gone.
void ExpectSignalRemovesTemp(int sig) {
  Dir dir;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto tmp = TempFile::Create(dir.path() + "/", "report.txt");
    if (!tmp || WriteAll(tmp->fd(), "half a report") != 0) _exit(2);
    if (access(tmp->path().c_str(), F_OK) != 0) _exit(3);
    raise(sig);
    _exit(4);  // not reached: the default action ends the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_EQ(dir.Entries(), 0u) << "temporary file left by signal " << sig;
}

TEST(TempFile, SigtermSigintSighupRemoveItAndStillEndTheProcess) {
  ExpectSignalRemovesTemp(SIGTERM);
  ExpectSignalRemovesTemp(SIGINT);
  ExpectSignalRemovesTemp(SIGHUP);
}

TEST(TempFile, PutsThePreviousHandlersBackAndRemovesItUnlessKept) {
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  Dir dir;
  std::string path;
  {
    auto tmp = TempFile::Create(dir.path() + "/", "a.txt");
    ASSERT_TRUE(tmp) << tmp.error().ToString();
    path = tmp->path();
    EXPECT_EQ(path.rfind(dir.path() + "/.a.txt.commdx-", 0), 0u) << path;
    struct sigaction during {};
    sigaction(SIGTERM, nullptr, &during);
    EXPECT_NE(during.sa_handler, before.sa_handler);
    EXPECT_FALSE(TempFile::Create(dir.path() + "/", "b.txt"));  // one at a time
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  {
    auto tmp = TempFile::Create(dir.path() + "/", "c.txt");
    ASSERT_TRUE(tmp);
    path = tmp->path();
    tmp->Keep();
  }
  EXPECT_EQ(access(path.c_str(), F_OK), 0);
}

TEST(WriteFile, RefusesAReadOnlyFileUnlessForcedAndKeepsItsMode) {
  Dir dir;
  const std::string p = dir / "baseline.json";
  Put(p, "old");
  chmod(p.c_str(), 0444);
  auto st = WriteFileAtomically(p, "new");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kUsage);
  EXPECT_NE(st.error().message.find("not writable (mode 0444); --force"), std::string::npos);
  EXPECT_EQ(Slurp(p), "old");
  ASSERT_TRUE(WriteFileAtomically(p, "new", {.force = true}));
  EXPECT_EQ(Slurp(p), "new");
  struct stat s {};
  stat(p.c_str(), &s);
  EXPECT_EQ(s.st_mode & 07777, 0444u);
  EXPECT_EQ(dir.Entries(), 1u);
}

TEST(WriteFile, FollowsSymbolicLinksDanglingOnesToo) {
  Dir dir;
  Put(dir / "target.txt", "old");
  ASSERT_EQ(symlink("target.txt", (dir / "link.txt").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(dir / "link.txt", "new"));
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(Slurp(dir / "target.txt"), "new");
  // A dangling link: its target is created, the link kept.
  ASSERT_EQ(symlink("sub/new.txt", (dir / "dangling.txt").c_str()), 0);
  fs::create_directory(dir / "sub");
  ASSERT_TRUE(WriteFileAtomically(dir / "dangling.txt", "made"));
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.txt"));
  EXPECT_EQ(Slurp(dir / "sub/new.txt"), "made");
  // A loop is an error, not a file written somewhere.
  ASSERT_EQ(symlink("loop2", (dir / "loop1").c_str()), 0);
  ASSERT_EQ(symlink("loop1", (dir / "loop2").c_str()), 0);
  auto st = WriteFileAtomically(dir / "loop1", "x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("Too many levels of symbolic links"), std::string::npos);
}

TEST(WriteFile, KeepsHardLinksByRewritingInPlace) {
  Dir dir;
  Put(dir / "a.txt", "old");
  ASSERT_EQ(link((dir / "a.txt").c_str(), (dir / "b.txt").c_str()), 0);
  struct stat before {};
  stat((dir / "a.txt").c_str(), &before);
  ASSERT_TRUE(WriteFileAtomically(dir / "a.txt", "a longer new report"));
  EXPECT_EQ(Slurp(dir / "b.txt"), "a longer new report");
  struct stat after {};
  stat((dir / "a.txt").c_str(), &after);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_nlink, 2u);
  EXPECT_EQ(dir.Entries(), 2u);  // no temporary file left
}

TEST(WriteFile, ReplacesAPlainFileWholeWithItsModeAndOwner) {
  Dir dir;
  const std::string p = dir / "r.txt";
  Put(p, "old");
  chmod(p.c_str(), 0640);
  struct stat before {};
  stat(p.c_str(), &before);
  ASSERT_TRUE(WriteFileAtomically(p, "new"));
  struct stat after {};
  stat(p.c_str(), &after);
  EXPECT_EQ(Slurp(p), "new");
  EXPECT_EQ(after.st_mode & 07777, 0640u);
  EXPECT_EQ(after.st_uid, before.st_uid);
  EXPECT_EQ(after.st_gid, before.st_gid);
  EXPECT_EQ(dir.Entries(), 1u);
}

TEST(WriteFile, AFolderOrAMissingFolderIsAnErrorNamingThePath) {
  Dir dir;
  auto st = WriteFileAtomically(dir.path(), "x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("is a folder"), std::string::npos);
  st = WriteFileAtomically(dir / "no/such/r.txt", "x");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().where.file, dir / "no/such/r.txt");
  EXPECT_NE(st.error().message.find("No such file or directory"), std::string::npos);
}

TEST(ReadAll, AFileThatGrowsIsReadAsItWasWhenOpened) {
  Dir dir;
  const std::string p = dir / "job.log";
  Put(p, "line 1\nline 2\nline 3 half");
  auto in = OpenInput(p);
  ASSERT_TRUE(in);
  {
    std::ofstream(p, std::ios::app) << " done\nline 4\n";  // the job writes on
  }
  uint64_t grew = 0;
  auto raw = ReadAll(*in, p, 1 << 20, &grew);
  ASSERT_TRUE(raw) << raw.error().ToString();
  EXPECT_EQ(*raw, "line 1\nline 2\nline 3 half");
  EXPECT_EQ(grew, 13u);  // " done\nline 4\n"
}

TEST(ReadAll, AFileThatShrinksIsStillAnError) {
  Dir dir;
  const std::string p = dir / "cut.log";
  Put(p, std::string(100000, 'x'));
  auto in = OpenInput(p);
  ASSERT_TRUE(in);
  ASSERT_EQ(truncate(p.c_str(), 10), 0);
  auto raw = ReadAll(*in, p, 1 << 20);
  ASSERT_FALSE(raw);
  EXPECT_NE(raw.error().message.find("changed while reading"), std::string::npos);
}

std::string Utf16(const std::string& ascii, bool little, bool bom) {
  std::string out = bom ? (little ? "\xFF\xFE" : "\xFE\xFF") : "";
  for (char c : ascii) {
    out += little ? c : '\0';
    out += little ? '\0' : c;
  }
  return out;
}

TEST(NormalizeInputText, ConvertsUtf16WithOrWithoutAByteOrderMark) {
  const std::string line = "vm:653:653 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>\r\n";
  for (bool little : {true, false})
    for (bool bom : {true, false}) {
      std::string t = Utf16(line + line, little, bom);
      const char* from = NormalizeInputText(t);
      ASSERT_NE(from, nullptr);
      EXPECT_STREQ(from, little ? "UTF-16LE" : "UTF-16BE");
      EXPECT_EQ(t, line + line);
    }
}

TEST(NormalizeInputText, Utf16SurrogatesAndCutEnds) {
  // "µs 😀" in UTF-16LE with a BOM, then a high surrogate cut off by a head read, then an odd
  // byte.
  std::string t = std::string("\xFF\xFE", 2) + std::string("\xB5\x00s\x00 \x00", 6) +
                  std::string("\x3D\xD8\x00\xDE", 4) + std::string("\x3D\xD8", 2) + "x";
  ASSERT_NE(NormalizeInputText(t), nullptr);
  EXPECT_EQ(t, "\xC2\xB5s \xF0\x9F\x98\x80");
  std::string lone = std::string("\xFF\xFE", 2) + std::string(
                                                      "\x00\xDC"
                                                      "a\x00",
                                                      4);
  NormalizeInputText(lone);
  EXPECT_EQ(lone,
            "\xEF\xBF\xBD"
            "a");
}

TEST(NormalizeInputText, LeavesUtf8AndBinaryAsTheyAre) {
  std::string utf8 = "\xEF\xBB\xBFvm:653 NCCL INFO x\n";
  EXPECT_EQ(NormalizeInputText(utf8), nullptr);
  EXPECT_EQ(utf8, "vm:653 NCCL INFO x\n");
  std::string bin("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
  std::string copy = bin;
  EXPECT_EQ(NormalizeInputText(bin), nullptr);
  EXPECT_EQ(bin, copy);
  std::string zeros(4096, '\0');
  EXPECT_EQ(NormalizeInputText(zeros), nullptr);
}

TEST(DefaultMaxBytes, FollowsTheAddressSpaceLimit) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the limit is lowered in a child: the test process keeps its own
    struct rlimit lim {};
    getrlimit(RLIMIT_AS, &lim);
    lim.rlim_cur = 2ull << 30;
    if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(77);
    _exit(DefaultMaxBytes() == (512ull << 20) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot set RLIMIT_AS";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace commdx
