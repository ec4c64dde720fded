// bisect-sim: runs culprit's bisect search and the naive threshold script over a grid of
// synthetic worlds and prints, per cell, how often each lands on the first bad commit.
//
//   bisect-sim [--trials 200] [--seed 1] [--quick] [--no-outliers] [--no-drift]
//              [--cell N,EFFECT,SIGMA,UNBUILDABLE]
//
// --quick runs only N = 100 without unbuildable commits; --cell runs one cell
// (e.g. --cell 100,0.18,0.24,0). Deterministic: the same flags
// print the same table.

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "bisect/simulation.h"

namespace {

int Usage(const char* message) {
  std::fprintf(stderr,
               "bisect-sim: error: %s\n"
               "usage: bisect-sim [--trials N] [--seed S] [--quick] [--no-outliers] "
               "[--no-drift]\n",
               message);
  return 2;
}

std::string Row(std::string_view label, const culprit::CellSummary& s) {
  return fmt::format("{:<9} {:6.1f}% {:6.1f}% {:6.1f}% {:6.1f}% {:7.1f} {:4d} {:8.1f}", label,
                     100 * s.exact, 100 * s.range, 100 * s.wrong, 100 * s.inconclusive,
                     s.mean_builds, s.p95_builds, s.mean_pairs);
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 200;
  unsigned long long seed = 1;
  bool quick = false;
  std::vector<culprit::WorldOptions> cells;
  culprit::WorldOptions base;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--trials" || arg == "--seed") && i + 1 < argc) {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0' || v == 0) return Usage("--trials and --seed take a positive integer");
      if (arg == "--trials") {
        trials = static_cast<int>(v);
      } else {
        seed = v;
      }
    } else if (arg == "--cell" && i + 1 < argc) {
      culprit::WorldOptions w;
      if (std::sscanf(argv[++i], "%d,%lf,%lf,%lf", &w.n_commits, &w.effect, &w.sigma,
                      &w.unbuildable_fraction) != 4 ||
          w.n_commits < 1) {
        return Usage("--cell takes N,EFFECT,SIGMA,UNBUILDABLE, e.g. 100,0.18,0.24,0");
      }
      cells.push_back(w);
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--no-outliers") {
      base.outlier_rate = 0;
    } else if (arg == "--no-drift") {
      base.drift_step = 0;
    } else {
      return Usage(fmt::format("unknown argument '{}'", arg).c_str());
    }
  }

  fmt::print("bisect-sim: {} trials per cell, seed {}, drift step {}, outliers {}%\n", trials, seed,
             base.drift_step, 100 * base.outlier_rate);
  fmt::print(
      "builds: build attempts between the endpoints; pairs: culprit's paired runs, "
      "naive's candidate runs\n\n");
  fmt::print("{:>5} {:>4} {:>4} {:>4}  {:<9} {:>7} {:>7} {:>7} {:>7} {:>7} {:>4} {:>8}\n", "N", "d",
             "sd", "unb", "strategy", "exact", "range", "wrong", "incon", "builds", "p95", "pairs");
  if (cells.empty()) {
    for (int n : {100, 1000}) {
      if (quick && n != 100) continue;
      for (double unbuildable : {0.0, 0.10}) {
        if (quick && unbuildable > 0) continue;
        for (double effect : {0.05, 0.10, 0.18}) {
          for (double sigma : {0.05, 0.10, 0.24}) {
            culprit::WorldOptions w;
            w.n_commits = n;
            w.effect = effect;
            w.sigma = sigma;
            w.unbuildable_fraction = unbuildable;
            cells.push_back(w);
          }
        }
      }
    }
  }
  const culprit::SearchOptions search;
  for (culprit::WorldOptions world : cells) {
    world.drift_step = base.drift_step;
    world.outlier_rate = base.outlier_rate;
    const culprit::CellResult cell = culprit::RunCell(world, search, trials, seed);
    const std::string head =
        fmt::format("{:>5} {:>3.0f}% {:>3.0f}% {:>3.0f}% ", world.n_commits, 100 * world.effect,
                    100 * world.sigma, 100 * world.unbuildable_fraction);
    fmt::print("{} {}\n", head, Row("culprit", cell.culprit));
    fmt::print("{:{}} {}\n", "", head.size(), Row("naive-1", cell.naive_single));
    fmt::print("{:{}} {}\n", "", head.size(), Row("naive-5", cell.naive_median5));
    std::fflush(stdout);
  }
  return 0;
}
