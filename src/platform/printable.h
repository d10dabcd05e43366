// One error line, whatever the user typed: control characters in a value
// (a newline inside a path, a seed, a spec) are shown escaped (\n, \x01),
// and a value longer than a reader reads (an 8,000-point --inject spec, a
// log line of a megabyte) is cut, saying how much there was.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace rwstress {

// What one shown line keeps of a value, by default.
inline constexpr std::size_t kMostShown = 1000;

inline std::string printable(std::string_view s, std::size_t most = kMostShown) {
  std::string out;
  const std::size_t whole = s.size();
  if (whole > most) s = s.substr(0, most);
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += char(c);
  }
  if (whole > most) out += fmt::format("... (cut: {} characters in all)", whole);
  return out;
}

}  // namespace rwstress
