#include "records/records_config.h"

namespace culprit {

Status ReadRecordsSection(const ConfigTable& root, RecordsConfig* records) {
  std::string dir = "benchmarks/results-v1";
  if (std::optional<ConfigValue> node = root.Get("records")) {
    auto table = node->Table("records");
    if (!table) return table.error();
    CULPRIT_TRY(table->CheckKeys("records", {"dir"}));
    CULPRIT_TRY(table->ReadString("records", "dir", &dir, /*allow_empty=*/false));
  }
  records->dir = root.source().Resolve(dir);
  return {};
}

}  // namespace culprit
