// One error line, whatever the user typed: control characters in a value
// (a newline inside a path, a seed, a spec) are shown escaped (\n, \x01).
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace rwstress {

inline std::string printable(std::string_view s) {
  std::string out;
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
  return out;
}

}  // namespace rwstress
