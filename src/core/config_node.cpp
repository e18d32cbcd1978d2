#include "lightsim/core/config_node.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"

namespace lightsim::config {

std::string Location::str() const {
  if (line <= 0) return source;
  return fmt::format("{}:{}:{}", source, line, column);
}

Node Node::make_null(Location where) {
  Node n;
  n.location_ = std::move(where);
  return n;
}
Node Node::make_scalar(std::string value, Location where) {
  Node n = make_null(std::move(where));
  n.kind_ = Kind::scalar;
  n.scalar_ = std::move(value);
  return n;
}
Node Node::make_map(Location where) {
  Node n = make_null(std::move(where));
  n.kind_ = Kind::map;
  return n;
}
Node Node::make_sequence(Location where) {
  Node n = make_null(std::move(where));
  n.kind_ = Kind::sequence;
  return n;
}

const std::string& Node::scalar() const {
  LIGHTSIM_CHECK(is_scalar(), "{} is {}, not a scalar", location_.str(), kind_name());
  return scalar_;
}
const std::vector<Node::Entry>& Node::entries() const {
  LIGHTSIM_CHECK(is_map(), "{} is {}, not a map", location_.str(), kind_name());
  return entries_;
}
const std::vector<Node>& Node::items() const {
  LIGHTSIM_CHECK(is_sequence(), "{} is {}, not a list", location_.str(), kind_name());
  return items_;
}

const Node* Node::find(std::string_view key) const {
  if (!is_map()) return nullptr;
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}
Node* Node::find(std::string_view key) {
  return const_cast<Node*>(static_cast<const Node*>(this)->find(key));
}
const Location& Node::key_location(std::string_view key) const {
  LIGHTSIM_CHECK(is_map(), "key_location on {}", kind_name());
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].first == key) return key_locations_[i];
  return location_;
}
Node& Node::set(std::string key, Node value, Location key_at) {
  LIGHTSIM_CHECK(is_map(), "set on {}", kind_name());
  if (key_at.source.empty()) key_at = value.location();
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].first == key) {
      key_locations_[i] = std::move(key_at);
      return entries_[i].second = std::move(value);
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
  key_locations_.push_back(std::move(key_at));
  return entries_.back().second;
}
void Node::erase(std::string_view key) {
  LIGHTSIM_CHECK(is_map(), "erase on {}", kind_name());
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].first == key) {
      entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      key_locations_.erase(key_locations_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}
void Node::push_back(Node value) {
  LIGHTSIM_CHECK(is_sequence(), "push_back on {}", kind_name());
  items_.push_back(std::move(value));
}

std::string_view Node::kind_name() const {
  switch (kind_) {
    case Kind::null:
      return "nothing";
    case Kind::scalar:
      return "a value";
    case Kind::map:
      return "a mapping";
    case Kind::sequence:
      return "a list";
  }
  return "?";
}

namespace {

Location location_of(const YAML::Mark& mark, const std::string& source) {
  return {source, mark.line + 1, mark.column + 1};
}

// Limits of one document, so a small hostile file cannot exhaust memory or time: YAML aliases
// are expanded into copies ("billion laughs": 10 aliases of 10 aliases ... is 10^k values from
// a few hundred bytes), and duplicate-key checks are linear per key.
// Values after alias expansion. A config has hundreds; 100k rejects an alias bomb (10^8 values)
// after 100k nodes, about 1 s under the fuzzer's instrumentation (1M took over 10 s there).
constexpr std::size_t kMaxValues = 100'000;
constexpr int kMaxDepth = 128;            // nesting of lists and mappings
constexpr std::size_t kMaxKeys = 10'000;  // keys of one mapping

// file:line:column of byte `offset` of `text` (columns count bytes).
Location location_at(std::string_view text, std::size_t offset, const std::string& source) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {source, line, column};
}

// ConfigError at the first byte of `text` that is not well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing beyond U+10FFFF).
void check_utf8(std::string_view text, const std::string& source) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = bytes[i];
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // range of the second byte
    if (c < 0x80) {
      length = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    }
    bool ok = length > 0 && i + length <= n;
    for (std::size_t k = 1; ok && k < length; ++k) {
      const unsigned char b = bytes[i + k];
      ok = k == 1 ? (b >= low && b <= high) : (b >= 0x80 && b <= 0xBF);
    }
    if (!ok)
      LIGHTSIM_THROW(ConfigError, "{}: invalid UTF-8 (byte 0x{:02x}); save the file as UTF-8",
                     location_at(text, i, source).str(), c);
    i += length;
  }
}

// A first pass over the parser's events, before any node is built: exactly one document, at
// most kMaxValues values (aliases not expanded; the conversion counts those) and kMaxDepth
// levels. So a large or deeply nested file is refused in bounded memory.
class EventLimits : public YAML::EventHandler {
 public:
  explicit EventLimits(const std::string& source) : source_(source) {}

  void OnDocumentStart(const YAML::Mark& mark) override { mark_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { value(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { value(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    value(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    open(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    open(mark);
  }
  void OnMapEnd() override { --depth_; }

  const YAML::Mark& document_mark() const { return mark_; }

 private:
  void value(const YAML::Mark& mark) {
    if (++values_ > kMaxValues)
      LIGHTSIM_THROW(ConfigError, "{}: document too large: more than {} values",
                     location_of(mark, source_).str(), kMaxValues);
  }
  void open(const YAML::Mark& mark) {
    value(mark);
    LIGHTSIM_CHECK_AS(ConfigError, ++depth_ <= kMaxDepth, "{}: nested deeper than {} levels",
                      location_of(mark, source_).str(), kMaxDepth);
  }

  const std::string& source_;
  std::size_t values_ = 0;
  int depth_ = 0;
  YAML::Mark mark_;
};

void check_events(std::string_view text, const std::string& source) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  EventLimits limits(source);
  if (!parser.HandleNextDocument(limits)) return;
  if (parser.HandleNextDocument(limits))
    LIGHTSIM_THROW(ConfigError,
                   "{}: a second YAML document (after '---' or '...'); a config file holds "
                   "exactly one",
                   location_of(limits.document_mark(), source).str());
}

struct Converter {
  const std::string& source;
  std::size_t values = 0;

  Node convert(const YAML::Node& y, int depth) {
    Location where = location_of(y.Mark(), source);
    if (++values > kMaxValues)
      LIGHTSIM_THROW(ConfigError,
                     "{}: document too large: more than {} values (after expanding "
                     "aliases)",
                     where.str(), kMaxValues);
    LIGHTSIM_CHECK_AS(ConfigError, depth <= kMaxDepth, "{}: nested deeper than {} levels",
                      where.str(), kMaxDepth);
    switch (y.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return Node::make_null(where);
      case YAML::NodeType::Scalar:
        return Node::make_scalar(y.Scalar(), where);
      case YAML::NodeType::Sequence: {
        Node seq = Node::make_sequence(where);
        for (const auto& item : y) seq.push_back(convert(item, depth + 1));
        return seq;
      }
      case YAML::NodeType::Map: {
        LIGHTSIM_CHECK_AS(ConfigError, y.size() <= kMaxKeys, "{}: more than {} keys in a mapping",
                          where.str(), kMaxKeys);
        Node map = Node::make_map(where);
        for (const auto& kv : y) {
          Location key_at = location_of(kv.first.Mark(), source);
          LIGHTSIM_CHECK_AS(ConfigError, kv.first.IsScalar(), "{}: a key must be a plain name",
                            key_at.str());
          const std::string& key = kv.first.Scalar();
          if (const Node* first = map.find(key))
            LIGHTSIM_THROW(ConfigError, "{}: duplicate key '{}' (first given at line {})",
                           key_at.str(), key, first->location().line);
          Node value = convert(kv.second, depth + 1);
          if (value.is_null()) value = Node::make_null(key_at);  // empty values point at the key
          map.set(key, std::move(value), key_at);
        }
        return map;
      }
    }
    return Node::make_null(where);
  }
};

}  // namespace

Node parse_document(std::string_view text, const std::string& source) {
  check_utf8(text, source);
  try {
    check_events(text, source);
    Converter converter{source};
    return converter.convert(YAML::Load(std::string(text)), 0);
  } catch (const YAML::ParserException& e) {
    LIGHTSIM_THROW(ConfigError, "{}: syntax error: {}", location_of(e.mark, source).str(), e.msg);
  } catch (const YAML::Exception& e) {
    LIGHTSIM_THROW(ConfigError, "{}: cannot be read: {}", location_of(e.mark, source).str(), e.msg);
  }
}

Node load_document(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec) && !std::filesystem::is_symlink(file, ec))
    LIGHTSIM_THROW(InputError, "{}: no such file", file.string());
  return parse_document(read_input_file(file, "config file", kMaxConfigFileBytes), file.string());
}

void merge_into(Node& base, const Node& overlay) {
  if (base.is_map() && overlay.is_map()) {
    for (const auto& [key, value] : overlay.entries()) {
      if (Node* existing = base.find(key); existing && existing->is_map() && value.is_map())
        merge_into(*existing, value);
      else
        base.set(key, value, overlay.key_location(key));
    }
    return;
  }
  base = overlay;
}

void apply_assignment(Node& root, std::string_view assignment) {
  const auto eq = assignment.find('=');
  LIGHTSIM_CHECK_AS(UsageError, eq != std::string_view::npos && eq > 0,
                    "--set '{}': expected KEY.PATH=VALUE", assignment);
  const std::string_view path = assignment.substr(0, eq);
  apply_assignment(root, path, assignment.substr(eq + 1), path);
}

void apply_assignment(Node& root, std::string_view path, std::string_view value_text,
                      std::string_view label) {
  const std::string source = fmt::format("--set {}", label);
  Node value = parse_document(value_text, source);
  if (!root.is_map()) root = Node::make_map({source, 0, 0});
  Node* at = &root;
  std::string_view rest = path;
  while (true) {
    const auto dot = rest.find('.');
    const std::string key(rest.substr(0, dot));
    LIGHTSIM_CHECK_AS(UsageError, !key.empty(), "--set '{}={}': empty key in path", label,
                      value_text);
    if (dot == std::string_view::npos) {
      at->set(key, std::move(value));
      return;
    }
    Node* next = at->find(key);
    if (next == nullptr || !next->is_map()) next = &at->set(key, Node::make_map({source, 0, 0}));
    at = next;
    rest.remove_prefix(dot + 1);
  }
}

namespace {
void emit(YAML::Emitter& out, const Node& n) {
  switch (n.kind()) {
    case Node::Kind::null:
      out << YAML::Null;
      break;
    case Node::Kind::scalar:
      out << n.scalar();
      break;
    case Node::Kind::sequence:
      out << YAML::BeginSeq;
      for (const auto& item : n.items()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case Node::Kind::map:
      out << YAML::BeginMap;
      for (const auto& [k, v] : n.entries()) {
        out << YAML::Key << k << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      break;
  }
}
}  // namespace

std::string to_yaml(const Node& node) {
  YAML::Emitter out;
  emit(out, node);
  return std::string(out.c_str()) + "\n";
}

}  // namespace lightsim::config
