// A loopback proxy in front of diagd for the reconnect test: it passes every
// request through, but cuts the chat's event stream right after the event
// with id `cutAfter`, and can refuse the first `refuseResumes` resumptions
// with a 502, so the page must back off and resume with Last-Event-ID.
import http from "node:http";

export async function startDroppingProxy(target, { cutAfter = 3, refuseResumes = 0 } = {}) {
  const seen = { resumes: [], cuts: 0 };
  let refused = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, target);
    const resume = /\/api\/v1\/runs\/[^/]+\/events$/.test(url.pathname);
    if (resume) {
      seen.resumes.push(req.headers["last-event-id"] ?? null);
      if (refused < refuseResumes) {
        refused += 1;
        res.writeHead(502, { "Content-Type": "application/json" }).end('{"error":{"code":"BAD_GATEWAY","message":"proxy"}}');
        return;
      }
    }
    const upstream = http.request(url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      const cutting = url.pathname === "/api/v1/chat" && String(answer.headers["content-type"]).includes("event-stream");
      let text = "";
      answer.on("data", (chunk) => {
        if (!cutting) { res.write(chunk); return; }
        text += chunk.toString("utf8");
        const at = text.indexOf(`id: ${cutAfter + 1}\n`);
        if (at < 0) { res.write(chunk); return; }
        // Passes what came before the next event, then drops the connection.
        const before = Buffer.byteLength(text.slice(0, at)) - (Buffer.byteLength(text) - chunk.length);
        if (before > 0) res.write(chunk.subarray(0, before));
        seen.cuts += 1;
        answer.destroy();
        res.socket.destroy();
      });
      answer.on("end", () => res.end());
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    seen,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}
