// Recorded shapes: response bodies of the kind each OpenAI-compatible server
// family really sends, for the endpoint shape tests (endpoint_shapes*_test.cc)
// to play through the scripted model server to the real client.
//
// Each body was written for these tests after the shape the named source
// shows (a server's docs, its tests, or a user's bug report quoting a real
// answer): the field names, nesting, nulls, extras and id formats are the
// server's; the values (models, ids, questions, numbers) are made up. Where a
// source only describes a shape, or the versions that send it are not known,
// the comment says so.
//
// The tool names are diagd's own (search_documents, query_logs, query_mysql),
// so that the bodies read like answers to diagd's requests. The fixture the
// tests share is endpoint_shape_fixture.h.
#pragma once

namespace diagd::model::shapes {

// ---------------------------------------------------------------- vLLM

// vLLM with `--enable-auto-tool-choice --tool-call-parser hermes` (Qwen2.5):
// `content: null` beside the call, tool call ids `chatcmpl-tool-<hex>` (the
// id format quoted in InternLM/lmdeploy#3412, which compares vLLM's and
// SGLang's), and vLLM's extras beside OpenAI's fields: `reasoning_content:
// null` without a reasoning parser, `stop_reason`, `prompt_logprobs`,
// `kv_transfer_params` (vllm-project/vllm PR #5649 discussion: "It's unclear
// what `stop_reason` is"), `prompt_tokens_details: null`.
inline constexpr char kVllmToolCall[] = R"json({
  "id": "chatcmpl-7c1e0b5a92f64d0e9b3a44c1d7e8f210",
  "object": "chat.completion",
  "created": 1761566772,
  "model": "Qwen/Qwen2.5-72B-Instruct",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "refusal": null,
      "annotations": null,
      "audio": null,
      "function_call": null,
      "tool_calls": [{
        "id": "chatcmpl-tool-4be2d1f08a6c4f7e",
        "type": "function",
        "function": {"name": "search_documents",
                     "arguments": "{\"query\": \"order service connection pool exhausted\"}"}
      }],
      "reasoning_content": null
    },
    "logprobs": null,
    "finish_reason": "tool_calls",
    "stop_reason": null
  }],
  "service_tier": null,
  "system_fingerprint": null,
  "usage": {"prompt_tokens": 1204, "total_tokens": 1239, "completion_tokens": 35,
            "prompt_tokens_details": null},
  "prompt_logprobs": null,
  "kv_transfer_params": null
})json";

// vLLM answering a tool call with `finish_reason: "stop"`: vllm-project/vllm
// PR #25054 tabulates that non-streaming `tool_choice: "required"` (and
// named tool choice, as OpenAI itself) ended tool calls with "stop".
inline constexpr char kVllmToolCallFinishStop[] = R"json({
  "id": "chatcmpl-0d9a44b1c3e24f5a8e7f6b2c1a0d9e8f",
  "object": "chat.completion",
  "created": 1758090000,
  "model": "meta-llama/Llama-3.1-8B-Instruct",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "tool_calls": [{
        "id": "chatcmpl-tool-9e1f0c2d3b4a4c5d",
        "type": "function",
        "function": {"name": "query_logs",
                     "arguments": "{\"topic\": \"orders\", \"query\": \"level:ERROR timeout\"}"}
      }],
      "reasoning_content": null
    },
    "logprobs": null,
    "finish_reason": "stop",
    "stop_reason": null
  }],
  "usage": {"prompt_tokens": 980, "total_tokens": 1011, "completion_tokens": 31,
            "prompt_tokens_details": null}
})json";

// vLLM with a tool parser that found no call: an empty `tool_calls` array
// beside the text (vllm-project/vllm#42210 quotes `"tool_calls": []` next
// to content in a non-streaming answer).
inline constexpr char kVllmEmptyToolCallsBesideContent[] = R"json({
  "id": "chatcmpl-5f0e1d2c3b4a49586776655443322110",
  "object": "chat.completion",
  "created": 1778000000,
  "model": "Qwen/Qwen2.5-72B-Instruct",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "{\"status\":\"DIAGNOSED\"}", "tool_calls": [],
                "reasoning_content": null},
    "logprobs": null,
    "finish_reason": "stop",
    "stop_reason": null
  }],
  "usage": {"prompt_tokens": 2200, "total_tokens": 2212, "completion_tokens": 12}
})json";

// vLLM with `--reasoning-parser qwen3` or `deepseek_r1`, before the rename:
// the reasoning in `reasoning_content`, the answer in `content` (vLLM docs
// features/reasoning_outputs; vllm-project/vllm PR #14550 prints both).
inline constexpr char kVllmReasoningContent[] = R"json({
  "id": "chatcmpl-1a2b3c4d5e6f47889900aabbccddeeff",
  "object": "chat.completion",
  "created": 1741600000,
  "model": "Qwen/Qwen3-32B",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant",
                "reasoning_content": "The pool errors start at 10:02, right after the deploy.",
                "content": "{\"status\":\"DIAGNOSED\",\"cause\":\"pool size\"}",
                "tool_calls": []},
    "logprobs": null,
    "finish_reason": "stop",
    "stop_reason": null
  }],
  "usage": {"prompt_tokens": 1500, "total_tokens": 1620, "completion_tokens": 120}
})json";

// Newer vLLM: the reasoning in `reasoning` (vllm-project/vllm PR #27752
// `reasoning_content` -> `reasoning`, and PR #33402 removing the old name;
// vllm-project/router PR #115 follows it).
inline constexpr char kVllmReasoningField[] = R"json({
  "id": "chatcmpl-aa11bb22cc33dd44ee55ff6677889900",
  "object": "chat.completion",
  "created": 1770000000,
  "model": "Qwen/Qwen3-32B",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant",
                "reasoning": "Errors cluster on one pod; the pool there is at its limit.",
                "content": "{\"status\":\"DIAGNOSED\",\"cause\":\"one pod\"}",
                "tool_calls": []},
    "logprobs": null,
    "finish_reason": "stop",
    "stop_reason": null,
    "token_ids": null
  }],
  "usage": {"prompt_tokens": 1500, "total_tokens": 1610, "completion_tokens": 110,
            "prompt_tokens_details": null}
})json";

// vLLM that writes both names with the same text, for old clients
// (vllm-project/vllm#38488 describes PR #33635 writing both fields on output).
inline constexpr char kVllmBothReasoningFields[] = R"json({
  "id": "chatcmpl-0f1e2d3c4b5a69788796a5b4c3d2e1f0",
  "object": "chat.completion",
  "created": 1772000000,
  "model": "MiniMaxAI/MiniMax-M2",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant",
                "reasoning": "Check the logs of the order service first.",
                "reasoning_content": "Check the logs of the order service first.",
                "content": null,
                "tool_calls": [{"id": "chatcmpl-tool-a0b1c2d3e4f5a6b7", "type": "function",
                                "function": {"name": "query_logs",
                                             "arguments": "{\"topic\": \"orders\"}"}}]},
    "logprobs": null,
    "finish_reason": "tool_calls",
    "stop_reason": null
  }],
  "usage": {"prompt_tokens": 900, "total_tokens": 960, "completion_tokens": 60}
})json";

// vLLM's error body for a request with `tool_choice: "auto"` to a server
// started without `--enable-auto-tool-choice --tool-call-parser`: the body
// langchain4j/langchain4j#3475 quotes in its title (also
// soapbucket/sbproxy PR #591, NVIDIA developer forum thread 362784).
inline constexpr char kVllmAutoToolChoiceRefused[] =
    R"json({"object": "error",
  "message": "\"auto\" tool choice requires --enable-auto-tool-choice)json"
    R"json( and --tool-call-parser to be set",
  "type": "BadRequestError", "param": null, "code": 400})json";

// vLLM's 404 for a model name it does not serve (vllm-project/vllm#3485,
// THUDM/LongBench#102).
inline constexpr char kVllmModelNotFound[] =
    R"json({"object": "error", "message": "The model `qwen2.5-72b-instruct` does not exist.",
  "type": "NotFoundError", "param": null, "code": 404})json";

// ---------------------------------------------------------------- SGLang

// SGLang with `--tool-call-parser qwen25`: tool call ids that are the
// call's index, "0" for the first call of every turn (InternLM/lmdeploy#3412
// shows SGLang's ids '0', '1'), an `index` in each call, and SGLang's extras
// `reasoning_content: null`, `matched_stop`, `usage.reasoning_tokens`
// (sgl-project/sglang#6310 and #4550 quote these fields in chunks).
inline constexpr char kSglangToolCallIdZeroFirst[] = R"json({
  "id": "6f3c2a1b0e9d4c8b8a7f6e5d4c3b2a19",
  "object": "chat.completion",
  "created": 1747281101,
  "model": "Qwen/Qwen2.5-72B-Instruct",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": null, "reasoning_content": null,
                "tool_calls": [{"id": "0", "index": 0, "type": "function",
                                "function": {"name": "search_documents",
                                             "arguments": "{\"query\": \"502 gateway\"}"}}]},
    "logprobs": null,
    "finish_reason": "tool_calls",
    "matched_stop": null
  }],
  "usage": {"prompt_tokens": 812, "total_tokens": 840, "completion_tokens": 28,
            "prompt_tokens_details": null, "reasoning_tokens": 0},
  "metadata": {"weight_version": "default"}
})json";

// The next turn of the same conversation: again id "0".
inline constexpr char kSglangToolCallIdZeroSecond[] = R"json({
  "id": "7a4d3b2c1f0e4d9c9b8a7f6e5d4c3b2a",
  "object": "chat.completion",
  "created": 1747281109,
  "model": "Qwen/Qwen2.5-72B-Instruct",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": null, "reasoning_content": null,
                "tool_calls": [{"id": "0", "index": 0, "type": "function",
                                "function": {"name": "query_logs",
                                             "arguments": "{\"topic\": \"gateway\"}"}}]},
    "logprobs": null,
    "finish_reason": "tool_calls",
    "matched_stop": null
  }],
  "usage": {"prompt_tokens": 1260, "total_tokens": 1283, "completion_tokens": 23,
            "prompt_tokens_details": null, "reasoning_tokens": 0}
})json";

// SGLang with `--reasoning-parser qwen3 --tool-call-parser qwen25`:
// `reasoning_content` beside the call (SGLang docs
// advanced_features/separate_reasoning; the fields as sgl-project/sglang
// PR #9657 quotes them).
inline constexpr char kSglangReasoningBesideToolCall[] = R"json({
  "id": "fea45bfa7bbd4209b1e71bdcdcc6c667",
  "object": "chat.completion",
  "created": 1756216933,
  "model": "Qwen/Qwen3-32B",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": null,
                "reasoning_content": "The database is the likely cause; look at its slow queries.",
                "tool_calls": [{"id": "0", "index": 0, "type": "function",
                                "function": {"name": "query_mysql",
                                             "arguments": "{\"datasource\": \"orders\"}"}}]},
    "logprobs": null,
    "finish_reason": "tool_calls",
    "matched_stop": null
  }],
  "usage": {"prompt_tokens": 1400, "total_tokens": 1530, "completion_tokens": 130,
            "prompt_tokens_details": null, "reasoning_tokens": 96}
})json";

// SGLang's final answer: `matched_stop` is the stop token's id, a number
// (SGLang sends a token id or a stop string there; which one depends on
// what stopped generation).
inline constexpr char kSglangAnswerMatchedStopTokenId[] = R"json({
  "id": "0a1b2c3d4e5f40718293a4b5c6d7e8f9",
  "object": "chat.completion",
  "created": 1756216990,
  "model": "Qwen/Qwen3-32B",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "{\"status\":\"DIAGNOSED\"}",
                "reasoning_content": "The slow query log shows a missing index.",
                "tool_calls": null},
    "logprobs": null,
    "finish_reason": "stop",
    "matched_stop": 151645
  }],
  "usage": {"prompt_tokens": 2100, "total_tokens": 2190, "completion_tokens": 90,
            "prompt_tokens_details": null, "reasoning_tokens": 70}
})json";

// ---------------------------------------------------------------- llama.cpp

// llama-server (`--jinja`): a model name that need not be the one served
// (llama-server answers with the name the request gave, here
// "gpt-3.5-turbo" as in the request ggml-org/llama.cpp#11992 quotes), a
// build id as `system_fingerprint`, a random 32-character call id, and
// llama.cpp's `timings` (the fields of the response #11992 quotes).
inline constexpr char kLlamaCppToolCall[] = R"json({
  "choices": [{
    "finish_reason": "tool_calls",
    "index": 0,
    "message": {"role": "assistant", "content": null,
                "tool_calls": [{"type": "function",
                                "function": {"name": "search_documents",
                                             "arguments": "{\"query\":\"disk full\"}"},
                                "id": "Hq7Tz2mKc9LwR4pXa1sVf6bNe3uYg8Dj"}]}
  }],
  "created": 1740100000,
  "model": "gpt-3.5-turbo",
  "system_fingerprint": "b5998-446595b9",
  "object": "chat.completion",
  "usage": {"completion_tokens": 24, "prompt_tokens": 640, "total_tokens": 664},
  "id": "chatcmpl-Wb3kPq8sLz1xVn6cRt0yHm4jDf7gAe2u",
  "timings": {"prompt_n": 640, "prompt_ms": 412.5, "prompt_per_token_ms": 0.64,
              "prompt_per_second": 1551.5, "predicted_n": 24, "predicted_ms": 530.1,
              "predicted_per_token_ms": 22.1, "predicted_per_second": 45.3}
})json";

// Older llama-server: a tool call without `id`, and `reasoning_content`
// beside it (the response ggml-org/llama.cpp#11992 "add tool_calls id in
// response in server" quotes, build 4761).
inline constexpr char kLlamaCppToolCallWithoutId[] = R"json({
  "choices": [{
    "finish_reason": "tool_calls",
    "index": 0,
    "message": {"role": "assistant",
                "reasoning_content": "I should search the runbooks for this error first.",
                "content": null,
                "tool_calls": [{"type": "function",
                                "function": {"name": "search_documents",
                                             "arguments": "{\"query\":\"ECONNRESET\"}"}}]}
  }],
  "created": 1740140000,
  "model": "gpt-3.5-turbo",
  "system_fingerprint": "b4761-cad53fc9",
  "object": "chat.completion",
  "usage": {"completion_tokens": 88, "prompt_tokens": 512, "total_tokens": 600},
  "id": "chatcmpl-0pQ9rS8tU7vW6xY5zA4bC3dE2fG1hI0j"
})json";

// llama-server builds that sent `arguments` as a JSON object rather than a
// string (ggml-org/llama.cpp#20198, reverted by PR #20202 behind
// `--tool-args-object`).
inline constexpr char kLlamaCppArgumentsAsObject[] = R"json({
  "choices": [{
    "finish_reason": "tool_calls",
    "index": 0,
    "message": {"role": "assistant", "content": null,
                "tool_calls": [{"type": "function",
                                "function": {"name": "query_logs",
                                             "arguments": {"topic": "payments",
                                                           "lookback_minutes": 30}},
                                "id": "Kd2Lm9Np4Qr7St1Uv6Wx3Yz8Ab5Cd0Ef"}]}
  }],
  "created": 1772900000,
  "model": "gpt-3.5-turbo",
  "system_fingerprint": "b8200-1f2e3d4c",
  "object": "chat.completion",
  "usage": {"completion_tokens": 30, "prompt_tokens": 700, "total_tokens": 730},
  "id": "chatcmpl-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp"
})json";

// llama-server without `--jinja`, asked with tools: HTTP 500 and
// "tools param requires --jinja flag" (defilantech/LLMKube#126 quotes the
// status and text; containers/ramalama#988 the `type: server_error`).
inline constexpr char kLlamaCppNeedsJinja500[] =
    R"json({"error": {"code": 500, "message": "tools param requires --jinja flag",
  "type": "server_error"}})json";

// The same refusal as a 400, as builds that report request errors as
// invalid_request_error send it (unsure which builds: the text is the one
// above, the status and type are those of llama-server's other request
// errors).
inline constexpr char kLlamaCppNeedsJinja400[] =
    R"json({"error": {"code": 400, "message": "tools param requires --jinja flag",
  "type": "invalid_request_error"}})json";

// llama-server when the prompt does not fit its context (`-c`): 400 with
// `exceed_context_size_error` and the token counts (oobabooga/textgen#7257;
// ggml-org/llama.cpp PR #15780 added the type).
inline constexpr char kLlamaCppContextExceeded[] =
    R"json({"error": {"code": 400,
  "message": "the request exceeds the available context size, try increasing it",
  "type": "exceed_context_size_error", "n_prompt_tokens": 14429, "n_ctx": 8192}})json";

// ---------------------------------------------------------------- Ollama

// Ollama's /v1 tool call: `content: ""` (not null) beside the calls, ids
// `call_<8 chars>`, an `index` in each call, `system_fingerprint:
// "fp_ollama"` (g0t4/ask-openai.nvim notes on Ollama's /v1 chunks; the
// non-streaming message carries the same call objects).
inline constexpr char kOllamaToolCall[] = R"json({
  "id": "chatcmpl-18",
  "object": "chat.completion",
  "created": 1744446075,
  "model": "qwen2.5:14b",
  "system_fingerprint": "fp_ollama",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "",
                "tool_calls": [{"id": "call_wt3op8bt", "index": 0, "type": "function",
                                "function": {"name": "query_logs",
                                             "arguments": "{\"topic\":\"checkout\"}"}}]},
    "finish_reason": "tool_calls"
  }],
  "usage": {"prompt_tokens": 1045, "completion_tokens": 21, "total_tokens": 1066}
})json";

// Older Ollama: "finish_reason will always be stop" (ollama/ollama
// docs/openai.md, as PR #5151 shows it), here beside a tool call, and no
// `usage` (some gateways and older servers leave it out; unsure which
// Ollama versions did).
inline constexpr char kOllamaOlderToolCallStopWithoutUsage[] = R"json({
  "id": "chatcmpl-527",
  "object": "chat.completion",
  "created": 1722181065,
  "model": "llama3.1:latest",
  "system_fingerprint": "fp_ollama",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "",
                "tool_calls": [{"id": "call_k2n7w0qe", "type": "function",
                                "function": {"name": "search_documents",
                                             "arguments": "{\"query\":\"OOMKilled\"}"}}]},
    "finish_reason": "stop"
  }]
})json";

// Ollama's 400 for a model whose template has no tools (ollama/ollama#6027
// shows the /v1 body for stablelm2; picobot#6 and OpenManus#220 the same
// for gemma3:4b and qwen:4b).
inline constexpr char kOllamaDoesNotSupportTools[] =
    R"json({"error": {"message": "registry.ollama.ai/library/gemma:2b does not support tools",
  "type": "api_error", "param": null, "code": null}})json";

// Ollama's zero-value answer: a Go zero time as `created`, an empty role,
// `finish_reason: null`, empty content and zero usage, as users report it
// when a model fails to load or the runner stops mid-request
// (ollama/ollama#7547; reconstructed from the fields reported there, the
// exact body varies).
inline constexpr char kOllamaZeroValue[] = R"json({
  "id": "chatcmpl-412",
  "object": "chat.completion",
  "created": -62135596800,
  "model": "qwen2.5:14b",
  "system_fingerprint": "fp_ollama",
  "choices": [{"index": 0, "message": {"role": "", "content": ""}, "finish_reason": null}],
  "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
})json";

// Ollama's /v1 for a thinking model: the reasoning in `reasoning`, the
// answer in `content` (rohitg00/agentmemory PR #240 reports
// `message.reasoning` from Ollama's OpenAI-compatible endpoint).
inline constexpr char kOllamaReasoningField[] = R"json({
  "id": "chatcmpl-903",
  "object": "chat.completion",
  "created": 1778500000,
  "model": "qwen3:14b",
  "system_fingerprint": "fp_ollama",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "{\"status\":\"DIAGNOSED\"}",
                "reasoning": "The error rate rose with the new config; the pool is too small."},
    "finish_reason": "stop"
  }],
  "usage": {"prompt_tokens": 1800, "completion_tokens": 140, "total_tokens": 1940}
})json";

// The same model out of tokens while thinking: reasoning, empty content
// (rohitg00/agentmemory PR #240: "returned reasoning but empty final
// content" with a small max_tokens).
inline constexpr char kOllamaReasoningOnlyLength[] = R"json({
  "id": "chatcmpl-904",
  "object": "chat.completion",
  "created": 1778500100,
  "model": "kimi-k2.6:cloud",
  "system_fingerprint": "fp_ollama",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "",
                "reasoning": "The user wants a diagnosis. First I need to look at"},
    "finish_reason": "length"
  }],
  "usage": {"prompt_tokens": 1800, "completion_tokens": 20, "total_tokens": 1820}
})json";

// ---------------------------------------------------------------- LM Studio

// LM Studio's tool call: no `content` key at all beside the calls, a
// numeric string as the call id, its `stats` object, and the model name as
// `system_fingerprint` (LM Studio docs developer/openai-compat tools:
// "finish_reason = tool_calls"; the id format and extras are as LM Studio
// 0.3.x answers, unsure for newer versions).
inline constexpr char kLmStudioToolCall[] = R"json({
  "id": "chatcmpl-4ahw3kk1xm9ig0o2b7rkp",
  "object": "chat.completion",
  "created": 1738000000,
  "model": "qwen2.5-7b-instruct",
  "choices": [{
    "index": 0,
    "logprobs": null,
    "finish_reason": "tool_calls",
    "message": {"role": "assistant",
                "tool_calls": [{"id": "365174485", "type": "function",
                                "function": {"name": "query_mysql",
                                             "arguments":
                                             "{\"datasource\":\"orders\",\"sql\":\"SELECT 1\"}"}}]}
  }],
  "usage": {"prompt_tokens": 700, "completion_tokens": 40, "total_tokens": 740},
  "stats": {},
  "system_fingerprint": "qwen2.5-7b-instruct"
})json";

// LM Studio's error body: `error` is a bare string, not an object
// (t59688/arboris-novel#23 quotes this 400 from LM Studio).
inline constexpr char kLmStudioBareStringError[] =
    R"json({"error":"'response_format.type' must be 'json_schema' or 'text'"})json";

// ---------------------------------------------------------------- LiteLLM

// LiteLLM proxy in front of another provider: OpenAI's fields with its own
// extras, `function_call: null`, `provider_specific_fields`, and usage
// details whose members are null (BerriAI/litellm issue threads quote
// these fields, e.g. #11407's `provider_specific_fields`).
inline constexpr char kLiteLlmToolCall[] = R"json({
  "id": "chatcmpl-ab2d6b3d-ff93-4e58-a528-ef9c729e73a5",
  "created": 1749032296,
  "model": "qwen-max",
  "object": "chat.completion",
  "system_fingerprint": null,
  "choices": [{
    "finish_reason": "tool_calls",
    "index": 0,
    "message": {"content": null, "role": "assistant",
                "tool_calls": [{"function": {"arguments": "{\"query\": \"certificate expired\"}",
                                             "name": "search_documents"},
                                "id": "call_5b1c9e0f2a7d4c3e8f6a1b2c", "type": "function"}],
                "function_call": null,
                "provider_specific_fields": {}}
  }],
  "usage": {"completion_tokens": 26, "prompt_tokens": 930, "total_tokens": 956,
            "completion_tokens_details": null,
            "prompt_tokens_details": {"audio_tokens": null, "cached_tokens": 0,
                                      "text_tokens": null, "image_tokens": null}},
  "service_tier": null
})json";

// A gateway answering HTTP 200 with an error object instead of a
// completion (BerriAI/litellm#27030 reports 200 with an error body for an
// unknown model, #10593 "always gives a 200 code status"; a maintainer's
// bot could not reproduce #27030 on 1.84, so this is a gateway behaviour
// seen in some versions and setups).
inline constexpr char kLiteLlmErrorWith200[] =
    R"json({"error": {
  "message": "litellm.BadRequestError: Invalid model name passed in model=diagd-agent.)json"
    R"json( Call `/v1/models` to view available models for your key.",
  "type": "invalid_request_error", "param": "model", "code": "400"}})json";

// ---------------------------------------------------------------- DeepSeek

// deepseek-reasoner: `reasoning_content` beside the answer, DeepSeek's
// usage extras (`prompt_cache_hit_tokens`, `prompt_cache_miss_tokens`,
// `completion_tokens_details.reasoning_tokens`), a UUID as id, and a
// `_prod..._fp8_kvcache` fingerprint (DeepSeek API docs
// guides/reasoning_model; tidyllm's recorded DeepSeek answer in its
// tests/testthat/deepseek shows the id, usage and fingerprint format).
inline constexpr char kDeepSeekReasonerAnswer[] = R"json({
  "id": "b55e6172-d379-4806-b4e0-d21dd4b243b7",
  "object": "chat.completion",
  "created": 1755780061,
  "model": "deepseek-reasoner",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant",
                "content": "{\"status\":\"DIAGNOSED\",\"cause\":\"expired certificate\"}",
                "reasoning_content":
                  "The TLS errors begin at midnight; the certificate expired then."},
    "logprobs": null,
    "finish_reason": "stop"
  }],
  "usage": {"prompt_tokens": 1320, "completion_tokens": 214, "total_tokens": 1534,
            "prompt_tokens_details": {"cached_tokens": 1280},
            "completion_tokens_details": {"reasoning_tokens": 180},
            "prompt_cache_hit_tokens": 1280, "prompt_cache_miss_tokens": 40},
  "system_fingerprint": "fp_feb633d1f5_prod0820_fp8_kvcache"
})json";

// DeepSeek thinking mode with tools: `reasoning_content` beside the tool
// calls and empty content; DeepSeek wants that reasoning sent back on the
// following requests of the same turn (DeepSeek API docs
// guides/thinking_mode, "Tool Calls"; call ids with an index prefix as
// users' logs show them, unsure of the exact format).
inline constexpr char kDeepSeekThinkingToolCall[] = R"json({
  "id": "3c1f8e2a-5b7d-4e09-9a6c-2d4f8b1e7c30",
  "object": "chat.completion",
  "created": 1765000000,
  "model": "deepseek-chat",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "",
                "reasoning_content": "I need the gateway logs around 10:00 before deciding.",
                "tool_calls": [{"index": 0, "id": "call_00_Xo3kF8sQ2mB7vL1nP9dR4tYw",
                                "type": "function",
                                "function": {"name": "query_logs",
                                             "arguments":
                                             "{\"topic\":\"gateway\",\"lookback_minutes\":60}"}}]},
    "logprobs": null,
    "finish_reason": "tool_calls"
  }],
  "usage": {"prompt_tokens": 2048, "completion_tokens": 96, "total_tokens": 2144,
            "prompt_tokens_details": {"cached_tokens": 1920},
            "completion_tokens_details": {"reasoning_tokens": 60},
            "prompt_cache_hit_tokens": 1920, "prompt_cache_miss_tokens": 128},
  "system_fingerprint": "fp_ffc7281d48_prod0820_fp8_kvcache"
})json";

// DeepSeek out of tokens while thinking: `finish_reason: "length"`, empty
// content, no tool call, the reasoning so far (DeepSeek API docs: max_tokens
// counts the chain of thought too).
inline constexpr char kDeepSeekReasoningOnlyLength[] = R"json({
  "id": "9d2e4f6a-8b0c-4d1e-a3f5-7b9c1d3e5f70",
  "object": "chat.completion",
  "created": 1765000300,
  "model": "deepseek-reasoner",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "",
                "reasoning_content":
                  "First, the timeline. Errors start at 09:58, before the deploy at"},
    "logprobs": null,
    "finish_reason": "length"
  }],
  "usage": {"prompt_tokens": 3000, "completion_tokens": 1024, "total_tokens": 4024,
            "completion_tokens_details": {"reasoning_tokens": 1024},
            "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 3000},
  "system_fingerprint": "fp_feb633d1f5_prod0820_fp8_kvcache"
})json";

// DeepSeek's 400 when a tool-calling turn's reasoning was not sent back
// (abhigyanpatwari/GitNexus#43, mcowger/generic-copilot#35 quote the text).
inline constexpr char kDeepSeekMissingReasoningContent[] =
    R"json({"error": {
  "message": "Missing `reasoning_content` field in the assistant message at message index 2.)json"
    R"json( For more information, please refer to)json"
    R"json( https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
  "type": "invalid_request_error", "param": null, "code": "invalid_request_error"}})json";

// ---------------------------------------------------------------- Qwen / DashScope

// DashScope compatible mode (https://dashscope.aliyuncs.com/compatible-mode/v1):
// `content: ""` beside the calls, an `index` in each call,
// `system_fingerprint: null`, `prompt_tokens_details.cached_tokens`, the
// fields in DashScope's order (Alibaba Cloud Model Studio docs,
// "OpenAI Chat接口兼容" and its function calling page).
inline constexpr char kDashScopeToolCall[] = R"json({
  "choices": [{
    "message": {"content": "", "role": "assistant",
                "tool_calls": [{"index": 0, "id": "call_6f0e2b8c4a1d4e7f9b3c5a",
                                "type": "function",
                                "function": {"name": "search_documents",
                                             "arguments": "{\"query\": \"支付回调超时\"}"}}]},
    "finish_reason": "tool_calls",
    "index": 0,
    "logprobs": null
  }],
  "object": "chat.completion",
  "usage": {"prompt_tokens": 1130, "completion_tokens": 25, "total_tokens": 1155,
            "prompt_tokens_details": {"cached_tokens": 0}},
  "created": 1752000000,
  "system_fingerprint": null,
  "model": "qwen-plus",
  "id": "chatcmpl-f5a1f1ee-dac6-9c1b-9bdb-2f0c22b8af45"
})json";

// DashScope's 400 for a Qwen3 open-source model called without streaming
// while its thinking is on by default (infiniflow/ragflow#8972,
// OpenBMB/UltraRAG#287, QuantumNous/new-api PR #1109).
inline constexpr char kDashScopeThinkingNeedsStream[] =
    R"json({"error": {"code": "invalid_parameter_error", "param": null,
  "message": "parameter.enable_thinking must be set to false for non-streaming calls",
  "type": "invalid_request_error"},
  "id": "chatcmpl-f5a1f1ee-dac6-9c1b-9bdb-2f0c22b8af45",
  "request_id": "f5a1f1ee-dac6-9c1b-9bdb-2f0c22b8af45"})json";

// A DashScope-style error object (top-level `code`, `message`,
// `request_id`, as dinoanderson/qwen_cli_coder#1 quotes DashScope's native
// API) that a gateway in front of it forwards with HTTP 200 (unsure:
// DashScope itself sends this shape with a 4xx).
inline constexpr char kDashScopeStyleErrorWith200[] =
    R"json({"code": "DataInspectionFailed",
  "message": "Input data may contain inappropriate content.",
  "request_id": "01415ff3-53f4-989d-83c0-3eb61fa1418e"})json";

// ---------------------------------------------------------------- OpenAI

// OpenAI's own tool call, with every field it adds today: `refusal: null`,
// `annotations: []`, `logprobs: null`, `service_tier`, `system_fingerprint`,
// and the usage details (OpenAI API reference, "The chat completion
// object"; openai/openai-openapi).
inline constexpr char kOpenAiToolCall[] = R"json({
  "id": "chatcmpl-BvX3pQk2mZ9aR7sT1uV5wY8cD4eF",
  "object": "chat.completion",
  "created": 1753000000,
  "model": "gpt-4.1-mini-2025-04-14",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": null,
                "tool_calls": [{"id": "call_Qm8xT2vL9pR4sK7wN1bY5cZ3", "type": "function",
                                "function": {"name": "query_logs",
                                             "arguments":
                                               "{\"topic\":\"payments\",\"level\":\"ERROR\"}"}}],
                "refusal": null,
                "annotations": []},
    "logprobs": null,
    "finish_reason": "tool_calls"
  }],
  "usage": {"prompt_tokens": 1312, "completion_tokens": 27, "total_tokens": 1339,
            "prompt_tokens_details": {"cached_tokens": 1152, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0}},
  "service_tier": "default",
  "system_fingerprint": "fp_6f2eabb9a5"
})json";

// OpenAI's 404 for a model the key cannot use (the text as
// continuedev/continue#11567 quotes an OpenAI-compatible provider's).
inline constexpr char kOpenAiModelNotFound[] =
    R"json({"error": {
  "message": "The model `gpt-4o-diag` does not exist or you do not have access to it.",
  "type": "invalid_request_error", "param": null, "code": "model_not_found"}})json";

// OpenAI's 401, which echoes the key with its middle masked (OpenAI API
// error codes guide, "401 - Invalid Authentication"; the masking as users'
// reports show it).
inline constexpr char kOpenAiInvalidKey[] =
    R"json({"error": {
  "message": "Incorrect API key provided: sk-test-****************41a8.)json"
    R"json( You can find your API key at https://platform.openai.com/account/api-keys.",
  "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}})json";

// OpenAI's 429 for a rate limit, sent with a `Retry-After` header (OpenAI
// API error codes guide, "429 - Rate limit reached for requests"; the
// message format as users quote it).
inline constexpr char kOpenAiRateLimited[] =
    R"json({"error": {
  "message": "Rate limit reached for gpt-4.1-mini on requests per min (RPM):)json"
    R"json( Limit 3, Used 3, Requested 1. Please try again in 20s.",
  "type": "requests", "param": null, "code": "rate_limit_exceeded"}})json";

// A gateway's 503 while no backend is free, with `Retry-After` (any HTTP
// service may send one with a 503, RFC 9110 section 10.2.3; the text is
// LiteLLM router's "No deployments available" as its issues quote it;
// whether LiteLLM adds the header is not checked).
inline constexpr char kGatewayNoDeployments[] =
    R"json({"error": {
  "message": "No deployments available for selected model, Try again in 3 seconds.",
  "type": "None", "param": "None", "code": "503"}})json";

// A chat.completion.chunk stream where one JSON answer was asked for
// (`stream: false`): what a gateway that always streams sends
// (BerriAI/litellm#6629 reports `text/event-stream` from the proxy where a
// single JSON response was expected).
inline constexpr char kEventStreamInsteadOfJson[] =
    "data: {\"id\":\"chatcmpl-693\",\"object\":\"chat.completion.chunk\",\"created\":1715427619,"
    "\"model\":\"qwen2.5:14b\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
    "\"content\":\"{\\\"status\\\"\"},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-693\",\"object\":\"chat.completion.chunk\",\"created\":1715427619,"
    "\"model\":\"qwen2.5:14b\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"content\":\":\\\"DIAGNOSED\\\"}\"},"
    "\"finish_reason\":\"stop\"}]}\n\n"
    "data: [DONE]\n\n";

}  // namespace diagd::model::shapes
