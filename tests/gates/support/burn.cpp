// pg_burn: a CPU-bound leg for contention tests and trials. Does a fixed amount of work on
// T threads in each of P processes (P-1 forked children), prints its wall time, and fails
// when that exceeds --max-ms: a "timing leg" whose verdict depends on machine speed.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

volatile uint64_t g_sink;

void Work(long millions) {
  uint64_t x = 88172645463325252ull;
  for (long i = 0; i < millions * 1000000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  g_sink = x;
}

void RunThreads(long millions, int threads) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(Work, millions);
  for (auto& t : pool) t.join();
}

}  // namespace

int main(int argc, char** argv) {
  long work = 50, max_ms = -1;
  int threads = 1, procs = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--work"))
      work = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--procs"))
      procs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-ms"))
      max_ms = std::atol(argv[i + 1]);
    else {
      std::fprintf(stderr, "pg_burn: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<pid_t> children;
  for (int p = 1; p < procs; ++p) {
    pid_t pid = fork();
    if (pid == 0) {
      RunThreads(work, threads);
      _exit(0);
    }
    children.push_back(pid);
  }
  RunThreads(work, threads);
  for (pid_t pid : children) waitpid(pid, nullptr, 0);
  long ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  start)
                .count();
  std::printf("wall_ms=%ld max_ms=%ld\n", ms, max_ms);
  return max_ms >= 0 && ms > max_ms ? 1 : 0;
}
