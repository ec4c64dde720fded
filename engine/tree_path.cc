#include "engine/tree_path.h"

#include <fmt/format.h>

namespace culprit {
namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool StartsWithFolded(std::string_view text, std::string_view lower_prefix) {
  if (text.size() < lower_prefix.size()) return false;
  for (size_t i = 0; i < lower_prefix.size(); ++i) {
    if (Lower(text[i]) != lower_prefix[i]) return false;
  }
  return true;
}

/// git's is_ntfs_dotgit: ".git" or its 8.3 short name "git~1", then only dots
/// and spaces (NTFS drops them) up to the end, a separator or ':' (an
/// alternate data stream, ".git::$INDEX_ALLOCATION" is the directory itself).
bool IsNtfsDotGit(std::string_view part) {
  std::string_view rest;
  if (StartsWithFolded(part, ".git")) {
    rest = part.substr(4);
  } else if (StartsWithFolded(part, "git~1")) {
    rest = part.substr(5);
  } else {
    return false;
  }
  for (char c : rest) {
    if (c == ':' || c == '\\') return true;
    if (c != '.' && c != ' ') return false;
  }
  return true;
}

}  // namespace

std::optional<std::string_view> UnsafeTreeEntryReason(std::string_view name) {
  if (name.empty()) return "an empty name";
  if (name.find('\0') != std::string_view::npos) return "a NUL byte in the name";
  if (name.find('/') != std::string_view::npos) return "a '/' in one entry's name";
  if (name == ".") return "'.' names the directory itself";
  if (name == "..") return "'..' leaves the checkout";
  if (name.size() == 4 && StartsWithFolded(name, ".git")) {
    return "'.git' would make the checkout a git repository";
  }
  // git checks after every backslash too: NTFS takes it as a separator.
  for (size_t start = 0;;) {
    if (IsNtfsDotGit(name.substr(start))) return "a name NTFS reads as '.git'";
    size_t backslash = name.find('\\', start);
    if (backslash == std::string_view::npos) break;
    start = backslash + 1;
  }
  return std::nullopt;
}

std::string PrintableTreePath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          out += fmt::format("\\x{:02x}", byte);
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace culprit
