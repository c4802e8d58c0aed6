#include "check/check.h"

#include <algorithm>
#include <array>

#include "check/model_checks.h"
#include "check/store_checks.h"
#include "core/json_writer.h"
#include "core/text.h"
#include "http/http_client.h"
#include "tools/tool_registry.h"

namespace diagd::check {
namespace {

void Announce(CheckProgress* progress, std::string_view part, std::string_view name) {
  if (progress != nullptr) progress->OnChecking(part, name);
}

CheckItem ConfigItem(const config::Config& config, const CheckOptions& options) {
  std::size_t openai = DistinctOpenAiEndpoints(config.model).size();
  std::size_t datasources = config.tools.datasources.size();
  std::string detail = "valid; " + std::to_string(datasources) +
                       (datasources == 1 ? " datasource, " : " datasources, ") +
                       std::to_string(openai) +
                       (openai == 1 ? " model endpoint to probe" : " model endpoints to probe");
  if (config.now) detail += ", fixed now " + FormatRfc3339Millis(*config.now);
  return {"config", options.config_source, true, detail, ""};
}

void AppendModelChecks(const config::Config& config, const CheckOptions& options,
                       CheckProgress* progress, std::vector<CheckItem>& checks) {
  if (!options.probe_models) {
    checks.push_back({"model", "(skipped)", true, "--no-model: no request sent", ""});
    return;
  }
  for (const ModelEndpointGroup& group : DistinctOpenAiEndpoints(config.model)) {
    Announce(progress, "model", EndpointName(group));
    checks.push_back(
        ProbeModelEndpoint(group, config.model, options.environment, options.max_model_timeout));
  }
  if (auto offline = OfflineComponents(config.model); !offline.empty()) {
    checks.push_back(OfflineModelItem(offline));
  }
}

// Display width of a cell: code points (CJK paths count one each; close
// enough for a terminal table).
std::size_t Width(std::string_view cell) { return text::CodePointCount(cell); }

void AppendPadded(std::string& out, std::string_view cell, std::size_t width) {
  out += cell;
  out.append(width - std::min(width, Width(cell)) + 2, ' ');
}

}  // namespace

bool CheckReport::ok() const {
  return std::all_of(checks.begin(), checks.end(), [](const CheckItem& item) { return item.ok; });
}

CheckReport RunChecks(const config::Config& config, const CheckOptions& options, const Clock& clock,
                      CheckProgress* progress) {
  CheckReport report;
  auto& checks = report.checks;
  Announce(progress, "config", options.config_source);
  checks.push_back(ConfigItem(config, options));

  // Each registered tool's rows (its face's Check, tool_check.h).
  tools::CheckContext tool_check{config, clock, options.max_backend_time,
                                 [progress](std::string_view part, std::string_view name) {
                                   Announce(progress, part, name);
                                 }};
  tools::RegisteredTools::ForEach([&](auto face) {
    for (CheckItem& item : decltype(face)::Check(tool_check)) checks.push_back(std::move(item));
  });
  for (CheckItem& item : CheckStores(config, progress)) checks.push_back(std::move(item));
  AppendModelChecks(config, options, progress, checks);
  return report;
}

std::string ReportJson(const CheckReport& report) {
  json::JsonWriter out(1024);
  out.BeginObject().Key("ok").Bool(report.ok()).Key("checks").BeginArray();
  for (const CheckItem& item : report.checks) {
    out.BeginObject()
        .Key("part")
        .String(item.part)
        .Key("name")
        .String(text::SanitizeUtf8(item.name))
        .Key("ok")
        .Bool(item.ok)
        .Key("detail")
        .String(text::SanitizeUtf8(item.detail))
        .Key("advice")
        .String(text::SanitizeUtf8(item.advice))
        .EndObject();
  }
  out.EndArray().EndObject();
  return out.Take();
}

std::string ReportTable(const CheckReport& report) {
  constexpr std::array<std::string_view, 5> kHeader = {"PART", "NAME", "OK", "DETAIL", "ADVICE"};
  std::array<std::size_t, 4> widths{};
  for (std::size_t column = 0; column < widths.size(); ++column) {
    widths[column] = Width(kHeader[column]);
  }
  for (const CheckItem& item : report.checks) {
    widths[0] = std::max(widths[0], Width(item.part));
    widths[1] = std::max(widths[1], Width(item.name));
    // Only a row with advice prints past its detail.
    if (!item.advice.empty()) widths[3] = std::max(widths[3], Width(item.detail));
  }
  widths[2] = std::max<std::size_t>(widths[2], 3);  // "yes", "NO"
  std::string out;
  for (std::size_t column = 0; column < widths.size(); ++column) {
    AppendPadded(out, kHeader[column], widths[column]);
  }
  out += kHeader[4];
  out += '\n';
  for (const CheckItem& item : report.checks) {
    AppendPadded(out, item.part, widths[0]);
    AppendPadded(out, item.name, widths[1]);
    AppendPadded(out, item.ok ? "yes" : "NO", widths[2]);
    if (item.advice.empty()) {
      out += item.detail;
    } else {
      AppendPadded(out, item.detail, widths[3]);
      out += item.advice;
    }
    out += '\n';
  }
  return out;
}

}  // namespace diagd::check
