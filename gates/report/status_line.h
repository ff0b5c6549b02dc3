// One line at the bottom of a terminal, redrawn in place (specs/reports.md, live progress):
// permanent lines print above it, and it is erased when the run ends. Only for a TTY; plain
// output never uses it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace pg {

class StatusLine {
 public:
  // `render` gives the line's text; it is called from the line's own thread every `period_s`
  // and after each Print, never while the caller of Print holds anything the line holds.
  // `fd` is the terminal's, for its width.
  StatusLine(std::ostream& out, int fd, std::function<std::string()> render, double period_s = 0.2);
  ~StatusLine();
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  // Text that stays (whole lines): the status line is erased, the text written, the line redrawn.
  void Print(const std::string& text);
  // Stops redrawing and erases the line; later Prints write plain text. Idempotent.
  void Close();

  // `text` cut to `columns` - 1 display columns (at a UTF-8 character boundary), so the
  // terminal never wraps it and the carriage return lands on the same line.
  static std::string Fit(const std::string& text, int columns);

 private:
  void Draw();  // callers hold mutex_
  void Loop();

  std::ostream& out_;
  int fd_;
  std::function<std::string()> render_;
  std::chrono::duration<double> period_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool closed_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace pg
