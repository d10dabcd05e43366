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

// splitmix64's own stream, as a uniform random bit generator: state plus
// the golden ratio each draw, mixed. A few instructions on a register where
// std::mt19937_64 keeps 2.5 KiB of state and regenerates it every 312 draws;
// a worker draws once or twice a pass (docs/PERFORMANCE.md, the checked
// mode's price).
class SplitMixStream {
 public:
  using result_type = std::uint64_t;
  explicit constexpr SplitMixStream(std::uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type(0); }
  constexpr result_type operator()() {
    const std::uint64_t z = state_;
    state_ += 0x9e3779b97f4a7c15ULL;
    return splitmix64(z);
  }

 private:
  std::uint64_t state_;
};

}  // namespace rwstress
