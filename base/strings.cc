#include "base/strings.h"

#include <algorithm>

namespace culprit {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string NearestWord(std::string_view word, std::span<const std::string> candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    size_t d = EditDistance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, std::span<const std::string> candidates) {
  std::string nearest = NearestWord(word, candidates);
  return nearest.empty() ? std::string() : ", did you mean '" + nearest + "'?";
}

std::string TailLines(std::string_view text, size_t max_lines) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  size_t pos = text.size();
  for (size_t lines = 0; pos > 0 && lines < max_lines;) {
    --pos;
    if (text[pos] == '\n' && ++lines == max_lines) {
      ++pos;
      break;
    }
  }
  text = text.substr(pos);
  if (text.size() > kMaxTailBytes) text = text.substr(text.size() - kMaxTailBytes);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

std::string Join(std::span<const std::string> parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

}  // namespace culprit
