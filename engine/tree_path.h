#pragma once

// Which names a git tree may give the files culprit checks out. A tree is
// untrusted input (a fork, a pull-request branch, a mirror): `git fetch`
// accepts a tree with an entry `..` or `a/../../x`, and writing it out as it
// stands would write, and on the next switch delete, files outside the
// checkout. The rules are git's own (read-cache.c, verify_path), so that
// culprit checks out exactly the trees `git checkout` does.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace culprit {

/// The longest path, in bytes, that a checkout writes (PATH_MAX less the
/// terminating NUL). It also bounds how deep a tree may nest, and so the
/// recursion of the walk that lists it.
inline constexpr size_t kMaxTreePathBytes = 4095;

/// Why `name`, the name of one entry of a git tree (one path component), is
/// unsafe to check out, or nullopt when it is safe. Unsafe, as git has it with
/// its defaults on Linux:
///   - empty, or holding '/' or a NUL byte (one entry is one component);
///   - "." or "..";
///   - ".git" in any case (a checkout holding a `.git` is a repository whose
///     config git runs commands from, in any build step that calls git);
///   - what NTFS reads as ".git" (git's core.protectNTFS, on by default
///     everywhere): ".git" or "git~1" in any case, followed only by dots and
///     spaces, or by ':' (an alternate data stream), also as the part after a
///     backslash.
/// Not checked: git's HFS+ rules (ignorable Unicode code points inside
/// ".git"; core.protectHFS is off on Linux) and `.gitmodules` symlinks
/// (culprit checks out no submodules). The reason is a short phrase for an
/// error message, e.g. "'..' leaves the checkout".
std::optional<std::string_view> UnsafeTreeEntryReason(std::string_view name);

/// `path` made printable for a message: bytes below 0x20, 0x7f and '\' as
/// escapes ("\n", "\t", "\\", "\x1b"), everything else as it is, so that a
/// crafted name cannot move the cursor or recolour the terminal.
std::string PrintableTreePath(std::string_view path);

}  // namespace culprit
