// narrate studio: server-sent events read from a fetch() body (api.js: EventSource cannot send
// Authorization, so with a key the stream is read and parsed here). Pure (no DOM).

/** @typedef {{ name: string, data: string, id: string }} ServerEvent */

/**
 * The complete events at the head of `buffer` (blocks ended by a blank line; \r dropped
 * first) and what is left of it: the start of the next event.
 * @param {string} buffer
 * @returns {{ events: ServerEvent[], rest: string }}
 */
export function takeEvents(buffer) {
  /** @type {ServerEvent[]} */
  const events = [];
  let buf = buffer, at;
  while ((at = buf.indexOf("\n\n")) >= 0) {
    const block = buf.slice(0, at);
    buf = buf.slice(at + 2);
    let name = "message", data = "", id = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(5).trim();
      else if (line.startsWith("id:")) id = line.slice(3).trim();
    }
    events.push({ name, data, id });
  }
  return { events, rest: buf };
}
