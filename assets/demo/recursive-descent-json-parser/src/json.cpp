#include "json.hpp"

#include <cmath>
#include <cstdlib>

namespace json {
namespace {

class Parser {
  public:
    explicit Parser(const std::string& text) : s_(text) {}

    Value document() {
        Value v = value();
        skip_ws();
        if (pos_ != s_.size()) fail("trailing characters");
        return v;
    }

  private:
    const std::string& s_;
    size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
            if (s_[i] == '\n') { ++line; col = 1; } else { ++col; }
        }
        throw ParseError(what, line, col);
    }
    void skip_ws() { while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_; }
    char peek() { skip_ws(); if (pos_ >= s_.size()) fail("unexpected end of input"); return s_[pos_]; }
    void expect(const char* word) {
        for (const char* c = word; *c; ++c, ++pos_) if (pos_ >= s_.size() || s_[pos_] != *c) fail(std::string("expected ") + word);
    }

    Value value() {
        switch (peek()) {
            case '{': return object();
            case '[': return array();
            case '"': return Value{string()};
            case 't': expect("true"); return Value{true};
            case 'f': expect("false"); return Value{false};
            case 'n': expect("null"); return Value{nullptr};
            default: return number();
        }
    }

    Value object() {
        Object out;
        ++pos_;
        if (peek() == '}') { ++pos_; return Value{out}; }
        for (;;) {
            if (peek() != '"') fail("expected a string key");
            std::string key = string();
            if (peek() != ':') fail("expected ':'");
            ++pos_;
            out[key] = value();
            char c = peek();
            ++pos_;
            if (c == '}') return Value{out};
            if (c != ',') fail("expected ',' or '}'");
        }
    }

    Value array() {
        Array out;
        ++pos_;
        if (peek() == ']') { ++pos_; return Value{out}; }
        for (;;) {
            out.push_back(value());
            char c = peek();
            ++pos_;
            if (c == ']') return Value{out};
            if (c != ',') fail("expected ',' or ']'");
        }
    }

    Value number() {
        size_t start = pos_;
        if (s_[pos_] == '-') ++pos_;
        if (pos_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[pos_]))) fail("invalid value");
        while (pos_ < s_.size() && (isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' || s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
        char* end = nullptr;
        std::string token = s_.substr(start, pos_ - start);
        double d = std::strtod(token.c_str(), &end);
        if (*end != '\0') fail("invalid number");
        return Value{d};
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) out += static_cast<char>(cp);
        else if (cp < 0x800) { out += static_cast<char>(0xC0 | (cp >> 6)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) { out += static_cast<char>(0xE0 | (cp >> 12)); out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
        else { out += static_cast<char>(0xF0 | (cp >> 18)); out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F)); out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
    }

    unsigned hex4() {
        if (pos_ + 4 > s_.size()) fail("short \\u escape");
        unsigned v = std::stoul(s_.substr(pos_, 4), nullptr, 16);
        pos_ += 4;
        return v;
    }

    std::string string() {
        std::string out;
        ++pos_;
        while (pos_ < s_.size() && s_[pos_] != '"') {
            unsigned char c = s_[pos_++];
            if (c < 0x20) fail("control character in string");
            if (c != '\\') { out += static_cast<char>(c); continue; }
            char e = s_[pos_++];
            switch (e) {
                case '"': case '\\': case '/': out += e; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00) {  // surrogate pair
                        expect("\\u");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4() - 0xDC00);
                    }
                    append_utf8(out, cp);
                    break;
                }
                default: fail("invalid escape");
            }
        }
        if (pos_ >= s_.size()) fail("unterminated string");
        ++pos_;
        return out;
    }
};

void write_string(std::string& out, const std::string& s) {
    out += '"';
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
        else if (c < 0x20) { char buf[7]; std::snprintf(buf, sizeof buf, "\\u%04x", c); out += buf; }
        else out += static_cast<char>(c);
    }
    out += '"';
}

void write(std::string& out, const Value& v) {
    std::visit([&](auto&& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) out += "null";
        else if constexpr (std::is_same_v<T, bool>) out += x ? "true" : "false";
        else if constexpr (std::is_same_v<T, double>) { char buf[32]; std::snprintf(buf, sizeof buf, "%.17g", x); out += buf; }
        else if constexpr (std::is_same_v<T, std::string>) write_string(out, x);
        else if constexpr (std::is_same_v<T, Array>) {
            out += '[';
            for (size_t i = 0; i < x.size(); ++i) { if (i) out += ','; write(out, x[i]); }
            out += ']';
        } else {
            out += '{';
            bool first = true;
            for (auto& [k, val] : x) { if (!first) out += ','; first = false; write_string(out, k); out += ':'; write(out, val); }
            out += '}';
        }
    }, v.data);
}

}  // namespace

Value parse(const std::string& text) { return Parser(text).document(); }

std::string serialize(const Value& value) {
    std::string out;
    write(out, value);
    return out;
}

}  // namespace json
