#pragma once

// Writing JSON whatever text it carries.

#include <string>

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

}  // namespace culprit
