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
      let text = Buffer.alloc(0);
      let cut = false;
      answer.on("data", (chunk) => {
        if (cut) return;
        if (!cutting) { res.write(chunk); return; }
        const already = text.length;
        text = Buffer.concat([text, chunk]);
        const at = text.indexOf(`id: ${cutAfter + 1}\n`);
        if (at < 0) { res.write(chunk); return; }
        // Passes what came before the next event, then drops the connection
        // (after those bytes are out: no chunked end, so the page sees a cut).
        cut = true;
        seen.cuts += 1;
        if (at > already) res.write(chunk.subarray(0, at - already));
        answer.destroy();
        res.socket.end();
      });
      answer.on("end", () => { if (!cut) res.end(); });
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
