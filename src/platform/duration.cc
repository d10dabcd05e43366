#include "platform/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace rwstress {

std::string format_duration(std::chrono::nanoseconds d) {
  auto ns = d.count();
  if (ns % 1000000000 == 0) return fmt::format("{}s", ns / 1000000000);
  if (ns % 1000000 == 0) return fmt::format("{}ms", ns / 1000000);
  if (ns % 1000 == 0) return fmt::format("{}us", ns / 1000);
  return fmt::format("{}ns", ns);
}

std::optional<std::chrono::nanoseconds> parse_duration(const std::string& text,
                                                       std::string* error,
                                                       std::chrono::nanoseconds shortest) {
  auto bad = [&](const char* why) -> std::optional<std::chrono::nanoseconds> {
    // Examples this option takes: none shorter than its shortest.
    using namespace std::chrono_literals;
    std::string examples;
    for (const auto& [shown, value] : {std::pair{"2", std::chrono::nanoseconds(2s)}, {"2s", 2s},
                                       {"500ms", 500ms}, {"250us", 250us}, {"1m", 1min}})
      if (value >= shortest) examples += (examples.empty() ? "" : ", ") + std::string(shown);
    *error = fmt::format("'{}' is not a duration ({}); use e.g. {}", text, why, examples);
    return std::nullopt;
  };
  if (text.empty()) return bad("empty");
  size_t unit_at = 0;
  while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) ||
                                   text[unit_at] == '.'))
    ++unit_at;
  std::string number = text.substr(0, unit_at), unit = text.substr(unit_at);
  if (number.empty() || number.front() == '.' || number.back() == '.' ||
      number.find('.') != number.rfind('.'))
    return bad("expected a number first");
  double scale;
  if (unit.empty() || unit == "s")
    scale = 1e9;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "ns")
    scale = 1;
  else if (unit == "m")
    scale = 60e9;
  else
    return bad("unknown unit");
  double ns = std::strtod(number.c_str(), nullptr) * scale;
  if (!(ns >= double(shortest.count())))
    return bad(fmt::format("shorter than {}", format_duration(shortest)).c_str());
  if (ns > 86400e9) return bad("longer than a day");
  return std::chrono::nanoseconds(std::int64_t(std::llround(ns)));
}

}  // namespace rwstress
