// The .npy header: magic, version 1.0, a little-endian header length, a Python dict literal
// padded with spaces so the data starts 64-byte aligned. Reading accepts versions 1 to 3 (a
// four-byte header length from version 2 on), as NumPy writes them.
#include "kforge/core/npy.h"

#include <fmt/format.h>

#include "kforge/core/fs.h"

namespace kforge::core {

Status write_npy(const std::filesystem::path& path, DType dtype,
                 const std::vector<std::int64_t>& shape, const void* data) {
  std::string dims;
  for (auto d : shape) dims += std::to_string(d) + ",";
  if (shape.size() > 1) dims.pop_back();
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                 dtype_npy_descr(dtype), dims);
  std::size_t total = 10 + dict.size() + 1;
  dict += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  auto len = static_cast<std::uint16_t>(dict.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  out += dict;
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  out.append(static_cast<const char*>(data), static_cast<std::size_t>(n) * dtype_size(dtype));
  return write_atomic(path, out);
}

namespace {

// The value of 'key' in the header dict: the text between "'key': " and the next ',' at depth 0.
std::string dict_value(const std::string& dict, const std::string& key) {
  auto p = dict.find("'" + key + "':");
  if (p == std::string::npos) return "";
  p += key.size() + 3;
  while (p < dict.size() && dict[p] == ' ') ++p;
  int depth = 0;
  std::size_t end = p;
  for (; end < dict.size(); ++end) {
    char c = dict[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if ((c == ',' || c == '}') && depth == 0) break;
  }
  return dict.substr(p, end - p);
}

Result<std::vector<std::int64_t>> parse_shape(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return Error{"unreadable shape " + text};
  std::vector<std::int64_t> shape;
  std::string inner = text.substr(1, text.size() - 2);
  std::size_t p = 0;
  while (p < inner.size()) {
    auto comma = inner.find(',', p);
    std::string item = inner.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
    item.erase(0, item.find_first_not_of(' '));
    if (!item.empty()) {
      try {
        shape.push_back(std::stoll(item));
      } catch (const std::exception&) {
        return Error{"unreadable shape " + text};
      }
    }
    if (comma == std::string::npos) break;
    p = comma + 1;
  }
  return shape;
}

Result<NpyArray> parse_npy(const std::string& bytes) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return Error{"not a .npy file"};
  auto u8 = [&](std::size_t i) {
    return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i]));
  };
  std::size_t major = u8(6), header_len = 0, start = 0;
  if (major == 1) {
    header_len = u8(8) | u8(9) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Error{"truncated header"};
    header_len = u8(8) | u8(9) << 8 | u8(10) << 16 | u8(11) << 24;
    start = 12;
  } else {
    return Error{fmt::format("unsupported .npy version {}", major)};
  }
  if (bytes.size() < start + header_len) return Error{"truncated header"};
  std::string dict = bytes.substr(start, header_len);
  NpyArray a;
  std::string descr = dict_value(dict, "descr");
  bool known = false;
  for (DType t : {DType::f32, DType::f64, DType::i32, DType::i64})
    if (descr == "'" + std::string(dtype_npy_descr(t)) + "'") {
      a.dtype = t;
      known = true;
    }
  if (!known) return Error{"dtype " + descr + " is none of f32, f64, i32, i64 (little-endian)"};
  if (dict_value(dict, "fortran_order") != "False")
    return Error{"Fortran order; write it in C order (np.ascontiguousarray)"};
  auto shape = parse_shape(dict_value(dict, "shape"));
  if (!shape) return shape.error();
  a.shape = std::move(*shape);
  std::size_t numel = 1;
  for (auto d : a.shape) numel *= static_cast<std::size_t>(d);
  std::size_t want = numel * dtype_size(a.dtype), have = bytes.size() - start - header_len;
  if (have != want) return Error{fmt::format("{} data bytes where the shape needs {}", have, want)};
  a.data = bytes.substr(start + header_len);
  return a;
}

}  // namespace

Result<NpyArray> read_npy(const std::filesystem::path& path) {
  auto bytes = read_text(path);
  if (!bytes) return bytes.error();
  auto a = parse_npy(*bytes);
  if (!a) return with_context(a.error(), path.string());
  return a;
}

}  // namespace kforge::core
