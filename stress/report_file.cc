#include <cstdio>
#include <fstream>

#include "stress/report.h"

namespace rwstress {

std::string write_report_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return "cannot write '" + tmp + "'";
    out << text;
    if (!out.flush()) return "cannot write '" + tmp + "'";
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return "cannot rename '" + tmp + "' to '" + path + "'";
  }
  return "";
}

}  // namespace rwstress
