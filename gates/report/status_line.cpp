#include "gates/report/status_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

namespace pg {
namespace {

constexpr char kErase[] = "\r\033[K";

int Columns(int fd) {
  struct winsize ws {};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace

StatusLine::StatusLine(std::ostream& out, int fd, std::function<std::string()> render,
                       double period_s)
    : out_(out), fd_(fd), render_(std::move(render)), period_(period_s) {
  thread_ = std::thread([this] { Loop(); });
}

StatusLine::~StatusLine() { Close(); }

std::string StatusLine::Fit(const std::string& text, int columns) {
  std::string out;
  int width = 0;
  for (size_t i = 0; i < text.size();) {
    auto b = static_cast<unsigned char>(text[i]);
    size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : 4;
    if (text[i] == '\n') break;
    if (width + 1 > columns - 1) break;
    out.append(text, i, n);
    ++width;
    i += n;
  }
  return out;
}

void StatusLine::Draw() {
  std::string text = Fit(render_(), Columns(fd_));
  out_ << kErase << text;
  out_.flush();
  drawn_ = true;
}

void StatusLine::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!closed_) {
    Draw();
    wake_.wait_for(lock, period_, [this] { return closed_; });
  }
}

void StatusLine::Print(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) {
    out_ << text;
    out_.flush();
    return;
  }
  out_ << kErase << text;
  Draw();
}

void StatusLine::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return;
    closed_ = true;
    if (drawn_) out_ << kErase;
    out_.flush();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace pg
