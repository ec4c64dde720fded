#include "overrides/override_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "base/strings.h"

namespace culprit {
namespace {

Status CheckName(std::string_view name, std::string_view origin) {
  if (IsValidEnvironmentName(name)) return {};
  return Error::Usage(
             fmt::format("{}: '{}' is not a valid environment variable name", origin, name))
      .WithHint("names are letters, digits and '_', not starting with a digit (e.g. PARALLEL)");
}

// Accumulates sets and unsets from several sources, refusing contradictions.
class Builder {
 public:
  Status Set(const std::string& name, const std::string& value, std::string_view origin) {
    CULPRIT_TRY(CheckName(name, origin));
    if (unset_.count(name)) {
      return Error::Usage(fmt::format("{}: {} is both set and unset", origin, name))
          .WithHint("an arm either sets a variable or removes it; drop one of the two");
    }
    auto [it, inserted] = result_.set.emplace(name, value);
    if (!inserted && it->second != value) {
      return Error::Usage(fmt::format("{}: {} is set twice, to '{}' and to '{}'", origin, name,
                                      it->second, value))
          .WithHint("give each variable one value per probe");
    }
    return {};
  }

  Status Unset(const std::string& name, std::string_view origin) {
    CULPRIT_TRY(CheckName(name, origin));
    if (result_.set.count(name)) {
      return Error::Usage(fmt::format("{}: {} is both set and unset", origin, name))
          .WithHint("an arm either sets a variable or removes it; drop one of the two");
    }
    unset_.insert(name);
    return {};
  }

  Status Named(const std::string& name, const NamedOverride& named) {
    std::string origin = fmt::format("override set '{}'", name);
    for (const auto& [key, value] : named.env) CULPRIT_TRY(Set(key, value, origin));
    for (const std::string& key : named.unset) CULPRIT_TRY(Unset(key, origin));
    if (std::find(result_.names.begin(), result_.names.end(), name) == result_.names.end()) {
      result_.names.push_back(name);
      if (!named.hypothesis.empty()) hypotheses_.push_back(named.hypothesis);
    }
    return {};
  }

  OverrideSet Finish() && {
    result_.unset.assign(unset_.begin(), unset_.end());
    result_.hypothesis = Join(hypotheses_, "; ");
    return std::move(result_);
  }

 private:
  OverrideSet result_;
  std::set<std::string> unset_;
  std::vector<std::string> hypotheses_;
};

}  // namespace

std::string OverrideSet::Label() const {
  std::vector<std::string> parts;
  for (const auto& [key, value] : set) parts.push_back(key + "=" + value);
  for (const std::string& key : unset) parts.push_back("-" + key);
  return parts.empty() ? std::string("(none)") : Join(parts, " ");
}

bool OverrideSet::empty() const { return set.empty() && unset.empty(); }

Result<OverrideSet> BuildOverrideSet(std::span<const std::string> override_args,
                                     std::span<const std::string> unset_args,
                                     const std::map<std::string, NamedOverride>& named) {
  Builder builder;
  for (const std::string& arg : override_args) {
    std::string origin = fmt::format("--override {}", arg);
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      // Only the first '=' separates: values such as "a=b" are legitimate.
      CULPRIT_TRY(builder.Set(arg.substr(0, eq), arg.substr(eq + 1), origin));
      continue;
    }
    auto it = named.find(arg);
    if (it == named.end()) {
      std::vector<std::string> names;
      for (const auto& [name, unused] : named) names.push_back(name);
      std::string hint = names.empty()
                             ? std::string(
                                   "no override sets are defined in culprit.toml; write K=V to "
                                   "set a variable, or add an [overrides.NAME] section")
                             : fmt::format(
                                   "write K=V to set a variable, or one of the override sets "
                                   "in culprit.toml: {}",
                                   Join(names, ", "));
      return Error::Usage(fmt::format("{}: no override set named '{}'{}", origin, arg,
                                      DidYouMean(arg, names)))
          .WithHint(hint);
    }
    CULPRIT_TRY(builder.Named(it->first, it->second));
  }
  for (const std::string& arg : unset_args) {
    CULPRIT_TRY(builder.Unset(arg, fmt::format("--unset {}", arg)));
  }
  return std::move(builder).Finish();
}

std::map<std::string, std::string> ApplyOverrides(const OverrideSet& overrides,
                                                  std::map<std::string, std::string> environment) {
  for (const std::string& key : overrides.unset) environment.erase(key);
  for (const auto& [key, value] : overrides.set) environment[key] = value;
  return environment;
}

}  // namespace culprit
