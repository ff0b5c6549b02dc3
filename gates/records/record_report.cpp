#include <sstream>

#include "gates/config/json_source.h"
#include "gates/records/record.h"

namespace pg {

std::string RecordResultsText(const std::vector<RecordResult>& results) {
  std::ostringstream out;
  for (const RecordResult& r : results) {
    for (const FieldResult& f : r.fields) {
      out << r.record << "." << f.field << "  expected \"" << f.expected << "\"  observed \""
          << f.observed << "\"  " << VerdictName(f.verdict) << "\n";
      if (!f.message.empty()) out << "  " << f.message << "\n";
    }
    for (const RelationResult& rel : r.relations) {
      out << r.record << ": " << rel.text << "  " << (rel.ok ? "holds" : "FAILS") << "\n";
      if (!rel.message.empty()) out << "  " << rel.message << "\n";
    }
  }
  return out.str();
}

std::string RecordResultsJson(const std::vector<RecordResult>& results) {
  Json records = Json::array();
  bool ok = true;
  for (const RecordResult& r : results) {
    Json fields = Json::array(), relations = Json::array();
    for (const FieldResult& f : r.fields) {
      fields.push_back({{"field", f.field},
                        {"expected", f.expected},
                        {"observed", f.observed},
                        {"verdict", std::string(VerdictName(f.verdict))},
                        {"message", f.message}});
    }
    for (const RelationResult& rel : r.relations) {
      relations.push_back({{"relation", rel.text}, {"holds", rel.ok}, {"message", rel.message}});
    }
    records.push_back({{"record", r.record},
                       {"path", r.path},
                       {"ok", r.ok()},
                       {"fields", fields},
                       {"relations", relations}});
    ok = ok && r.ok();
  }
  Json doc = {{"schema_version", 1},
              {"tool", "proofgate"},
              {"verb", "records check"},
              {"ok", ok},
              {"records", records}};
  return doc.dump(2) + "\n";
}

}  // namespace pg
