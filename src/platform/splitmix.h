// splitmix64: the one mixing function behind every derived seed (a worker's
// stream, an injector's stream, a fuzz trial's).
#pragma once

#include <cstdint>

namespace rwstress {

constexpr std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace rwstress
