#pragma once
// The page's files (web/ in the source tree), built into the binary so that an installed kforge
// serves the same pages as the build tree. Only these names are ever served: no path of a request
// reaches the file system.

#include <string_view>

namespace kforge::web {

struct Asset {
  std::string_view name;  // "index.html", "app.js", …
  std::string_view mime;
  std::string_view body;
};

// nullptr for any name that is not one of the files.
const Asset* find_asset(std::string_view name);

}  // namespace kforge::web
