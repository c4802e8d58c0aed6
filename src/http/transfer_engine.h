// Transfers of parked fibers: one thread drives them all through a curl
// multi handle, so a run waiting on its model holds a socket and a curl
// handle, not a thread (core/fiber.h). Internal to http/.
//
// Thread safety: `PerformParked` is called on a fiber, from any worker.
#pragma once

#include <curl/curl.h>

namespace diagd::http {

// Performs the prepared `easy` handle while the calling fiber is parked and
// returns its result, as curl_easy_perform would. The engine's thread is
// started on first use and lives as long as the process.
CURLcode PerformParked(CURL* easy);

}  // namespace diagd::http
