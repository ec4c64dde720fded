#pragma once

// Writing JSON whatever text it carries, and reading JSON whatever its shape.

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"

namespace culprit {

/// `value` as JSON text (`indent` as in nlohmann's dump(): -1 is one line),
/// with invalid UTF-8 in its strings (a Latin-1 commit subject, an engine's
/// output) replaced by U+FFFD instead of thrown on: a record, a cache entry or
/// a bisect state is written whatever text it holds. `Json` is
/// nlohmann::json; a template, so that base/ does not depend on nlohmann.
template <typename Json>
std::string ToJsonText(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

/// How deep culprit reads nested JSON arrays and objects. nlohmann's parser is
/// iterative, but dump(), comparison and copying recurse once per level: a
/// value nested 100k deep (a damaged record, a hostile published table or
/// engine output) overflows the stack. Nothing culprit reads legitimately
/// nests more than a dozen levels; 512 levels stay far inside any stack,
/// sanitizer builds' included.
inline constexpr size_t kMaxJsonDepth = 512;

/// True when `text`, read as JSON, nests arrays and objects more than `limit`
/// levels deep. A scan of brackets outside strings (escapes honoured), without
/// recursion and without parsing: on text that is not JSON its answer only
/// means that the parser will not be given more than `limit` open brackets.
inline bool JsonNestsDeeperThan(std::string_view text, size_t limit = kMaxJsonDepth) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote or a backslash among them
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

/// The error for JSON refused by JsonNestsDeeperThan, for every reader to word alike.
inline std::string JsonTooDeepMessage(size_t limit = kMaxJsonDepth) {
  return fmt::format("JSON nested more than {} levels deep, the most culprit reads", limit);
}

/// `text` parsed as one JSON document, or an error: nlohmann's message (with its
/// line and column) when it is not JSON, JsonTooDeepMessage when it nests deeper
/// than `max_depth`, refused before parsing so that nothing recursive ever sees
/// it. `Json` is nlohmann::json, as for ToJsonText.
template <typename Json>
Result<Json> ParseJsonText(std::string_view text, size_t max_depth = kMaxJsonDepth) {
  if (JsonNestsDeeperThan(text, max_depth)) return Error(JsonTooDeepMessage(max_depth));
  try {
    return Json::parse(text);
  } catch (const typename Json::exception& e) {
    return Error(e.what());
  }
}

}  // namespace culprit
