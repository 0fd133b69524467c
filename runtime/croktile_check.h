// Runtime checks of generated code: a failed shape check becomes a
// croktile::runtime_error whose message names the .co.cpp file, line and values.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

#include "croktile.h"

namespace croktile {
namespace detail {

// `message` holds {0}, {1}, ... where the values go.
[[noreturn]] inline void check_failed(const char* where, const char* message,
                                      std::initializer_list<long long> values) {
  std::string text = std::string(where) + ": runtime check failed: ";
  const long long* vals = values.begin();
  for (const char* p = message; *p; ++p) {
    if (*p == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}') {
      std::size_t i = static_cast<std::size_t>(p[1] - '0');
      text += i < values.size() ? std::to_string(vals[i]) : std::string("?");
      p += 2;
    } else {
      text += *p;
    }
  }
  throw runtime_error(text);
}

}  // namespace detail
}  // namespace croktile
