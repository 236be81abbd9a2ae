// The local launcher: one worker process per rank (this binary, re-executed with torchrun's variables).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.h"
#include "ywb/dist.h"

namespace ywb {
namespace {

volatile sig_atomic_t g_term_signal = 0;
volatile sig_atomic_t g_pause_signal = 0;

extern "C" void onTerm(int sig) {
  g_term_signal = sig;
}
extern "C" void onPause(int) {
  g_pause_signal = 1;
}

struct Child {
  pid_t pid = -1;
  int err_fd = -1;  ///< stderr pipe of ranks > 0 (-1 for rank 0, whose output is inherited)
  std::string pending;
  bool exited = false;
  int status = 0;
};

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
           ")";
  }
  return "ended with wait status " + std::to_string(status);
}

int exitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void relay(Child& c, int rank, bool flush_all) {
  size_t nl;
  while ((nl = c.pending.find('\n')) != std::string::npos) {
    std::cerr << "[rank " << rank << "] " << c.pending.substr(0, nl + 1);
    c.pending.erase(0, nl + 1);
  }
  if (flush_all && !c.pending.empty()) {
    std::cerr << "[rank " << rank << "] " << c.pending << "\n";
    c.pending.clear();
  }
  std::cerr.flush();
}

}  // namespace

int pickFreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail("cannot create a socket to find a free port: ", std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    fail("cannot find a free TCP port on 127.0.0.1: ", why, "; set MASTER_PORT yourself");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool launchedRankLostItsLauncher(int launcher_pid) {
  const char* launched = std::getenv("YWB_DIST_LAUNCHED");
  return launched && std::string(launched) == "1" && ::getppid() != pid_t(launcher_pid);
}

int launchLocalWorkers(const LaunchOptions& o) {
  if (o.world < 1) fail("launch: world size must be at least 1 (got ", o.world, ")");
  if (o.argv.empty()) fail("launch: no command line to re-execute");
  const int port = o.master_port > 0 ? o.master_port : pickFreePort();
  std::vector<std::string> args = o.argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();

  std::vector<Child> children(size_t(o.world));
  const pid_t launcher = ::getpid();
  for (int r = 0; r < o.world; ++r) {
    int fds[2] = {-1, -1};
    if (r > 0 && ::pipe2(fds, O_CLOEXEC) != 0) fail("launch: pipe failed: ", std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) fail("launch: fork failed for rank ", r, ": ", std::strerror(errno));
    if (pid == 0) {
      // Child: only async-signal-safe calls until exec.
      // A rank ends with its launcher (killed, crashed): none trains on unwatched and writes into the run
      // folder while a resume starts new ranks there. SIGTERM stops it as Ctrl-C does (rank 0 saves `last`);
      // torchrun's workers get the same signal. Checked after prctl: the launcher may be gone already.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != launcher) ::_exit(143);
      // Ranks > 0 write their stderr into the launcher's pipe: once it is gone, a write must fail (EPIPE),
      // not kill the rank before it has stopped with the others. (Ignored signals stay ignored across exec.)
      ::signal(SIGPIPE, SIG_IGN);
      if (r > 0) {
        const int devnull = ::open("/dev/null", O_WRONLY);
        if (devnull >= 0) ::dup2(devnull, STDOUT_FILENO);
        ::dup2(fds[1], STDERR_FILENO);
      }
      const std::string rank = std::to_string(r), world = std::to_string(o.world), p = std::to_string(port);
      ::setenv("RANK", rank.c_str(), 1);
      ::setenv("LOCAL_RANK", rank.c_str(), 1);
      ::setenv("WORLD_SIZE", world.c_str(), 1);
      ::setenv("LOCAL_WORLD_SIZE", world.c_str(), 1);
      ::setenv("MASTER_ADDR", o.master_addr.c_str(), 1);
      ::setenv("MASTER_PORT", p.c_str(), 1);
      ::setenv("YWB_DIST_LAUNCHED", "1", 1);
      ::execv("/proc/self/exe", cargv.data());
      const char msg[] = "ywb: launch: cannot re-execute /proc/self/exe\n";
      if (::write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
      }
      ::_exit(127);
    }
    children[size_t(r)].pid = pid;
    if (r > 0) {
      ::close(fds[1]);
      children[size_t(r)].err_fd = fds[0];
    }
  }

  // The terminal's Ctrl-C reaches every rank directly (same process group): the launcher ignores it and
  // waits for the ranks to stop together. SIGTERM (e.g. from Slurm or a GUI) is forwarded.
  // SIGUSR1 (pause/continue) goes to rank 0, which shares it with the others at the next step.
  struct sigaction ign {
  }, term{}, pause{}, old_int{}, old_term{}, old_usr1{};
  ign.sa_handler = SIG_IGN;
  term.sa_handler = onTerm;
  pause.sa_handler = onPause;
  ::sigaction(SIGINT, &ign, &old_int);
  ::sigaction(SIGTERM, &term, &old_term);
  ::sigaction(SIGUSR1, &pause, &old_usr1);
  g_term_signal = 0;
  g_pause_signal = 0;

  using Clock = std::chrono::steady_clock;
  int first_failed = -1;
  int result = 0;
  Clock::time_point failed_at{};
  bool killed = false;
  size_t running = children.size();
  while (running > 0) {
    if (g_term_signal) {
      for (auto& c : children) {
        if (!c.exited) ::kill(c.pid, SIGTERM);
      }
      g_term_signal = 0;
    }
    if (g_pause_signal) {
      if (!children.empty() && !children[0].exited) ::kill(children[0].pid, SIGUSR1);
      g_pause_signal = 0;
    }
    std::vector<pollfd> pfds;
    std::vector<int> ranks;
    for (size_t r = 0; r < children.size(); ++r) {
      if (children[r].err_fd >= 0) {
        pfds.push_back({children[r].err_fd, POLLIN, 0});
        ranks.push_back(int(r));
      }
    }
    if (pfds.empty()) {
      ::usleep(100 * 1000);
    } else if (::poll(pfds.data(), pfds.size(), 100) > 0) {
      for (size_t i = 0; i < pfds.size(); ++i) {
        if (!(pfds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Child& c = children[size_t(ranks[i])];
        char buf[4096];
        const ssize_t n = ::read(c.err_fd, buf, sizeof(buf));
        if (n > 0) {
          c.pending.append(buf, size_t(n));
          relay(c, ranks[i], false);
        } else if (n == 0 || errno != EINTR) {
          relay(c, ranks[i], true);
          ::close(c.err_fd);
          c.err_fd = -1;
        }
      }
    }
    for (size_t r = 0; r < children.size(); ++r) {
      Child& c = children[r];
      if (c.exited) continue;
      int status = 0;
      if (::waitpid(c.pid, &status, WNOHANG) != c.pid) continue;
      c.exited = true;
      c.status = status;
      --running;
      const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!ok) {
        std::cerr << "ywb: rank " << r << " " << describeStatus(status) << "\n";
        if (first_failed < 0) {
          first_failed = int(r);
          result = exitCodeOf(status);
          failed_at = Clock::now();
        }
      }
    }
    if (first_failed >= 0 && !killed && running > 0 &&
        std::chrono::duration<double>(Clock::now() - failed_at).count() > o.grace_s) {
      for (size_t r = 0; r < children.size(); ++r) {
        if (children[r].exited) continue;
        std::cerr << "ywb: rank " << r << " did not stop within " << o.grace_s << " s after rank "
                  << first_failed << " failed; killing it\n";
        ::kill(children[r].pid, SIGKILL);
      }
      killed = true;
    }
  }
  for (size_t r = 0; r < children.size(); ++r) {
    if (children[r].err_fd >= 0) {
      char buf[4096];
      ssize_t n;
      while ((n = ::read(children[r].err_fd, buf, sizeof(buf))) > 0)
        children[r].pending.append(buf, size_t(n));
      relay(children[r], int(r), true);
      ::close(children[r].err_fd);
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  ::sigaction(SIGUSR1, &old_usr1, nullptr);
  if (first_failed >= 0) {
    std::cerr << "ywb: distributed run failed: rank " << first_failed << " "
              << describeStatus(children[size_t(first_failed)].status) << " first\n";
  }
  return result;
}

}  // namespace ywb
