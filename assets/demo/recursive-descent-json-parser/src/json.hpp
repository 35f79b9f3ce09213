#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace json {

struct Value;
using Array = std::vector<Value>;
using Object = std::map<std::string, Value>;

struct Value {
    std::variant<std::nullptr_t, bool, double, std::string, Array, Object> data;
    bool is_null() const { return std::holds_alternative<std::nullptr_t>(data); }
    const Value& operator[](const std::string& key) const { return std::get<Object>(data).at(key); }
    const Value& operator[](size_t i) const { return std::get<Array>(data).at(i); }
};

struct ParseError : std::runtime_error {
    size_t line, column;
    ParseError(const std::string& what, size_t line, size_t column)
        : std::runtime_error(what + " at " + std::to_string(line) + ":" + std::to_string(column)), line(line), column(column) {}
};

Value parse(const std::string& text);
std::string serialize(const Value& value);

}  // namespace json
