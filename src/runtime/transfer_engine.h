// Transfers of parked fibers: one thread drives them all through a curl
// multi handle, so a run waiting on its model holds a socket and a curl
// handle, not a thread (runtime/fiber.h). For http/'s client alone.
//
// Thread safety: `PerformParked` is called on a fiber, from any worker.
#pragma once

#include <curl/curl.h>

#include <stop_token>

namespace diagd::runtime {

// Performs the prepared `easy` handle while the calling fiber is parked and
// returns its result, as curl_easy_perform would. Once `cancel` is
// requested the transfer is removed at once and the result is
// CURLE_ABORTED_BY_CALLBACK. The engine's thread is started on first use
// and lives as long as the process.
CURLcode PerformParked(CURL* easy, const std::stop_token& cancel);

// An easy handle for a parked transfer: one an earlier transfer gave back,
// or a new one (null when curl cannot make one). A parked transfer's
// connection stays in the engine's multi handle, not in its easy handle, so
// a given-back handle holds no connection and no option of its last use.
CURL* TakeParkedHandle();
// `easy`, reset, for a later parked transfer; beyond the few kept for
// reuse it is cleaned up (a burst's handles do not stay allocated).
void GiveBackParkedHandle(CURL* easy);

}  // namespace diagd::runtime
