// A scripted model server: an OpenAI-compatible POST /v1/chat/completions
// on loopback that plays scripted replies, chosen by the component that
// asks (the X-Diagd-Component header) and by how many tool results the
// request already carries, each after a delay the test sets. It plays a
// script; it is no model.
import http from "node:http";

function completion(message) {
  return JSON.stringify({
    id: "chatcmpl-scripted", object: "chat.completion", created: 1700000000, model: "scripted",
    choices: [{ index: 0, message, finish_reason: message.tool_calls ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  });
}

// `previous`: the tool call id whose result the model grades as a gain
// (the progress protocol asks for it from the second call on).
export function toolCalls(calls, previous = null) {
  return {
    role: "assistant", content: null,
    tool_calls: calls.map(([id, name, input]) => ({
      id, type: "function", function: { name, arguments: JSON.stringify(previous
        ? { input, previous_observation: { tool_call_id: previous, information_gain: "GAINED" } }
        : { input }) },
    })),
  };
}

export function answer(content) {
  return { role: "assistant", content: typeof content === "string" ? content : JSON.stringify(content) };
}

// `script(component, request)` returns {message, delayMs} for one request;
// request is the parsed body plus `toolResults`, the number of tool
// messages in it.
export async function startModelServer(script) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => { body += chunk; });
    req.on("end", () => {
      if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body);
      const component = String(req.headers["x-diagd-component"] || "");
      parsed.toolResults = (parsed.messages || []).filter((m) => m.role === "tool").length;
      requests.push({ component, body: parsed });
      const { message, delayMs = 0 } = script(component, parsed);
      const timer = setTimeout(() => {
        if (!res.writableEnded) res.writeHead(200, { "Content-Type": "application/json" }).end(completion(message));
      }, delayMs);
      res.on("close", () => clearTimeout(timer));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
