// What a tool's face opens its backend with, and what it gives back
// (ToolFace's OpenBackend). The face declares OpenBackend; the tool's
// backend library defines it (NAME_backend.cc), so only what links the
// backends (wiring/, check/) can open one. Opening reads configuration and
// checks folders and URLs; it searches, indexes and dials nothing yet.
#pragma once

#include <functional>
#include <memory>

#include "core/clock.h"

namespace diagd::config {
struct Config;
}  // namespace diagd::config

namespace diagd::tools {

class ToolAdapter;
struct CatalogOptions;

struct BackendContext {
  const config::Config& config;  // valid and complete (config.h)
  const Clock& clock;
};

struct OpenedBackend {
  // Null when the configuration does not have the tool (query_metrics
  // without [tools.metrics]).
  std::unique_ptr<ToolAdapter> adapter;
  // Brings what the catalog offers up to date with the backend (query_logs:
  // the topic files found now); empty when what it offers is fixed. Called
  // once at opening and then at most every few seconds, on any thread, while
  // the adapter lives.
  std::function<void(CatalogOptions&)> refresh_catalog;
};

}  // namespace diagd::tools
