// Test helper: a fresh folder under the system's temporary folder, removed at the end of the test,
// to copy inputs into and write made-up ones beside them.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace commdx {

struct TempFolder {
  std::filesystem::path dir;
  explicit TempFolder(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~TempFolder() { std::filesystem::remove_all(dir); }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  void Copy(const std::string& from, const std::string& to) const {
    std::filesystem::copy_file(from, dir / to, std::filesystem::copy_options::overwrite_existing);
  }
  // `to` may name subfolders: they are made.
  void Write(const std::string& to, const std::string& text) const {
    std::filesystem::create_directories((dir / to).parent_path());
    std::ofstream(dir / to, std::ios::binary) << text;
  }
  std::string Path(const std::string& name) const { return (dir / name).string(); }
};

}  // namespace commdx
