#include "base/strings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>

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

namespace {

/// The length of the valid UTF-8 sequence starting at `text[0]` (1 to 4), or 0 when
/// the bytes there are not one: overlong forms, surrogates and code points above
/// U+10FFFF are invalid, as in RFC 3629.
size_t Utf8SequenceLength(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the range allowed for the second byte
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // overlong
    if (lead == 0xed) high = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // overlong
    if (lead == 0xf4) high = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xbf) return 0;
  }
  return length;
}

void AppendHexEscape(std::string& out, std::string_view prefix, unsigned char byte) {
  static const char kHex[] = "0123456789abcdef";
  out += prefix;
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

// The bytes of the character at text[i]: a valid UTF-8 sequence, or one byte outside one.
size_t CharacterLength(std::string_view text, size_t i) {
  return std::max<size_t>(Utf8SequenceLength(text.substr(i)), 1);
}

}  // namespace

size_t TextWidth(std::string_view text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size(); i += CharacterLength(text, i)) ++width;
  return width;
}

std::string ClipText(std::string_view text, size_t width) {
  assert(width >= 3);
  if (TextWidth(text) <= width) return std::string(text);
  size_t end = 0;
  for (size_t kept = 0; kept + 3 < width; ++kept) end += CharacterLength(text, end);
  return std::string(text.substr(0, end)) + "...";
}

std::string ClipMiddle(std::string_view text, size_t width) {
  assert(width >= 3);
  std::vector<size_t> starts;  // where each character begins
  for (size_t i = 0; i < text.size(); i += CharacterLength(text, i)) starts.push_back(i);
  if (starts.size() <= width) return std::string(text);
  const size_t head = (width - 3) / 2;
  const size_t tail = width - 3 - head;
  const size_t tail_start = tail == 0 ? text.size() : starts[starts.size() - tail];
  return std::string(text.substr(0, starts[head])) + "..." + std::string(text.substr(tail_start));
}

std::string EscapeControlChars(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) {
      AppendHexEscape(out, "\\x", byte);
      ++i;
      continue;
    }
    if (byte < 0x80) {
      out += text[i++];
      continue;
    }
    const size_t length = Utf8SequenceLength(text.substr(i));
    if (length == 0) {
      // A byte outside valid UTF-8: 0x80-0x9f is a C1 control to an 8-bit terminal.
      if (byte <= 0x9f) {
        AppendHexEscape(out, "\\x", byte);
      } else {
        out += text[i];
      }
      ++i;
      continue;
    }
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (length == 2 && byte == 0xc2 && second <= 0x9f) {
      AppendHexEscape(out, "\\u00", second);  // U+0080-U+009F: C2 followed by the code point
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::string AlignColumns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::vector<std::string>> escaped;
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    escaped.emplace_back();
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) {
      escaped.back().push_back(EscapeControlChars(row[i]));
      widths[i] = std::max(widths[i], TextWidth(escaped.back().back()));
    }
  }
  std::string out;
  for (const auto& row : escaped) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - TextWidth(row[i]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
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

std::string FormatProbability(double p) {
  if (!(p >= 0)) return "unknown";
  // Nothing culprit computes is certain: a posterior that saturated to 1 in floating point
  // (or a confidence within 1e-12 of it) is shown as the bound it is, never as "100%".
  if (p > 1 - 1e-12) return "> 99.9999999999%";
  // Enough decimals that the complement 100 - shown keeps one significant digit.
  const double complement = (1 - p) * 100;
  int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(complement))));
  std::string text = fmt::format("{:.{}f}", p * 100, decimals);
  // Rounding may still reach 100 (99.96 at one decimal): add decimals until it does not.
  while (text.starts_with("100") && decimals < 12)
    text = fmt::format("{:.{}f}", p * 100, ++decimals);
  // Trailing zeros add no information: 95.0% is 95%.
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text + "%";
}

bool IsValidEnvironmentName(std::string_view name) {
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (name.empty() || !start(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return start(c) || (c >= '0' && c <= '9'); });
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::string FirstLine(std::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

std::string_view TrimBlanks(std::string_view text) {
  constexpr std::string_view kBlanks = " \t\r\n";
  const size_t first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(kBlanks);
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> SplitWords(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    const size_t start = line.find_first_not_of(" \t", i);
    if (start == std::string_view::npos) break;
    size_t end = line.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = line.size();
    words.push_back(line.substr(start, end - start));
    i = end;
  }
  return words;
}

std::string PercentChange(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  return fmt::format("{:+.1f}%", (ratio - 1) * 100);
}

std::string PercentOf(double fraction) { return fmt::format("{:g}%", fraction * 100); }

namespace {

// The fewest decimals, from three to five, at which `low` and `high` print differently; three
// when they print alike even at five. Rounding is fmt's own, so the ends compared are the ends
// printed.
int IntervalDigits(double low, double high) {
  for (int digits = 3; digits <= 5; ++digits) {
    if (fmt::format("{:.{}f}", low, digits) != fmt::format("{:.{}f}", high, digits)) return digits;
  }
  return 3;
}

}  // namespace

std::string FormatInterval(double low, double high) {
  const int digits = IntervalDigits(low, high);
  return fmt::format("[{:.{}f}, {:.{}f}]", low, digits, high, digits);
}

std::string FormatRatioInterval(double ratio, double low, double high) {
  return fmt::format("{:.{}f} {}", ratio, IntervalDigits(low, high), FormatInterval(low, high));
}

std::string CountOf(long long n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

std::string ShortCommit(std::string_view id) {
  return std::string(id.substr(0, std::min(id.size(), kShortCommitLength)));
}

uint64_t Fnv1a64(std::string_view data, uint64_t hash) {
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace culprit
