// `--set KEY.PATH=VALUE` overrides, each addressed to exactly one document by its key path.
//
// A command reads a top document (a study, a scenario, a fabric...) and, through its Ref<S>
// fields, the documents it references. A key path addresses the top document by default;
// a path through a Ref field addresses the referenced document:
//
//   --set batches=[4]                  the decode study's own `batches`
//   --set scenario.batches=[4]         `batches` of the decode scenario its `scenario` names
//   --set scenario=my_scenario         the reference itself (another scenario is read)
//
// A document that a command reads beside its top document (not through a Ref) is read with
// LoadOptions::scoped("NAME") and addressed as NAME.KEY (e.g. `fabric.gpu.hbm_capacity`).
// An assignment is applied only where the schema of the document has its path; one that no
// document took is an error (require_all_used), never ignored.
#pragma once

#include <atomic>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lightsim/core/config_node.h"

namespace lightsim::config {

struct SchemaInfo;

class Assignments {
 public:
  Assignments() = default;
  Assignments(std::vector<std::string> texts);  // NOLINT: implicit, `o.assignments = {...}`
  Assignments(std::initializer_list<std::string> texts)
      : Assignments(std::vector<std::string>(texts)) {}

  // Adds "key.path=value" (checked when a document is read: UsageError when malformed).
  void push_back(std::string text);
  // This copy addresses nothing from now on; copies made before keep their assignments,
  // and require_all_used on them still sees what they took.
  void clear() { entries_.clear(); }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  // The assignments as given, in order.
  std::vector<std::string> texts() const;

  // Applies to `document` (the top-level document of a spec of schema `schema`, read at
  // `scope`: "" for a command's top document, "scenario" for the one a `scenario` Ref of it
  // names) each assignment whose path, once `scope.` is removed, is a key of that schema not
  // beyond a Ref field. Marks them used. Thread-safe; copies share the used marks.
  void apply(Node& document, const SchemaInfo& schema, std::string_view scope) const;

  // Throws UsageError "--set KEY: no config read by this command has this key (did you mean
  // ...?)" for the first assignment no document took. Call it once a command has read every
  // config it needs and before it computes or writes anything.
  void require_all_used() const;

  // From now on, this object and its copies keep the text of every document they are applied
  // to ("<scope>\n" + its YAML after the assignments), for fingerprints of what a run read.
  void record_contents() const;
  std::vector<std::string> contents() const;

 private:
  struct Entry {
    std::string text;
    std::shared_ptr<std::atomic<bool>> used;
  };
  // What the documents read through these assignments were (for suggestions).
  struct Seen {
    std::mutex mutex;
    std::vector<std::pair<std::string, const SchemaInfo*>> documents;  // scope, schema
    bool record = false;
    std::vector<std::string> contents;  // when record: each document as applied
  };
  std::vector<Entry> entries_;
  std::shared_ptr<Seen> seen_ = std::make_shared<Seen>();
};

}  // namespace lightsim::config
