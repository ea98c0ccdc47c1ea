// Expected<T>: a value or an Error. Whatever untrusted input can cause (a bad task file, a
// response without code, a compiler failure) comes back as an Error value; bugs in ptxbench
// itself throw (see check.hpp).
#pragma once
#include <string>
#include <utility>
#include <variant>

namespace ptxbench::util {

struct Error {
  std::string message;
};

template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

}  // namespace ptxbench::util
