// The engine of the browser app, over the server's WebSocket (docs/engine-protocol.md): requests
// and their replies by id, a hello at each connection, a request lost with its connection asked
// again while the server restarts. Its own module, so that a test can run it on a scripted socket.

// A request whose connection closed before its reply is asked again, on a new connection, for
// this long (a server restarting), every RETRY_MS: the protocol keeps nothing between requests
// and the page holds the match, so asking twice is safe.
const RESTART_WAIT_MS = 5000;
const RETRY_MS = 200;

// The error of a request whose connection closed under it (asked again by Engine.ask).
function lostError() {
  return Object.assign(new Error("the connection to the engine was lost (your next action reconnects)"), {
    retry: true,
  });
}

export class Engine {
  constructor(url) {
    this.url = url;
    this.next = 1;
    this.pending = new Map();
    this.ready = this.open();
  }
  open() {
    return new Promise((resolve, reject) => {
      const ws = (this.ws = new WebSocket(this.url));
      let opened = false;
      ws.onopen = () => {
        opened = true;
        // every connection begins with hello: a server restarted under the page may take other
        // limits (its max_time_ms), read again before any request is sent
        const id = this.next++;
        const greeted = (reply) => {
          this.hello = reply;
          if (this.lost && this.onback) this.onback(); // (connected again after a loss)
          this.lost = false;
          resolve();
        };
        this.pending.set(id, { resolve: greeted, reject, ws });
        ws.send(JSON.stringify({ cmd: "hello", id }));
      };
      ws.onerror = () =>
        reject(Object.assign(new Error("cannot reach the engine: is scopa serve running?"), { unreachable: true }));
      ws.onclose = () => {
        // the requests sent on it fail, and ask sends them again to the server that comes back (a
        // request sent while it still read open, its server already gone, needed a second click);
        // only those: a connection given up for a newer one may close late, and the newer one's
        // requests are not its own (CI found a new match's hello failed so)
        this.failAll(lostError(), ws);
        if (ws !== this.ws) return;
        // (a connection that never opened already said why: its error stays on the status line)
        if (opened) {
          this.lost = true;
          if (this.onlost) this.onlost();
        }
      };
      ws.onmessage = (e) => {
        const reply = JSON.parse(e.data);
        if (reply.info) {
          // a search's progress line, to its request's onInfo (see ask)
          const waiter = this.pending.get(reply.id);
          if (waiter && waiter.onInfo) waiter.onInfo(reply.info);
          return;
        }
        const error = reply.error && Object.assign(new Error(reply.error.message), { type: reply.error.type });
        if (reply.id === null && error) return this.failAll(error, ws); // a message the engine could not read
        const waiter = this.pending.get(reply.id);
        if (!waiter) return;
        this.pending.delete(reply.id);
        if (error) waiter.reject(error);
        else waiter.resolve(reply);
      };
    });
  }
  // Fails the requests waiting for a reply on the connection ``ws``.
  failAll(error, ws) {
    for (const [id, waiter] of this.pending) {
      if (waiter.ws !== ws) continue;
      this.pending.delete(id);
      waiter.reject(error);
    }
  }
  // Connected, and greeted (this.hello): at once, or after (re)connecting; throws if it cannot.
  async connect() {
    for (;;) {
      const ready = this.ready;
      await ready.catch(() => {}); // (a failed connection is tried again below)
      if (this.ws.readyState === WebSocket.OPEN) return;
      // (two requests at once: the one that opens a connection first, the other waits for it; it
      // opened a second one, and the first then sent on a socket still connecting)
      if (this.ready !== ready) continue;
      this.ready = this.open();
      await this.ready;
      return;
    }
  }
  // Stops this connection's searches, sent at once (before any request asked after it): the
  // page's own, superseded (a new match, an undo, the next hand), whose replies it drops. Left
  // to run they held their places: a new match pressed again and again (Enter held down on it)
  // piled up the computer's searches, and the ninth request in flight was refused as Busy. A
  // connection not open has none running (the server stopped them when it closed).
  stop() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ cmd: "stop", id: this.next++ }));
  }
  // A search's time in milliseconds: what the app would like, or the server's most if less
  // (scopa serve --max-time): a request above it would be refused.
  timeMs(wanted) {
    const most = this.hello ? this.hello.max_time_ms : null;
    return most == null ? wanted : Math.min(wanted, most);
  }
  // The reply to ``request``; one lost with its connection is asked again for RESTART_WAIT_MS,
  // after which the last error stands ("cannot reach", "lost"). A request that could not be
  // sent at all ("cannot reach") fails at once. With ``onInfo`` the request is sent with
  // "progress": true (solve, analyze, review) and onInfo gets each of its info lines' info
  // before the reply (asked again, its lines begin again).
  async ask(request, onInfo = null) {
    if (onInfo) request = { ...request, progress: true };
    let deadline = null;
    for (;;) {
      try {
        return await this.askOnce(request, onInfo);
      } catch (err) {
        // (lost with its connection; then, while the server is not back, unreachable: the engine's
        // own errors, an illegal move, a busy engine, are said at once. A request asked after its
        // connection was lost, not on it, is asked again too: an audit stopped the server in the
        // page's pause between two requests, and the next one failed at once)
        if ((err.retry || (err.unreachable && this.lost)) && deadline === null) {
          deadline = performance.now() + RESTART_WAIT_MS;
        }
        const again = err.retry || (err.unreachable && deadline !== null);
        if (!again || performance.now() > deadline) throw err;
        await new Promise((ok) => setTimeout(ok, RETRY_MS));
      }
    }
  }
  async askOnce(request, onInfo = null) {
    await this.connect();
    if (request.time_ms != null) request = { ...request, time_ms: this.timeMs(request.time_ms) };
    const id = this.next++;
    const text = JSON.stringify({ ...request, id });
    // a request longer than the server reads is refused here: the server's error for it has no
    // id (it could not read one), so every request waiting on the connection failed with it
    const most = this.hello ? this.hello.max_request_bytes : null;
    const size = most == null ? 0 : new TextEncoder().encode(text).length;
    if (most != null && size > most) {
      const message = `a request of ${size} bytes: the server reads at most ${most} (its max_request_bytes)`;
      throw Object.assign(new Error(message), { type: "ProtocolError" });
    }
    return new Promise((resolve, reject) => {
      if (this.ws.readyState !== WebSocket.OPEN) return reject(lostError()); // (closed since)
      this.pending.set(id, { resolve, reject, ws: this.ws, onInfo });
      this.ws.send(text);
    });
  }
}
