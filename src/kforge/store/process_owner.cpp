// /proc/sys/kernel/random/boot_id and field 22 of /proc/PID/stat (start time in clock ticks since
// boot).
#include "kforge/store/process_owner.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace kforge::store {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// The start time of `pid` in clock ticks since boot; "" when there is no such process.
std::string start_ticks(const std::string& pid) {
  std::string stat = first_line("/proc/" + pid + "/stat");
  auto paren = stat.rfind(')');
  if (paren == std::string::npos) return "";
  std::istringstream fields(stat.substr(paren + 2));
  std::string f;
  for (int i = 3; i <= 22 && fields >> f; ++i)
    if (i == 22) return f;
  return "";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

}  // namespace

std::string current_process_owner() {
  std::string pid = std::to_string(getpid());
  return host_name() + "|" + first_line("/proc/sys/kernel/random/boot_id") + "|" + pid + "|" +
         start_ticks(pid);
}

bool owner_alive(const std::string& owner) {
  auto parts = split(owner, '|');
  if (parts.size() != 4) return true;
  if (parts[0] != host_name()) return true;
  if (parts[1] != first_line("/proc/sys/kernel/random/boot_id")) return false;  // rebooted since
  return start_ticks(parts[2]) == parts[3];
}

}  // namespace kforge::store
