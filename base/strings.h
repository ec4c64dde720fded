#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace culprit {

/// Levenshtein distance between two strings.
size_t EditDistance(std::string_view a, std::string_view b);

/// The candidate nearest to `word`, or "" when none is close enough to be a
/// plausible typo (distance at most a third of the word's length, at least 2).
std::string NearestWord(std::string_view word, std::span<const std::string> candidates);

/// ", did you mean 'x'?" for use at the end of an error message, or "".
std::string DidYouMean(std::string_view word, std::span<const std::string> candidates);

/// The last `max_lines` lines of `text`, for error messages showing output tails:
/// at most the last kMaxTailBytes of them, and safe to print on a terminal
/// (control bytes other than newline and tab, an engine's escape sequences
/// among them, are shown as \xNN).
inline constexpr size_t kMaxTailBytes = 4096;
std::string TailLines(std::string_view text, size_t max_lines);

/// `text` made safe to print as one line on a terminal: every C0 control byte
/// (0x00-0x1f, newline and tab among them) and DEL become "\xNN"; a C1 control
/// (U+0080-U+009F, which some terminals obey as ESC + letter: U+009B is CSI)
/// becomes "\u00NN" when it is validly UTF-8 encoded and "\xNN" when its byte
/// stands alone outside valid UTF-8. Everything else, other invalid bytes
/// (0xa0-0xff: a Latin-1 name) and backslashes among it, is copied unchanged,
/// so ordinary text reads as before. For commit subjects, record fields and
/// engine error text, which are untrusted and must not drive the terminal.
std::string EscapeControlChars(std::string_view text);

/// The characters of `text` as a terminal counts them for alignment: one per valid UTF-8
/// sequence and one per byte outside one (a Latin-1 name). A wide (East Asian) character
/// counts one too; culprit's own text has none. Columns padded by bytes instead drift by one
/// at every "×" or "±" in a cell.
size_t TextWidth(std::string_view text);

/// `text` when it is at most `width` characters (TextWidth); else its first `width` - 3
/// characters and "...". Never cuts inside a UTF-8 sequence (a cut "×" prints as a stray
/// byte and makes the text invalid UTF-8). Requires width >= 3.
std::string ClipText(std::string_view text, size_t width);

/// `text` when it is at most `width` characters (TextWidth); else its first (`width` - 3) / 2
/// characters, "..." and its last ones, `width` characters in all: a long name whose two ends
/// both tell (a C++ function's scope and its parameters). Never cuts inside a UTF-8 sequence.
/// Requires width >= 3.
std::string ClipMiddle(std::string_view text, size_t width);

/// `rows` as aligned columns, one line each: every cell with its control characters escaped
/// (EscapeControlChars: a record's fields come from someone else's history), padded to its
/// column's widest cell (TextWidth) and two blanks; no blanks at a line's end. The text
/// reports' tables (`records list`, `records show`, a table's cells).
std::string AlignColumns(const std::vector<std::vector<std::string>>& rows);

/// A probability or confidence in [0, 1] as a percentage with as many decimals
/// as it takes not to round up to a certainty it does not have: 0.95 -> "95%",
/// 0.99612 -> "99.6%", 1 - 3e-8 -> "99.999997%". Never "100%": within 1e-12 of 1
/// (a posterior that saturated in floating point) is "> 99.9999999999%".
std::string FormatProbability(double p);

/// The lines of `text`, without their '\n' (and a '\r' before it); a final
/// line without '\n' counts, an empty text has no lines. Views into `text`.
std::vector<std::string_view> SplitLines(std::string_view text);

/// The text up to its first '\n' (all of it if there is none).
std::string FirstLine(std::string_view text);

/// `text` without the blanks (space, tab, '\r', '\n') at either end; a view into `text`.
std::string_view TrimBlanks(std::string_view text);

/// The words of `line`: the runs of characters other than space and tab, in order, as views
/// into `line`. "" and a line of blanks have none.
std::vector<std::string_view> SplitWords(std::string_view line);

/// A ratio B/A as the signed percent change it stands for, one decimal: 1.123 -> "+12.3%",
/// 0.9 -> "-10.0%", 1 -> "+0.0%"; "n/a" when the ratio is not finite.
std::string PercentChange(double ratio);

/// A fraction (a confidence, a band) as a percentage with the digits it has, no sign:
/// 0.95 -> "95%", 0.025 -> "2.5%". For a probability that must not round up to a certainty,
/// FormatProbability.
std::string PercentOf(double fraction);

/// A ratio with its interval, "1.085 [1.062, 1.109]": three decimals, or four or five when
/// three would print the interval's two ends alike though they differ (a tie between two
/// builds of one program on a quiet host is often narrower than 0.001): "1.0002 [0.9998,
/// 1.0006]". An interval that is one point even at five decimals prints at three, as it is.
/// Every ratio-and-interval culprit prints goes through here, so "[1.000, 1.000]" is only ever
/// an interval that measured no width, never the default of one that was not measured.
std::string FormatRatioInterval(double ratio, double low, double high);

/// The interval alone, with the digits FormatRatioInterval gives it: "[0.9998, 1.0004]". For
/// reports that print the ratio and its interval in columns of their own.
std::string FormatInterval(double low, double high);

/// `n` and the noun, plural unless n is 1: (1, "commit") -> "1 commit", (3, "build") ->
/// "3 builds". For the count-nouns culprit prints (commit, build, pair), whose plural adds an
/// s; not for nouns that change otherwise.
std::string CountOf(long long n, std::string_view noun);

/// The short form of a commit id everywhere culprit prints one: its first
/// kShortCommitLength characters (the whole id if shorter).
inline constexpr size_t kShortCommitLength = 10;
std::string ShortCommit(std::string_view id);

/// 64-bit FNV-1a of `data`, continuing from `hash` (the offset basis by
/// default): the digest of configuration files and build-cache keys. Not
/// cryptographic; used to tell inputs apart, never to authenticate them.
inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;
uint64_t Fnv1a64(std::string_view data, uint64_t hash = kFnv1a64Offset);

/// Joins with a separator.
std::string Join(std::span<const std::string> parts, std::string_view separator);

/// True for [A-Za-z_][A-Za-z0-9_]*: the names every shell and exec'd program
/// can see; anything else would be silently unreachable for the engine.
bool IsValidEnvironmentName(std::string_view name);

/// An enum's spellings in a table indexed by its value (its enumerators 0, 1, ... in
/// order), so that each spelling is written once: NameIn(kNames, v) and ParseIn<E>(kNames, s).
template <typename Enum, size_t N>
std::string_view NameIn(const std::string_view (&names)[N], Enum value) {
  const auto i = static_cast<size_t>(value);
  return i < N ? names[i] : std::string_view();
}
/// The value whose spelling is exactly `name`, or nullopt.
template <typename Enum, size_t N>
std::optional<Enum> ParseIn(const std::string_view (&names)[N], std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

}  // namespace culprit
