// narrate studio: the page's one mutable state. Every view reads `state` and changes it with
// set(), which tells the subscribers of the keys it changed: a language switch (`lang`) is
// how each view knows to say its words again. Nothing else on the page holds state of its
// own, so what the page knows at a moment is this one object (the browser tests read it
// through the window.studio hook, main.js).

/**
 * @typedef {Record<string, any>} Json  a body the API answered (its shape: docs/reference)
 * @typedef {{ code: string, message: string, segment?: number | null }} Notice
 * @typedef {{ index: number, state: string, engine?: string | null, voice?: string | null,
 *   worker?: string | null, native_rate?: number | null, tts_calls?: number | null }} SegmentState
 * @typedef {{ id: string, status: string, progress: number, stage: string, created: number,
 *   title: string, segments: SegmentState[], warnings: Notice[], error: Notice | null,
 *   artifacts: string[], parent?: string | null, batch?: string | null }} Job  GET /v1/jobs/{id}
 * @typedef {{ close: () => void, kind: string, readonly readyState: number }} Stream
 * @typedef {{ at: number, text: string, timed: boolean, emph: boolean }} Piece
 * @typedef {{ start: number, end: number, settings: Record<string, string>, cls: string,
 *   lines: string[], pieces: Piece[][] }} Cue
 * @typedef {{ styles: Record<string, string>, cues: Cue[] }} Subtitles
 * @typedef {{ id: string, min: number[], max: number[], bin_seconds: number, scale: number }} Waveform
 *   GET /v1/jobs/{id}/waveform, with the job's id
 */
/**
 * @typedef {object} State
 * @property {string} lang  the page's language (zh-CN, en; "" until main.js sets it)
 * @property {Job | null} job  the open job as last read
 * @property {string | null} jobId  the job the view is on (before it is read)
 * @property {number | null} timer  the open job's next poll
 * @property {Stream | null} events  the open job's event stream
 * @property {boolean} noStream  the stream dropped: the job is polled
 * @property {boolean} pending  an event's re-read is scheduled
 * @property {Json | null} source  the open job's spec and options (GET …/source)
 * @property {Json | null} manifest  its manifest.json
 * @property {string | null} loaded  the job whose result is loaded
 * @property {string[]} urls  blob: URLs to revoke when the job is left
 * @property {Subtitles | null} subs  its subtitles.vtt, parsed (drawn by the page)
 * @property {boolean} burned  the picture has them burned in
 * @property {string} drawn  what the cue box shows (drawn again only when it changes)
 * @property {number | undefined} total  the timeline's length in seconds
 * @property {Waveform | null} wave  the job's waveform peaks
 * @property {number[] | null} syllables  each segment's syllables (a drag's pace)
 * @property {HTMLAudioElement | null} segAudio  a segment being heard
 * @property {HTMLAudioElement | null} audition  a voice sample being heard
 * @property {Json[]} voices  GET /v1/voices
 * @property {Json[]} styles  GET /v1/styles' styles
 * @property {number} stillSeq  the latest compose still asked for
 * @property {number | null} listTimer  the job list's next read
 * @property {number | undefined} searchTimer  the server's search, after a pause
 * @property {boolean} search  the list is the server's answer to the search
 * @property {Json | null} parsed  the last check of the compose script
 * @property {string} scriptName  the compose script's file name (.md or .json)
 * @property {number | null | undefined} videoSeconds  the chosen video's length (null: unknown)
 * @property {boolean} videoLandscape  the chosen video is wider than tall
 * @property {number | undefined} langTimer  the voice list follows the typed script, after a pause
 * @property {string | null} batchId  the batch the view is on
 * @property {Stream | null} batchStream  its event stream
 * @property {number | null} batchTimer  its next poll
 * @property {boolean} batchNoStream  its stream dropped: it is polled
 */

/** @type {State} */
const current = {
  lang: "", job: null, jobId: null, timer: null, events: null, noStream: false, pending: false,
  source: null, manifest: null, loaded: null, urls: [], subs: null, burned: false, drawn: "",
  total: undefined, wave: null, syllables: null, segAudio: null, audition: null, voices: [], styles: [],
  stillSeq: 0, listTimer: null, searchTimer: undefined, search: false, parsed: null,
  scriptName: "script.md", videoSeconds: undefined, videoLandscape: false, langTimer: undefined,
  batchId: null, batchStream: null, batchTimer: null, batchNoStream: false,
};
/** The state, read-only: change it with set(). @type {Readonly<State>} */
export const state = current;

/** @typedef {{ keys: (keyof State)[], fn: (s: Readonly<State>) => void }} Subscriber */
/** @type {Subscriber[]} */
const subscribers = [];

/**
 * Change some keys; the subscribers of any key whose value changed are called, in the order
 * they subscribed (a module subscribes when it is first imported, so a module is told before
 * the ones that import it: i18n's words are in place before a view says them).
 * @param {Partial<State>} patch
 */
export function set(patch) {
  const changed = /** @type {(keyof State)[]} */ (Object.keys(patch)).filter((k) => current[k] !== patch[k]);
  Object.assign(current, patch);
  if (!changed.length) return;
  for (const s of subscribers.slice()) if (s.keys.some((k) => changed.includes(k))) s.fn(current);
}

/**
 * Call `fn` after each set() that changes one of `keys`; returns the unsubscribe.
 * @param {(keyof State)[]} keys
 * @param {(s: Readonly<State>) => void} fn
 * @returns {() => void}
 */
export function subscribe(keys, fn) {
  const s = { keys, fn };
  subscribers.push(s);
  return () => { const i = subscribers.indexOf(s); if (i >= 0) subscribers.splice(i, 1); };
}
