#include "http/transfer_engine.h"

#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/fiber.h"

namespace diagd::http {
namespace {

class TransferEngine {
 public:
  using Done = std::function<void(CURLcode)>;

  // Never destroyed: a transfer may still be parked when the process exits.
  static TransferEngine& Instance() {
    static auto* engine = new TransferEngine;
    return *engine;
  }

  void Start(CURL* easy, Done done) {
    {
      std::lock_guard lock(mu_);
      incoming_.emplace_back(easy, std::move(done));
    }
    curl_multi_wakeup(multi_);
  }

 private:
  TransferEngine() : multi_(curl_multi_init()) {
    std::thread([this] { Loop(); }).detach();
  }

  void Loop() {
    std::unordered_map<CURL*, Done> running;
    std::vector<std::pair<CURL*, Done>> added;
    while (true) {
      {
        std::lock_guard lock(mu_);
        added.swap(incoming_);
      }
      for (auto& [easy, done] : added) {
        CURLMcode code = curl_multi_add_handle(multi_, easy);
        if (code != CURLM_OK) {
          done(CURLE_OUT_OF_MEMORY);  // the only way adding a fresh handle fails
          continue;
        }
        running.emplace(easy, std::move(done));
      }
      added.clear();
      int still_running = 0;
      curl_multi_perform(multi_, &still_running);
      int queued = 0;
      while (CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
        if (message->msg != CURLMSG_DONE) continue;
        // Copied out first: removing the handle invalidates `message`.
        CURL* easy = message->easy_handle;
        CURLcode result = message->data.result;
        curl_multi_remove_handle(multi_, easy);
        auto it = running.find(easy);
        Done done = std::move(it->second);
        running.erase(it);
        done(result);
      }
      // Returns on socket activity, on curl's next timeout, or on a wakeup.
      curl_multi_poll(multi_, nullptr, 0, 1000, nullptr);
    }
  }

  CURLM* const multi_;
  std::mutex mu_;
  std::vector<std::pair<CURL*, Done>> incoming_;
};

}  // namespace

CURLcode PerformParked(CURL* easy) {
  CURLcode result = CURLE_OK;
  core::Park([easy, &result](core::Wake wake) {
    // Nothing here touches the fiber's objects once the transfer is handed
    // over: it may finish, and the fiber resume, before Start returns.
    TransferEngine::Instance().Start(easy, [&result, wake = std::move(wake)](CURLcode code) {
      result = code;
      wake();
    });
  });
  return result;
}

}  // namespace diagd::http
