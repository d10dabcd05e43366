// Durations as the command line writes them: "2" (seconds), "2s", "1.5s",
// "500ms", "250us", "800ns", "3m".
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace rwstress {

// At least `shortest` (0 lets zero through), at most a day. Returns nullopt and sets
// *error on anything else.
std::optional<std::chrono::nanoseconds> parse_duration(
    const std::string& text, std::string* error,
    std::chrono::nanoseconds shortest = std::chrono::milliseconds(1));

std::string format_duration(std::chrono::nanoseconds d);  // "4s", "500ms", "2us"

}  // namespace rwstress
