#include "cli/engine_opening.h"

#include <cassert>

namespace culprit {

EngineOpening::EngineOpening() : host_(MakeRealHostProbe()) {}

Result<std::unique_ptr<EngineOpening>> EngineOpening::WithHistory(const EngineSections& config,
                                                                  bool rebuild) {
  std::unique_ptr<EngineOpening> opening(new EngineOpening());
  Result<std::unique_ptr<EngineBuilds>> builds =
      EngineBuilds::Open(config, rebuild, &opening->build_progress_);
  if (!builds) return builds.error();
  opening->engine_builds_ = builds->get();
  opening->builds_ = std::move(*builds);
  return opening;
}

std::unique_ptr<EngineOpening> EngineOpening::ForMeasuring(const EngineSections& config,
                                                           bool rebuild) {
  std::unique_ptr<EngineOpening> opening(new EngineOpening());
  opening->builds_ = MakeEngineBuildProvider(config, rebuild, &opening->build_progress_);
  return opening;
}

EngineBuilds& EngineOpening::engine_builds() {
  assert(engine_builds_ != nullptr && "engine_builds() of an opening ForMeasuring");
  return *engine_builds_;
}

}  // namespace culprit
