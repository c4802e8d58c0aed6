// The console's calls to the diagd API (docs/server.md):
// a bearer token kept for the browser tab, asked for on a 401; the SSE
// stream of a run read with fetch (EventSource can neither POST nor send a
// header), resumed with Last-Event-ID after a drop, each event once.
import { askToken } from "./token.js";

const TOKEN_KEY = "diagd.token";

export class HttpError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

// fetch with the tab's token; a 401 asks for a token and tries again, as
// long as the user gives one.
export async function apiFetch(path, options = {}) {
  let again = false;
  for (;;) {
    const headers = new Headers(options.headers || {});
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.set("Authorization", `Bearer ${token}`);
    const response = await fetch(path, { ...options, headers });
    if (response.status !== 401) return response;
    const given = await askToken(again || Boolean(token));
    if (given === null) throw new HttpError(401, "UNAUTHORIZED", "no token");
    sessionStorage.setItem(TOKEN_KEY, given);
    again = true;
  }
}

export async function apiJson(path, options = {}) {
  const response = await apiFetch(path, options);
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  if (!response.ok) {
    const error = body && body.error ? body.error : {};
    throw new HttpError(response.status, error.code, error.message);
  }
  return body;
}

// Reads one SSE response body, calling onEvent({id, event, data}) for each
// event; returns when the server closes the stream.
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = { id: null, event: "message", data: "" };
      const data = [];
      for (const line of block.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;  // a comment: `: keepalive`
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "id") event.id = Number(value);
        else if (field === "event") event.event = value;
        else if (field === "data") data.push(value);
      }
      if (data.length === 0 && event.id === null) continue;
      event.data = data.join("\n");
      onEvent(event);
    }
  }
}

// Follows one run's stream from a chat (a POST) or from its events route,
// reconnecting after a drop with backoff and jitter. Handlers:
//   onEvent(name, data, id): each event once, in order;
//   onState("reconnecting" | "connected" | "lost"): the connection.
// Resolves when `done` arrived or the stream could not be resumed.
export class RunStream {
  constructor({ onEvent, onState }) {
    this.onEvent = onEvent;
    this.onState = onState || (() => {});
    this.lastId = 0;
    this.runId = null;
    this.done = false;
    this.stopped = false;
    this.controller = null;
  }

  handle(event) {
    if (event.id !== null) {
      if (event.id <= this.lastId) return;  // seen before a reconnect
      this.lastId = event.id;
    }
    let data = {};
    try { data = event.data ? JSON.parse(event.data) : {}; } catch { data = {}; }
    if (event.event === "run" && data.run_id) this.runId = data.run_id;
    if (event.event === "done") this.done = true;
    this.onEvent(event.event, data, event.id);
  }

  async connect(makeRequest) {
    this.controller = new AbortController();
    const response = await makeRequest(this.controller.signal);
    if (!response.ok) {
      let error = {};
      try { error = (await response.json()).error || {}; } catch { error = {}; }
      throw new HttpError(response.status, error.code, error.message);
    }
    this.onState("connected");
    await readEvents(response, (event) => { this.received = true; this.handle(event); });
  }

  // Starts a run: POST /api/v1/chat.
  async chat(body) {
    return this.follow((signal) => apiFetch("/api/v1/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal,
    }));
  }

  // Follows a run already going (a reload): GET /api/v1/runs/{id}/events.
  async resume(runId, lastId = 0) {
    this.runId = runId;
    this.lastId = lastId;
    return this.follow(this.eventsRequest());
  }

  eventsRequest() {
    return (signal) => {
      const headers = { Accept: "text/event-stream" };
      if (this.lastId > 0) headers["Last-Event-ID"] = String(this.lastId);
      return apiFetch(`/api/v1/runs/${encodeURIComponent(this.runId)}/events`, { headers, signal });
    };
  }

  async follow(first) {
    let request = first;
    let failures = 0;
    for (;;) {
      this.received = false;
      try {
        await this.connect(request);
      } catch (error) {
        if (this.stopped) return;
        // A refused request (a 4xx) is not retried; a drop or a 5xx is.
        if (error instanceof HttpError && error.status >= 400 && error.status < 500) throw error;
      }
      // A connection that brought events starts the backoff again.
      failures = this.received ? 1 : failures + 1;
      if (this.done || this.stopped) return;
      if (this.runId === null || failures > 8) {
        this.onState("lost");
        return;
      }
      this.onState("reconnecting");
      const base = Math.min(8000, 250 * 2 ** Math.max(0, failures - 1));
      await new Promise((resolve) => setTimeout(resolve, base / 2 + Math.random() * base / 2));
      if (this.stopped) return;
      request = this.eventsRequest();
    }
  }

  close() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }
}
