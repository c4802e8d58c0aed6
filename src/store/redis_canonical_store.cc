#include "store/redis_canonical_store.h"

#include <algorithm>

#include "store/canonical_codec.h"

namespace diagd::store {

Result<std::unique_ptr<RedisCanonicalStore>> RedisCanonicalStore::Open(std::string_view url,
                                                                       std::chrono::seconds ttl,
                                                                       RedisPoolOptions options) {
  auto endpoint = ParseRedisUrl(url);
  if (!endpoint) return endpoint.error();
  return std::make_unique<RedisCanonicalStore>(std::move(*endpoint), ttl, options);
}

RedisCanonicalStore::RedisCanonicalStore(RedisEndpoint endpoint, std::chrono::seconds ttl,
                                         RedisPoolOptions options)
    : ttl_(std::max(ttl, std::chrono::seconds(1))), pool_(std::move(endpoint), options) {}

std::string RedisCanonicalStore::KeyOf(const std::string& run_id) {
  return "diagd:canonical:" + run_id;
}

Status RedisCanonicalStore::Put(tools::CanonicalRecord record) {
  std::string key = KeyOf(record.run_id);
  std::string value = EncodeCanonicalRecord(record);
  std::string ttl = std::to_string(ttl_.count());
  auto replies = pool_.Pipeline({{"MULTI"},
                                 {"HSET", key, record.tool_call_id, value},
                                 {"EXPIRE", key, ttl},
                                 {"EXEC"}});
  if (!replies) return replies.error();
  // EXEC answers with the replies of HSET and EXPIRE, or an error (an
  // EXECABORT when a command was refused while queued).
  const RedisReply& exec = replies->back();
  bool stored = replies->size() == 4 && exec.type == RedisReply::Type::kArray &&
                exec.elements.size() == 2 &&
                std::none_of(exec.elements.begin(), exec.elements.end(),
                             [](const RedisReply& r) { return r.is_error(); });
  if (!stored) {
    std::string why = exec.is_error() ? exec.text : "an unexpected reply to EXEC";
    for (const RedisReply& reply : *replies) {
      if (reply.is_error()) {
        why = reply.text;
        break;
      }
    }
    return Error::Unavailable("redis " + pool_.endpoint().Describe() +
                              ": storing a canonical record: " + why);
  }
  return OkStatus();
}

Result<std::optional<tools::CanonicalRecord>> RedisCanonicalStore::Get(
    const std::string& run_id, const std::string& tool_call_id) {
  auto reply = pool_.Command({"HGET", KeyOf(run_id), tool_call_id});
  if (!reply) return reply.error();
  if (reply->type == RedisReply::Type::kNil) return std::optional<tools::CanonicalRecord>();
  if (reply->type != RedisReply::Type::kString) {
    return Error::Internal("redis " + pool_.endpoint().Describe() +
                           ": a canonical record is not a string");
  }
  auto record = DecodeCanonicalRecord(reply->text);
  if (!record) return record.error();
  if (record->run_id != run_id || record->tool_call_id != tool_call_id) {
    return Error::Internal("stored canonical record is damaged: it names another call");
  }
  return std::optional<tools::CanonicalRecord>(std::move(*record));
}

void RedisCanonicalStore::ForgetRun(const std::string& run_id) {
  (void)pool_.Command({"DEL", KeyOf(run_id)});
}

}  // namespace diagd::store
