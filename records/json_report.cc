// The JSON reporter: `culprit records export`, in the record file schema.

#include "records/report.h"

namespace culprit {
namespace {

class JsonReporter : public RecordReporter {
 public:
  std::string RenderList(std::span<const Record> records) override {
    if (records.empty()) return "[]\n";
    // Each record is already valid JSON; an array of them needs no re-parse.
    std::string out = "[\n";
    for (size_t i = 0; i < records.size(); ++i) {
      std::string one = RecordToJson(records[i]);
      while (!one.empty() && one.back() == '\n') one.pop_back();
      out += one;
      out += i + 1 < records.size() ? ",\n" : "\n";
    }
    return out + "]\n";
  }

  std::string RenderOne(const Record& record) override { return RecordToJson(record); }
};

}  // namespace

std::unique_ptr<RecordReporter> MakeJsonReporter() { return std::make_unique<JsonReporter>(); }

}  // namespace culprit
