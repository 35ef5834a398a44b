// Python's format mini-language for f-strings and str.format: [[fill]align][sign][0][width][,][.prec][type].
#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "nki/core_ops.h"
#include "nki/interpreter.h"

namespace nki::core {

namespace {

struct Spec {
  char fill = ' ', align = 0, sign = '-', type = 0;
  bool zero = false, comma = false;
  int width = -1, precision = -1;
};

Spec parse_spec(std::string_view s) {
  Spec spec;
  size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (s.size() >= 2 && is_align(s[1])) {
    spec.fill = s[0];
    spec.align = s[1];
    i = 2;
  } else if (!s.empty() && is_align(s[0])) {
    spec.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) spec.sign = s[i++];
  if (i < s.size() && s[i] == '0') {
    spec.zero = true;
    ++i;
  }
  auto number = [&]() {
    int n = 0;
    bool any = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      n = std::min(n * 10 + (s[i++] - '0'), 10000);
      any = true;
    }
    return any ? n : -1;
  };
  spec.width = number();
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) {
    spec.comma = true;
    ++i;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    spec.precision = number();
    if (spec.precision < 0) throw NkiError(ErrorKind::Value, "format specifier missing precision");
  }
  if (i < s.size()) spec.type = s[i++];
  if (i != s.size()) throw NkiError(ErrorKind::Value, fmt::format("invalid format specifier '{}'", s));
  return spec;
}

std::string group_thousands(const std::string& digits) {
  size_t start = digits.find_first_of("0123456789");
  size_t end = digits.find_first_not_of("0123456789", start);
  if (end == std::string::npos) end = digits.size();
  std::string out = digits.substr(0, start);
  for (size_t i = start; i < end; ++i) {
    out += digits[i];
    size_t left = end - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + digits.substr(end);
}

std::string pad(std::string body, const Spec& spec, char default_align) {
  int len = int(body.size());
  if (spec.width <= len) return body;
  size_t n = size_t(spec.width - len);
  char align = spec.align ? spec.align : (spec.zero ? '=' : default_align);
  char fill = spec.align ? spec.fill : (spec.zero ? '0' : spec.fill);
  if (align == '<') return body + std::string(n, fill);
  if (align == '^') return std::string(n / 2, fill) + body + std::string(n - n / 2, fill);
  if (align == '=' && !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' '))
    return body.substr(0, 1) + std::string(n, fill) + body.substr(1);
  return std::string(n, fill) + body;
}

std::string with_sign(std::string body, bool negative, const Spec& spec) {
  if (negative) return "-" + body;
  if (spec.sign == '+') return "+" + body;
  if (spec.sign == ' ') return " " + body;
  return body;
}

std::string format_int(int64_t v, const Spec& spec) {
  bool negative = v < 0;
  uint64_t mag = negative ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  std::string body;
  switch (spec.type) {
    case 'x': body = fmt::format("{:x}", mag); break;
    case 'X': body = fmt::format("{:X}", mag); break;
    case 'o': body = fmt::format("{:o}", mag); break;
    case 'b': body = fmt::format("{:b}", mag); break;
    case 'c': throw NkiError(ErrorKind::Unsupported, "the 'c' format is not supported in kernels");
    default: body = std::to_string(mag);
  }
  if (spec.comma) body = group_thousands(body);
  return pad(with_sign(body, negative, spec), spec, '>');
}

std::string format_float(double v, const Spec& spec) {
  bool negative = std::signbit(v) && !std::isnan(v);
  double mag = std::fabs(v);
  int prec = spec.precision;
  std::string body;
  switch (spec.type) {
    case 'f': case 'F': body = fmt::format("{:.{}f}", mag, prec < 0 ? 6 : prec); break;
    case 'e': body = fmt::format("{:.{}e}", mag, prec < 0 ? 6 : prec); break;
    case 'E': body = fmt::format("{:.{}E}", mag, prec < 0 ? 6 : prec); break;
    case 'g': case 'n': body = fmt::format("{:.{}g}", mag, prec < 0 ? 6 : std::max(prec, 1)); break;
    case 'G': body = fmt::format("{:.{}G}", mag, prec < 0 ? 6 : std::max(prec, 1)); break;
    case '%': body = fmt::format("{:.{}f}%", mag * 100, prec < 0 ? 6 : prec); break;
    case 0:
      body = prec < 0 ? float_repr(mag) : fmt::format("{:.{}g}", mag, std::max(prec, 1));
      break;
    default: throw NkiError(ErrorKind::Value, fmt::format("unknown format code '{}' for object of type 'float'", spec.type));
  }
  if (std::isinf(mag)) body = spec.type == 'F' || spec.type == 'E' || spec.type == 'G' ? "INF" : "inf";
  if (std::isnan(v)) body = spec.type == 'F' || spec.type == 'E' || spec.type == 'G' ? "NAN" : "nan";
  if (spec.comma) body = group_thousands(body);
  return pad(with_sign(body, negative, spec), spec, '>');
}

}  // namespace

std::string format_value(Interpreter& in, const Value& v, std::string_view spec_text) {
  if (spec_text.empty()) return v.str();
  Spec spec = parse_spec(spec_text);
  std::optional<Value> number = v.is_object() ? to_python_scalar(v) : std::optional<Value>(v);
  if (number && number->is_number()) {
    bool float_type = spec.type && std::string_view("eEfFgGn%").find(spec.type) != std::string_view::npos;
    if (number->is_float() || float_type) {
      if (spec.type && std::string_view("dxXob").find(spec.type) != std::string_view::npos)
        throw NkiError(ErrorKind::Value, fmt::format("unknown format code '{}' for object of type 'float'", spec.type));
      return format_float(number->as_float(), spec);
    }
    if (spec.type && spec.type != 'd' && std::string_view("xXobc").find(spec.type) == std::string_view::npos)
      throw NkiError(ErrorKind::Value, fmt::format("unknown format code '{}' for object of type 'int'", spec.type));
    return format_int(number->as_int(), spec);
  }
  if (spec.type && spec.type != 's')
    throw NkiError(ErrorKind::Value, fmt::format("unknown format code '{}' for object of type '{}'", spec.type, v.type_name()));
  std::string s = v.str();
  if (spec.precision >= 0 && size_t(spec.precision) < s.size()) s.resize(size_t(spec.precision));
  return pad(s, spec, '<');
}

namespace {

// The ".attr" and "[index]" parts of a replacement field, applied as Python does. Names starting
// with '_' are refused: "{0.__class__}" is the classic way out of a format sandbox.
Value apply_accessors(Interpreter& in, Value v, const std::string& accessors) {
  size_t pos = 0;
  while (pos < accessors.size()) {
    if (accessors[pos] == '.') {
      size_t end = accessors.find_first_of(".[", pos + 1);
      std::string name = accessors.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
      if (name.empty()) throw NkiError(ErrorKind::Value, "empty attribute in format string");
      if (name[0] == '_')
        throw NkiError(ErrorKind::Sandbox, fmt::format("attribute '{}' is not available in a format field", name));
      v = in.get_attr(v, name);
      pos = end == std::string::npos ? accessors.size() : end;
    } else if (accessors[pos] == '[') {
      size_t close = accessors.find(']', pos);
      if (close == std::string::npos) throw NkiError(ErrorKind::Value, "missing ']' in format string");
      std::string key = accessors.substr(pos + 1, close - pos - 1);
      if (key.empty()) throw NkiError(ErrorKind::Value, "empty attribute in format string");
      bool numeric = std::all_of(key.begin(), key.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
      v = in.get_item(v, numeric ? Value::from_int(std::stoll(key.substr(0, 18))) : make_str(key));
      pos = close + 1;
    } else {
      throw NkiError(ErrorKind::Value, "only '.' or '[' may follow ']' in format field specifier");
    }
  }
  return v;
}

}  // namespace

std::string format_str(Interpreter& in, const std::string& text, const CallArgs& args) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '}') throw NkiError(ErrorKind::Value, "single '}' encountered in format string");
    if (c != '{') {
      out += c;
      continue;
    }
    size_t close = text.find('}', i);
    if (close == std::string::npos) throw NkiError(ErrorKind::Value, "single '{' encountered in format string");
    std::string field = text.substr(i + 1, close - i - 1);
    std::string spec;
    char conversion = 0;
    if (size_t colon = field.find(':'); colon != std::string::npos) {
      spec = field.substr(colon + 1);
      field.resize(colon);
    }
    if (size_t bang = field.find('!'); bang != std::string::npos) {
      conversion = bang + 1 < field.size() ? field[bang + 1] : 0;
      field.resize(bang);
    }
    // field_name ::= arg_name ("." attribute | "[" index "]")*
    size_t accessors = field.find_first_of(".[");
    std::string arg_name = field.substr(0, accessors);
    Value v;
    if (arg_name.empty() || std::isdigit(static_cast<unsigned char>(arg_name[0]))) {
      size_t index = arg_name.empty() ? auto_index++ : size_t(std::stoul(arg_name.substr(0, 6)));
      if (index >= args.args.size())
        throw NkiError(ErrorKind::Index, fmt::format("replacement index {} out of range for positional args tuple", index));
      v = args.args[index];
    } else {
      bool found = false;
      for (auto& [name, value] : args.kwargs)
        if (name == arg_name) v = value, found = true;
      if (!found) throw NkiError(ErrorKind::Index, fmt::format("format field '{}' was not given", arg_name));
    }
    if (accessors != std::string::npos) v = apply_accessors(in, v, field.substr(accessors));
    if (conversion == 'r') v = make_str(v.repr());
    else if (conversion == 's') v = make_str(v.str());
    out += format_value(in, v, spec);
    check_container_size(out.size(), 1);
    i = close;
  }
  return out;
}

// printf-style formatting, `fmt % args`: %[(key)][flags][width][.precision][length]type with
// flags - + space # 0, `*` width and precision taken from the arguments, types d i u o x X e E f
// F g G c r s a %. `args` is a tuple of positional values, a mapping for %(key) fields, or one
// value. Numbers are formatted by the same routines as the format mini-language.
std::string percent_format(Interpreter& in, const std::string& text, const Value& args) {
  const std::vector<Value>* items = nullptr;
  std::vector<Value> single;
  if (auto* t = args.as<TupleObj>()) items = &t->items;
  else single.push_back(args), items = &single;
  const bool mapping = args.is(ObjType::Dict);
  size_t next = 0;
  bool used_mapping = false;
  auto take = [&]() -> Value {
    if (next >= items->size()) throw NkiError(ErrorKind::Type, "not enough arguments for format string");
    return (*items)[next++];
  };
  auto take_int = [&](const char* what) {
    Value v = take();
    if (!v.is_int() && !v.is_bool()) throw NkiError(ErrorKind::Type, fmt::format("* wants int ({})", what));
    return v.as_int();
  };
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (++i >= text.size()) throw NkiError(ErrorKind::Value, "incomplete format");
    std::optional<Value> keyed;
    if (text[i] == '(') {
      size_t close = text.find(')', i);
      if (close == std::string::npos) throw NkiError(ErrorKind::Value, "incomplete format key");
      if (!mapping) throw NkiError(ErrorKind::Type, "format requires a mapping");
      keyed = in.get_item(args, make_str(text.substr(i + 1, close - i - 1)));
      used_mapping = true;
      i = close + 1;
    }
    Spec spec;
    bool left = false, alternate = false;
    for (; i < text.size() && std::string_view("-+ #0").find(text[i]) != std::string_view::npos; ++i) {
      switch (text[i]) {
        case '-': left = true; break;
        case '+': spec.sign = '+'; break;
        case ' ': if (spec.sign != '+') spec.sign = ' '; break;
        case '#': alternate = true; break;
        case '0': spec.zero = true; break;
      }
    }
    auto number = [&]() {
      int n = -1;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        n = std::min((n < 0 ? 0 : n) * 10 + (text[i++] - '0'), 10000);
      return n;
    };
    if (i < text.size() && text[i] == '*') {
      int64_t w = take_int("width");
      if (w < 0) left = true, w = -w;
      spec.width = int(std::min<int64_t>(w, 10000));
      ++i;
    } else {
      spec.width = number();
    }
    if (i < text.size() && text[i] == '.') {
      ++i;
      if (i < text.size() && text[i] == '*') spec.precision = int(std::clamp<int64_t>(take_int("precision"), 0, 10000)), ++i;
      else spec.precision = std::max(number(), 0);
    }
    while (i < text.size() && (text[i] == 'h' || text[i] == 'l' || text[i] == 'L')) ++i;  // length: ignored
    if (i >= text.size()) throw NkiError(ErrorKind::Value, "incomplete format");
    char type = text[i];
    if (type == '%') {
      out += '%';
      continue;
    }
    if (left) spec.align = '<', spec.zero = false;
    Value v = keyed ? *keyed : take();
    std::optional<Value> num = v.is_object() ? to_python_scalar(v) : std::optional<Value>(v);
    bool is_num = num && num->is_number();
    switch (type) {
      case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': {
        if (!is_num)
          throw NkiError(ErrorKind::Type, fmt::format("%{} format: a real number is required, not {}", type, v.type_name()));
        if ((type == 'o' || type == 'x' || type == 'X') && num->is_float())
          throw NkiError(ErrorKind::Type, fmt::format("%{} format: an integer is required, not float", type));
        double x = num->as_float();
        if (num->is_float() && !std::isfinite(x))
          throw NkiError(ErrorKind::Value, "cannot convert float infinity or NaN to integer");
        int64_t n = num->is_float() ? int64_t(std::trunc(x)) : num->as_int();
        spec.type = type == 'o' || type == 'x' || type == 'X' ? type : 'd';
        // Precision of an integer is its minimum number of digits.
        Spec digits = spec;
        digits.width = -1, digits.sign = '-', digits.zero = false, digits.align = 0;
        std::string body = format_int(n < 0 ? -n : n, digits);
        if (spec.precision > int(body.size())) body = std::string(size_t(spec.precision) - body.size(), '0') + body;
        if (alternate && type != 'd') body = (type == 'o' ? "0o" : type == 'x' ? "0x" : "0X") + body;
        out += pad(with_sign(body, n < 0, spec), spec, '>');
        break;
      }
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
        if (!is_num)
          throw NkiError(ErrorKind::Type, fmt::format("must be real number, not {}", v.type_name()));
        spec.type = type;
        out += format_float(num->as_float(), spec);
        break;
      }
      case 'c': {
        std::string c;
        if (auto* str = v.as<StrObj>(); str && str->s.size() == 1) c = str->s;
        else if (is_num && !num->is_float() && num->as_int() >= 0 && num->as_int() < 128) c = std::string(1, char(num->as_int()));
        else throw NkiError(ErrorKind::Type, "%c requires an ASCII int or a char");
        out += pad(c, spec, '>');
        break;
      }
      case 's': case 'r': case 'a': {
        std::string body = type == 's' ? v.str() : v.repr();
        if (spec.precision >= 0 && size_t(spec.precision) < body.size()) body.resize(size_t(spec.precision));
        spec.zero = false;
        out += pad(body, spec, '>');
        break;
      }
      default:
        throw NkiError(ErrorKind::Value, fmt::format("unsupported format character '{}'", type));
    }
    check_container_size(out.size(), 1);
  }
  if (!used_mapping && !mapping && next < items->size())
    throw NkiError(ErrorKind::Type, "not all arguments converted during string formatting");
  return out;
}

}  // namespace nki::core
